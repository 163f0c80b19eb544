/**
 * Ways of writing findings in a Markdown report that a Markdown viewer does
 * not show as list items (seed 003 G10, G17): a bullet character Markdown
 * does not know, a table, a marker without its space, HTML. Each would make
 * findings count as zero issues, so the report reader refuses them.
 */

/**
 * Why a line that starts a block (or a lazy line) lists findings in a form
 * the flat report does not read, if it does. `lines`: the whole report, for
 * the dashes, which list findings only when more than one line opens with
 * one (a single "— reviewer" is a sign-off).
 */
export function oddListing(line: string, lines: readonly string[] = [line]): string | undefined {
  if (/^ {0,3}[\u2022\u25E6\u2023\u25AA\u25CF\u00B7]\s/.test(line)) return 'this line uses a bullet character Markdown does not read as a list item';
  const dash = /^ {0,3}([\u2013\u2014])\s/.exec(line);
  if (dash && lines.filter((l) => new RegExp(`^ {0,3}${dash[1]}\\s`).test(l)).length > 1) return 'this line uses a bullet character Markdown does not read as a list item';
  if (/^ {0,3}\|/.test(line)) return 'a table is not a flat list';
  // "\- b" shows as "- b" in every viewer, yet is text, not an item: a finding that would not be counted.
  if (/^ {0,3}(?:\\[-*+]|\d{1,9}\\[.)])[ \t]/.test(line)) return 'an escaped list marker (\\-) shows as a list item, but Markdown reads the line as text, so this finding would not be counted';
  if (missingSpaceMarker(line)) return 'a list marker needs a space after it';
  return undefined;
}

/**
 * `-foo` or `+foo`: a marker written without its space, which Markdown reads
 * as prose. Emphasis (`*Scope:* …`, `**bold**`) and numbers in prose
 * (`3.x branch`) are not markers.
 */
function missingSpaceMarker(line: string): boolean {
  const body = line.replace(/^ {0,3}/, '');
  if (/^[-*_]{3,}/.test(body)) return false;
  // A command-line flag wrapped onto its own line ("-Werror", "-O2", "-DNAME") is text, not a marker.
  if (/^-(?:[A-Z]|[a-z]\d|[a-zA-Z]+=)/.test(body)) return false;
  if (/^[-+][^\s\d.)*+-]/.test(body)) return true;
  // A star that opens emphasis closes it later on the line.
  if (/^\*[^\s*]/.test(body)) return !/^\*[^*]+\*/.test(body);
  return false;
}

/** What an HTML block holds besides comments. */
export type HtmlRemainder =
  /** Only comments: not content, no finding. */
  | undefined
  /** A comment never closed: it hides the rest of the report. */
  | 'unclosed'
  /** Markup or text, `afterComment` when it follows a comment's end on the line `line` (0-based, in the block). */
  | { afterComment: boolean; line: number };

/**
 * Reads an HTML block's text as comments and what else: `<!-->` and
 * `<!--->` are whole comments (CommonMark), never one left open.
 */
export function htmlRemainder(block: string): HtmlRemainder {
  let at = 0;
  let comments = 0;
  for (;;) {
    while (at < block.length && /\s/.test(block[at])) at++;
    if (at >= block.length) return undefined;
    if (!block.startsWith('<!--', at)) break;
    const end = block.indexOf('-->', at + 2);
    if (end < 0) return 'unclosed';
    at = end + 3;
    comments++;
  }
  const line = block.slice(0, at).split('\n').length - 1;
  return { afterComment: comments > 0, line };
}

/** The tag an HTML block opens with, for the message (`div`, `details`, `!DOCTYPE`). */
export function htmlBlockTag(block: string): string {
  return /^\s*<\/?([!?]?[A-Za-z][A-Za-z0-9-]*)/.exec(block)?.[1].toLowerCase() ?? block.trim().slice(0, 20);
}
