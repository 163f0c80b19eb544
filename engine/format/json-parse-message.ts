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
