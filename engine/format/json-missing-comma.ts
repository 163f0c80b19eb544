/**
 * jsonc-parser reports a word right after a complete value (`"x" version`)
 * as "invalid symbol", which reads as "a value is missing" when what is
 * missing is the comma (or the closing bracket) after the value before it.
 * The usual way to get there is a string left open: `"name": "x, "version"`
 * — the quote meant to open "version" closes the string instead, and the
 * word is left bare. That string is named, with where it opens.
 */
export interface ValueBefore {
  /** Where the string just before starts, when the value before is a string that may have swallowed a quote. */
  openString?: { start: number; text: string };
}

/** The value that ends right before `offset` (whitespace aside), or undefined when no complete value does. */
export function valueEndingBefore(text: string, offset: number): ValueBefore | undefined {
  let i = offset - 1;
  while (i >= 0 && /\s/.test(text[i])) i--;
  if (i < 0) return undefined;
  const c = text[i];
  if (c === '"') {
    const string = lastString(text, offset);
    if (!string || string.end !== i) return undefined;
    // A bare word followed at once by a quote (`version"`) was meant to be quoted: the string before took its opening quote.
    const swallowed = /^[A-Za-z_$][\w$-]*"/.test(text.slice(offset));
    return swallowed ? { openString: { start: string.start, text: text.slice(string.start, i + 1) } } : {};
  }
  if (c === '}' || c === ']' || /[0-9]/.test(c) || /(?:true|false|null)$/.test(text.slice(Math.max(0, i - 4), i + 1))) return {};
  return undefined;
}

/** The last string (start and closing-quote offsets) that closes before `offset`, scanning from the start. */
function lastString(text: string, offset: number): { start: number; end: number } | undefined {
  let found: { start: number; end: number } | undefined;
  for (let i = 0; i < offset; i++) {
    if (text[i] !== '"') continue;
    const start = i;
    for (i++; i < text.length && text[i] !== '"' && text[i] !== '\n'; i++) if (text[i] === '\\') i++;
    if (i < offset) found = { start, end: i };
  }
  return found;
}
