/**
 * JSON.parse's error message as one line for a person: V8 quotes the text
 * it failed on back into the message (`Unexpected token 'x', "…" is not
 * valid JSON`), line breaks and all, which the reader already has.
 * `located`: the caller gives a line:col, so the offset is dropped too.
 */
export function jsonParseReason(message: string, located = false): string {
  let text = message.replace(/, (?:"|\.\.\.)[\s\S]* is not valid JSON$/, '');
  if (located) text = text.replace(/ (?:in|after) JSON at position \d+.*$/s, '');
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Where a JSON text's first syntax error is, as an offset. jsonc-parser
 * finds it when JSON.parse names no position (often, on Node 20), but for
 * a fault inside a string (a raw tab, a bad escape) it points at the
 * string's opening quote; V8 then names the character itself, which is
 * taken when it lies inside that string.
 */
export async function jsonErrorOffset(text: string, parseMessage: string): Promise<number | undefined> {
  const { parse } = await import('jsonc-parser');
  const errors: Array<{ offset: number }> = [];
  parse(text, errors as never, { allowTrailingComma: false, disallowComments: true });
  const at = errors.length > 0 ? errors[0].offset : undefined;
  const v8 = /at position (\d+)/.exec(parseMessage);
  if (at !== undefined && v8 && text[at] === '"') {
    const inside = Number(v8[1]);
    if (inside > at && inside < text.length && !/(?<!\\)"/.test(text.slice(at + 1, inside))) return inside;
  }
  return at;
}
