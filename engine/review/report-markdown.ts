/**
 * Markdown reports: every top-level list item is one issue (seed 003,
 * §4.12). Nested items, empty items and headings that name a severity
 * tier break the flat list and are refused; issue text is never scanned.
 * Zero issues is an empty file (HTML comments aside): any other text
 * without list items may hold findings that would not be counted.
 */
import { CountersignError } from '../errors.js';
import { isTierHeading } from './report-tiers.js';

/** `- `, `* `, `+ `, `1. `, `1) ` at column 0 (or the bare marker: an empty item). */
const TOP_ITEM = /^([-*+]|\d{1,9}[.)])(?:[ \t]+([^\n]*))?$/;
/** A list marker after indentation: a nested (or misaligned) item, which breaks the flat list. */
const INDENTED_ITEM = /^[ \t]+(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const FENCE = /^[ \t]*(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]+([^\n]*?))?(?:[ \t]+#+)?[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const COMMENT_OPEN = /^ {0,3}<!--/;
/** The tags that open an HTML block in CommonMark (kinds 1 and 6): the block's lines are HTML, not Markdown. */
const HTML_BLOCK = /^ {0,3}<\/?(address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|link|main|menu|menuitem|nav|noframes|optgroup|option|p|param|pre|script|search|section|style|summary|table|tbody|td|textarea|tfoot|th|thead|title|tr|track)(?=[\s/>]|$)/i;
const MARKDOWN_FIX =
  'write one top-level list item per issue ("- …" or "1. …" at the start of the line), with no sub-items and no severity headings; every issue is mandatory';

/** The item's last line is indented code (4 columns past its text): no paragraph for a lazy line to continue. */
function endsInCode(item: OpenItem): boolean {
  const last = item.lines[item.lines.length - 1];
  if (last === undefined || item.lines.length < 2) return false;
  return last.trim() !== '' && leadOf(last) >= item.indent + 4;
}

interface OpenItem {
  line: number;
  /** Width of the marker and its space: continuation lines lose up to this much indentation. */
  indent: number;
  lines: string[];
  /** A blank line followed the item's last content line. */
  blankAfter: boolean;
  /** Opened by a number ("1." / "1)") rather than a bullet. */
  ordered: boolean;
}

/**
 * Every top-level list item is one issue; continuation lines (indented, or a
 * lazy line right after the item) belong to it. Headings and paragraphs
 * beside the items are allowed and are not issues; fenced code is not
 * parsed; HTML comments are skipped. `shape.proseLine` is set to the first
 * line of text that is neither an item nor a heading, if any.
 */
export function markdownIssues(text: string, file: string, shape?: { proseLine?: number }): string[] {
  // A lone CR ends a line too (old Mac files), as the reply parser and workflow files read them.
  const lines = text.split(/\r\n|\r|\n/);
  // The column of the line's first character: where the offending item, heading or text begins.
  const fail = (line: number, message: string): CountersignError => {
    const col = (/\S/.exec(lines[line - 1] ?? '')?.index ?? 0) + 1;
    return new CountersignError('E_REPORT_FORMAT', `${file}:${line}:${col}: ${message}`, { file, line, col, fix: MARKDOWN_FIX });
  };
  const issues: string[] = [];
  let item: OpenItem | undefined;
  let fence: { marker: string; inItem: boolean } | undefined;
  let paragraph: { text: string; line: number } | undefined;
  /** The first paragraph or code outside any item: text a reader might take for findings. */
  let firstContent: number | undefined;
  /** The first heading (ATX or Setext): with no items, headings may be findings too. */
  let firstHeading: number | undefined;

  const close = (): void => {
    if (!item) return;
    const body = item.lines.map((l, i) => (i === 0 ? l : stripIndent(l, item!.indent))).join('\n').trim();
    if (body === '') throw fail(item.line, 'this list item is empty: each item is one issue and must say what is wrong');
    // A bullet whose text is all comment reads as an empty item, yet it is not empty text: never a finding.
    if (/^<!--[\s\S]*?-->$/.test(body) && !body.slice(4, -3).includes('-->')) {
      throw fail(item.line, 'this list item holds only an HTML comment, so it says nothing: delete the item, or comment out the whole line, marker included');
    }
    issues.push(body);
    item = undefined;
  };
  const checkTier = (label: string, line: number): void => {
    if (isTierHeading(label)) {
      throw fail(line, `the heading "${label.trim()}" is a severity tier, and severity tiers are not allowed: every issue is one top-level item of one flat list and every issue is mandatory`);
    }
  };

  // A Markdown report must list issues as list items; anything that looks
  // like another way of listing them would otherwise count as zero issues.
  if (isJson(text)) {
    throw fail(1, 'this Markdown report holds JSON; write each issue as a "- " list item, or give the report a .json name');
  }
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const n = i + 1;
    // A fence inside an item ends with the item (CommonMark): a line indented
    // less than the item's text closes it, and is read for itself (a next finding).
    if (fence?.inItem && item && raw.trim() !== '' && leadOf(raw) < item.indent) fence = undefined;
    if (fence) {
      const closes = closesFence(raw, fence.marker, fence.inItem && item ? item.indent : 0);
      if (fence.inItem && item) item.lines.push(raw);
      // Text in a code block outside any item is content too: findings
      // fenced off as code must not read as a report of zero issues.
      else if (!closes && raw.trim() !== '') firstContent ??= n;
      if (closes) fence = undefined;
      continue;
    }
    if (raw.trim() === '') {
      if (item) item.blankAfter = true;
      paragraph = undefined;
      continue;
    }
    const indented = /^[ \t]/.test(raw);
    // A comment is not content: an item commented out is no finding, and
    // its markup must not be glued onto the item before it.
    if (!(item && indented) && COMMENT_OPEN.test(raw)) {
      close();
      paragraph = undefined;
      // From the "<!--" on: "<!-->" and "<!--->" are whole comments (CommonMark), never one left open.
      let end = raw.indexOf('-->', raw.indexOf('<!--') + 2);
      while (end < 0 && ++i < lines.length) end = lines[i].indexOf('-->');
      if (end < 0) throw fail(n, 'this HTML comment is never closed (no "-->"), so the rest of the report would be hidden');
      if (lines[i].slice(end + 3).trim() !== '') throw fail(i + 1, 'text after the end of an HTML comment ("-->") on the same line: start it on a line of its own');
      continue;
    }
    // Other ways of listing findings would count as zero issues: refuse them.
    // Only lines that start a block (not an item's indented continuation).
    if (!(item && indented)) {
      // A lone open or closing tag (CommonMark's HTML block kind 7) starts HTML where no paragraph or item is open:
      // the lines after it, up to a blank line, are HTML, not items.
      const lone = !paragraph && !item && /^ {0,3}<\/?[A-Za-z][A-Za-z0-9-]*(?:\s+[^<>]*)?\/?>\s*$/.exec(raw);
      const odd = lone ? `an HTML block (${raw.trim()}) is not read as Markdown, so the list items in it would be miscounted` : oddListing(raw);
      if (odd) throw fail(n, `${odd}: write each issue as a "- " list item at the start of a line`);
      // "2.second issue" where the next finding is due: a numbered marker without
      // its space, which Markdown reads as prose (or as more of the item before).
      // Numbers in prose are left alone: another number ("2024.was"), a decimal, a version ("3.x").
      const numbered = /^ {0,3}(\d{1,9})[.)](?=[^\s\d])(?![xX]\b)/.exec(raw);
      if (numbered && Number(numbered[1]) === issues.length + (item ? 1 : 0) + 1) {
        throw fail(n, `a list marker needs a space after it ("${numbered[1]}${raw.trimStart()[numbered[1].length]} …"), or this finding would not be counted: write each issue as a "- " list item at the start of a line`);
      }
    }
    const opening = FENCE.exec(raw);
    // A fence is one only where CommonMark opens one: at most 3 spaces in
    // (from the item's text, inside an item; deeper is indented code), and a
    // backtick fence with no backtick after it (```inline``` is code in text).
    const lead = leadOf(raw);
    const depth = item && indented ? lead - item.indent : lead;
    if (opening && depth >= 0 && depth <= 3 && !(opening[1][0] === '`' && raw.slice(raw.indexOf(opening[1]) + opening[1].length).includes('`'))) {
      const inItem = item !== undefined && indented;
      if (item && inItem) {
        if (item.blankAfter) item.lines.push('');
        item.lines.push(raw);
        item.blankAfter = false;
      } else {
        close();
      }
      fence = { marker: opening[1], inItem };
      paragraph = undefined;
      continue;
    }
    if (paragraph && SETEXT_UNDERLINE.test(raw)) {
      checkTier(paragraph.text, paragraph.line);
      // The underlined text was a heading, not prose ("Review\n======").
      if (firstContent === paragraph.line) firstContent = undefined;
      firstHeading ??= paragraph.line;
      paragraph = undefined;
      continue;
    }
    if (THEMATIC_BREAK.test(raw)) {
      close();
      continue;
    }
    const heading = item && indented ? null : HEADING.exec(raw);
    if (heading) {
      close();
      checkTier(heading[1] ?? '', n);
      // Content too: findings written as headings must not read as zero issues.
      firstHeading ??= n;
      paragraph = undefined;
      continue;
    }
    // An item marker 1–3 spaces in is still a top-level item (CommonMark),
    // unless it is indented as far as an open item's text: then it is nested.
    const markerLead = leadOf(raw);
    const sibling = markerLead > 0 && markerLead <= 3 && (!item || markerLead < item.indent) && TOP_ITEM.test(raw.slice(markerLead));
    if (INDENTED_ITEM.test(raw) && !sibling) {
      throw fail(n, 'this list item is indented (nested): a report is a flat list, so every issue is a top-level item at the start of the line');
    }
    const afterParagraph = paragraph !== undefined;
    const top = TOP_ITEM.exec(sibling ? raw.slice(markerLead) : raw);
    // A number other than 1 cannot interrupt a bullet item's text (CommonMark):
    // "2024. was when …" right under "- a finding" goes on that finding.
    const ordered = top !== null && /^\d/.test(top[1]);
    // Lazy continuation carries on a paragraph only: after an item's indented code block a line at column 0 starts anew.
    const afterCode = item !== undefined && endsInCode(item);
    const lazyNumber = top !== null && ordered && (top[2] ?? '').trim() !== '' && item !== undefined && !item.ordered && !item.blankAfter && !afterCode && !/^0*1[.)]$/.test(top[1]) && item.lines.some((l) => l.trim() !== '');
    // A number other than 1 cannot interrupt a paragraph either: it is more of that paragraph's text.
    const paragraphText = top !== null && ordered && afterParagraph && !/^0*1[.)]$/.test(top[1]);
    if (top && !lazyNumber && !paragraphText) {
      close();
      item = { line: n, indent: top[1].length + 1, lines: [top[2] ?? ''], blankAfter: false, ordered };
      paragraph = undefined;
      continue;
    }
    // A lazy continuation line needs an item that has begun its text: after
    // a bare marker ("-" alone) an unindented line is a paragraph of its own.
    const begun = item !== undefined && item.lines.some((l) => l.trim() !== '');
    // An item may begin with at most one blank line: a bare marker, a blank line, then text is an empty item and a paragraph.
    if (item && !begun && item.blankAfter) close();
    if (item && (indented || (!item.blankAfter && begun && !afterCode))) {
      if (item.blankAfter) item.lines.push('');
      item.lines.push(raw);
      item.blankAfter = false;
      continue;
    }
    close();
    if (indented) {
      // An indented code block outside any item: content, as a fenced one is.
      firstContent ??= n;
      continue;
    }
    // A line on its own that is only a tier word ("**Major:**") is a tier heading written as a paragraph.
    if (!paragraph) checkTier(raw, n);
    firstContent ??= n;
    paragraph = paragraph ? { text: `${paragraph.text} ${raw.trim()}`, line: paragraph.line } : { text: raw, line: n };
  }
  close();
  // Findings written as paragraphs or headings would read as zero issues;
  // a report with no issues says so by being empty.
  // Whether the text says anything besides its items and headings (a README does; a bare report does not).
  if (shape) shape.proseLine = firstContent;
  const textAt = firstContent ?? firstHeading;
  if (issues.length === 0 && textAt !== undefined) {
    throw fail(textAt, 'this report has text but no list items, so any findings in it would count as zero issues: write each issue as a "- " list item; a report with no issues is an empty file');
  }
  return issues;
}

/** Columns of leading whitespace (a tab to the next multiple of 4, as near enough for reports). */
function leadOf(line: string): number {
  return /^[ \t]*/.exec(line)![0].replace(/\t/g, '    ').length;
}

/** A closing fence: the same character, at least as long, nothing after it, at most 3 columns past `base` (deeper is code). */
function closesFence(line: string, marker: string, base = 0): boolean {
  if (leadOf(line) - base > 3) return false;
  const trimmed = line.trim();
  return trimmed.length >= marker.length && trimmed.startsWith(marker) && new RegExp(`^\\${marker[0]}+$`).test(trimmed);
}

function stripIndent(line: string, width: number): string {
  let i = 0;
  while (i < width && (line[i] === ' ' || line[i] === '\t')) i++;
  return line.slice(i);
}

/**
 * True when the text is JSON rather than Markdown: it opens an object, or
 * an array of strings/objects. A Markdown link opening the intro
 * (`[notes.md](notes.md) …`) is not.
 */
function isJson(text: string): boolean {
  const body = text.trimStart();
  if (body.startsWith('{')) return true;
  return /^\[\s*["{[\]]/.test(body);
}

/** Why a block-starting line lists findings in a form the flat report does not read, if it does. */
function oddListing(line: string): string | undefined {
  if (/^ {0,3}[\u2022\u25E6\u2023\u25AA\u25CF\u00B7\u2013\u2014]\s/.test(line)) return 'this line uses a bullet character Markdown does not read as a list item';
  if (/^ {0,3}\|/.test(line)) return 'a table is not a flat list';
  if (missingSpaceMarker(line)) return 'a list marker needs a space after it';
  if (/^ {0,3}>\s*(?:[-*+]|\d{1,9}[.)])\s/.test(line)) return 'list items inside a blockquote are not top-level items';
  // Only a line that is itself HTML list markup: an item's text may mention <li> (no keyword scan of issue text).
  if (/^ {0,3}<(?:ul|ol|li)[\s>]/i.test(line)) return 'an HTML list is not read as Markdown list items';
  // Markdown reads the lines of an HTML block as HTML up to the next blank line: list items in it are not items.
  const html = HTML_BLOCK.exec(line);
  if (html) return `an HTML block (<${html[1].toLowerCase()}>) is not read as Markdown, so the list items in it would be miscounted`;
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
  if (/^[-+][^\s\d.)*+-]/.test(body)) return true;
  // A star that opens emphasis closes it later on the line.
  if (/^\*[^\s*]/.test(body)) return !/^\*[^*]+\*/.test(body);
  return false;
}
