/**
 * Pieces of JavaScript regular expressions that match what Python's `re`
 * matches for the same pattern text. The ADR's `pipeline-status` reads PR
 * comments with Python patterns (H17, H18), so the body guard and the ported
 * reader must agree with Python, not with JavaScript, wherever the two differ
 * (§4.14): a body JavaScript lets through but Python reads as a verdict would
 * make the real reader see the wrong verdict.
 *
 * The differences that matter for those patterns (checked against Python 3.11
 * over every code point):
 * - `re.IGNORECASE` also matches `ı` (U+0131) and `İ` (U+0130) with `i`,
 *   `ſ` (U+017F) with `s`, and `K` (KELVIN SIGN, U+212A) with `k`. JavaScript's
 *   `i` flag never folds a non-ASCII character to an ASCII one, and even with
 *   the `u` flag it leaves `ı` and `İ` apart from `i`.
 * - `\s` is `str.isspace()`: it also matches U+001C–U+001F and U+0085, and it
 *   does not match U+FEFF, which JavaScript's `\s` does.
 * - `\w` is letters, numbers and `_` in any script; JavaScript's is ASCII only.
 *
 * Every piece is written as an explicit class, so it means the same with or
 * without the `i` and `u` flags (the `\p{…}` in PY_WORD needs `u`).
 */

/** Python's `\s` in a str pattern. */
export const PY_SPACE = '[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

/** Python's `\w` in a str pattern (use with the `u` flag). */
export const PY_WORD = '[\\p{L}\\p{N}_]';

/** The non-ASCII letters Python's IGNORECASE matches with an ASCII letter. */
const PY_EXTRA_CASES: Readonly<Record<string, string>> = Object.freeze({
  i: '\\u0130\\u0131',
  k: '\\u212a',
  s: '\\u017f',
});

const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|/]/;

/**
 * `literal` as a regex source that matches what Python's `re.IGNORECASE`
 * matches for it: each ASCII letter becomes a class of its two cases plus
 * the non-ASCII letters Python folds onto it (`i` → `[Ii\u0130\u0131]`);
 * every other character stands for itself.
 */
export function pythonIgnoreCase(literal: string): string {
  let source = '';
  for (const ch of literal) {
    if (/^[A-Za-z]$/.test(ch)) {
      const lower = ch.toLowerCase();
      source += `[${lower.toUpperCase()}${lower}${PY_EXTRA_CASES[lower] ?? ''}]`;
    } else {
      source += REGEX_SYNTAX.test(ch) ? `\\${ch}` : ch;
    }
  }
  return source;
}
