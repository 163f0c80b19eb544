/**
 * Markdown reports: every top-level list item is one issue (seed 003,
 * §4.12). The text is read by the CommonMark reference parser
 * (commonmark.js), so the count is the one any Markdown viewer shows; the
 * rules on top of its block tree refuse what would hide or miscount
 * findings. Nested items, empty items and headings that name a severity
 * tier break the flat list and are refused; issue text is never scanned.
 * Zero issues is an empty file (HTML comments aside): any other text
 * without list items may hold findings that would not be counted.
 */
import { createRequire } from 'node:module';
import type { Node as MarkdownNode, Parser } from 'commonmark';
import { CountersignError } from '../errors.js';
import { isTierHeading, isTierQualifier } from './report-tiers.js';
import { htmlBlockTag, htmlRemainder, oddListing } from './report-odd-lines.js';
import { isBlankText } from './blank-text.js';

const MARKDOWN_FIX =
  'write one top-level list item per issue ("- …" or "1. …" at the start of the line), with no sub-items and no severity headings; every issue is mandatory';
const NESTED = 'this list item is indented (nested): a report is a flat list, so every issue is a top-level item at the start of the line';

let parser: Parser | undefined;

/**
 * The parser, loaded when a report is first read: from node_modules, not
 * the CLI bundle, so commands that read no report never load it.
 */
function markdownParser(): Parser {
  parser ??= new (createRequire(import.meta.url)('commonmark') as typeof import('commonmark')).Parser();
  return parser;
}

/** A top-level list item: its lines, and the column its text starts at. */
interface ReportItem {
  /** 0-based first and last lines. */
  first: number;
  last: number;
  /** The column its text starts at: continuation lines indented less are lazy lines. */
  content: number;
}

/** A block's first and last lines, 0-based. */
function linesOf(node: MarkdownNode): [number, number] {
  return [node.sourcepos[0][0] - 1, node.sourcepos[1][0] - 1];
}

function* children(node: MarkdownNode): Generator<MarkdownNode> {
  for (let child = node.firstChild; child; child = child.next) yield child;
}

/**
 * Every top-level list item is one issue, its text as written (marker and
 * the item's indentation removed). Headings and paragraphs beside the items
 * are allowed and are not issues; code is not read; HTML comments are
 * skipped. `shape.proseLine` is set to the first line of text that is
 * neither an item nor a heading, if any.
 */
export function markdownIssues(text: string, file: string, shape?: { proseLine?: number }): string[] {
  // A lone CR ends a line too (old Mac files), as the parser and workflow files read them.
  const lines = text.split(/\r\n|\r|\n/);
  // The column of the line's first character: where the offending item, heading or text begins.
  const fail = (line: number, message: string): CountersignError => {
    const col = (/\S/.exec(lines[line - 1] ?? '')?.index ?? 0) + 1;
    return new CountersignError('E_REPORT_FORMAT', `${file}:${line}:${col}: ${message}`, { file, line, col, fix: MARKDOWN_FIX });
  };
  const checkTier = (label: string, line: number, what: 'heading' | 'label line' = 'heading'): void => {
    if (isTierHeading(label)) {
      throw fail(line, `the ${what} "${label.trim()}" names a severity tier, and severity tiers are not allowed: every issue is one top-level item of one flat list and every issue is mandatory`);
    }
  };

  // A Markdown report must list issues as list items; anything that looks
  // like another way of listing them would otherwise count as zero issues.
  if (isJson(text)) {
    throw fail(1, 'this Markdown report holds JSON; write each issue as a "- " list item, or give the report a .json name');
  }
  const issues: string[] = [];
  /** The item being read, if any. */
  let item: ReportItem | undefined;
  /** The first paragraph or code outside any item: text a reader might take for findings. */
  let firstContent: number | undefined;
  /** The first heading (ATX or Setext): with no items, headings may be findings too. */
  let firstHeading: number | undefined;

  // A line that starts a block, or a lazy line of one: read for other ways of listing findings.
  const checkLine = (index: number, quoted: boolean): void => {
    // Inside a blockquote the line is read after its quote markers.
    const raw = quoted ? lines[index].replace(/^(?: {0,3}> ?)+/, '') : lines[index];
    const odd = oddListing(raw, lines);
    if (odd) throw fail(index + 1, `${odd}: write each issue as a "- " list item at the start of a line`);
    checkDueNumber(index, quoted);
  };

  /** A line of text that opens with the number of the finding due next: a finding Markdown would not count. */
  const checkDueNumber = (index: number, quoted: boolean): void => {
    const raw = quoted ? lines[index].replace(/^(?: {0,3}> ?)+/, '') : lines[index];
    // "2.second issue" where the next finding is due: a numbered marker without
    // its space, which Markdown reads as prose (or as more of the item before).
    // Numbers in prose are left alone: another number ("2024.was"), a decimal, a version ("3.x").
    const due = issues.length + (item ? 1 : 0) + 1;
    const numbered = /^[ \t]*(\d{1,9})[.)](?=[^\s\d])(?![xX]\b)/.exec(raw);
    if (numbered && Number(numbered[1]) === due) {
      throw fail(index + 1, `a list marker needs a space after it ("${numbered[1]}${raw.trimStart()[numbered[1].length]} …"), or this finding would not be counted: write each issue as a "- " list item at the start of a line`);
    }
    // "Also found:" then "2. b": only "1." may start a list right after text, so the due item reads as prose.
    const spaced = /^[ \t]*(\d{1,9})([.)])[ \t]+\S/.exec(raw);
    if (spaced && Number(spaced[1]) === due && due > 1) {
      throw fail(index + 1, `"${spaced[1]}${spaced[2]}" right after a line of text continues that text (Markdown starts a list there only at "1."), so this finding would not be counted: leave a blank line before it, and write each issue as a list item at the start of a line`);
    }
  };

  /** A block inside a top-level item: part of the issue's text, but no list may nest in it. */
  const readInItem = (block: MarkdownNode, quoted: boolean): void => {
    const [start, end] = linesOf(block);
    if (block.type === 'list') {
      // "- 2. step fails": the item's own text opens with a marker, which Markdown reads as a list inside it.
      const inner = start === item!.first ? /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+((?:[-*+]|\d{1,9}[.)]))(?=[ \t]|$)/.exec(lines[start]) : null;
      if (inner) {
        const escaped = inner[1].length > 1 ? `${inner[1].slice(0, -1)}\\${inner[1].slice(-1)}` : `\\${inner[1]}`;
        throw fail(start + 1, `this item's text begins with a list marker ("${inner[1]}"), which Markdown reads as a list inside the item: write the text without it, or escape it (${escaped})`);
      }
      throw fail(start + 1, NESTED);
    }
    if (block.type === 'paragraph') {
      // A lazy line (indented less than the item's text) starts like a block and is read as one.
      // A line at the item's own column is more of its text, yet "2. b" there is the next finding hidden in it.
      for (let i = Math.max(start, item!.first + 1); i <= end; i++) {
        if (leadOf(lines[i]) < item!.content) checkLine(i, quoted);
        else checkDueNumber(i, quoted);
        // "Minor issues:" or "**Nits**" right under an item's text (no blank line) is read as more of it, yet it heads
        // the items after it: a label in form (a colon, or emphasis whole), never a wrapped "… two minor issues".
        if (i > start && isLabelLine(lines[i], false)) checkTier(lines[i], i + 1, 'label line');
      }
      // A label line of its own under an item ("- a", blank, "  **Minor:**") still heads the items after it.
      if (start > item!.first && isLabelLine(lines[start], end === start)) checkTier(lines[start], start + 1, 'label line');
    }
    // A tier heading indented under an item still reads as a section above the items after it.
    if (block.type === 'heading') checkTier(headingLabel(lines, start, end), start + 1);
    // Blocks hold blocks only in a blockquote (a list has thrown); a paragraph's children are inline text.
    if (block.type === 'block_quote') for (const child of children(block)) readInItem(child, true);
  };

  /** A block outside any item. */
  const readOutside = (block: MarkdownNode, quoted: boolean): void => {
    const [start, end] = linesOf(block);
    switch (block.type) {
      case 'block_quote':
        for (const child of children(block)) readOutside(child, true);
        return;
      case 'list':
        throw fail(start + 1, 'list items inside a blockquote are not top-level items: write each issue as a "- " list item at the start of a line');
      case 'heading':
        checkTier(headingLabel(lines, start, end), start + 1);
        // Content too: findings written as headings must not read as zero issues.
        firstHeading ??= start + 1;
        return;
      case 'paragraph':
        for (let i = start; i <= end; i++) checkLine(i, quoted);
        // A label line ("**Major:**", "Minor issues:", a one-line "Nits") is a tier heading
        // written as a paragraph; a sentence ("Optional: the notes were read too.") is prose.
        if (isLabelLine(lines[start], end === start)) checkTier(lines[start], start + 1, 'label line');
        firstContent ??= start + 1;
        return;
      case 'html_block': {
        const rest = htmlRemainder(block.literal ?? '');
        // A comment is not content: an item commented out is no finding.
        if (rest === undefined) return;
        if (rest === 'unclosed') throw fail(start + 1, 'this HTML comment is never closed (no "-->"), so the rest of the report would be hidden');
        if (rest.afterComment) throw fail(start + 1 + rest.line, 'text after the end of an HTML comment ("-->") on the same line: start it on a line of its own');
        throw fail(start + 1, `an HTML block (<${htmlBlockTag(block.literal ?? '')}>) is not read as Markdown, so the list items in it would be miscounted: write each issue as a "- " list item at the start of a line`);
      }
      case 'code_block':
        // An item marker indented 4 or more where no item is open is code: a finding that would not be counted.
        // (commonmark.js gives a fenced block an info string, empty or not, and an indented one none.)
        for (let i = start; block.info === null && i <= end; i++) {
          if (/^[ \t]+(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/.test(lines[i])) throw fail(i + 1, NESTED);
        }
        // Text in a code block outside any item is content too: findings
        // fenced off as code must not read as a report of zero issues.
        if ((block.literal ?? '').trim() !== '') firstContent ??= start + 1;
        return;
    }
  };

  /** The first thematic break ("---"): not prose, yet a report of only rules is no empty report. */
  let firstRule: number | undefined;
  /** Lines some block of the tree holds: what no block holds (link reference definitions) vanished from it. */
  const covered = new Set<number>();
  for (const block of children(markdownParser().parse(text))) {
    const [from, to] = linesOf(block);
    for (let i = from; i <= to; i++) covered.add(i);
    if (block.type === 'thematic_break') {
      // A rule ("---") is no finding, and no report of zero issues either: said below, when nothing else is.
      firstRule ??= from + 1;
      continue;
    }
    if (block.type !== 'list') {
      readOutside(block, false);
      continue;
    }
    for (const node of children(block)) {
      const [first, last] = linesOf(node);
      item = { first, last, content: contentColumn(lines[first]) };
      for (const child of children(node)) readInItem(child, false);
      issues.push(itemText(item, lines, fail));
      item = undefined;
    }
  }
  // Findings written as paragraphs or headings would read as zero issues;
  // a report with no issues says so by being empty.
  // Whether the text says anything besides its items and headings (a README does; a bare report does not).
  if (shape) shape.proseLine = firstContent;
  // Findings written as link reference definitions ("[1]: a.md the title is wrong") leave no block at all.
  const vanished = lines.findIndex((line, i) => !covered.has(i) && line.trim() !== '');
  const textAt = firstContent ?? firstHeading ?? firstRule ?? (vanished === -1 ? undefined : vanished + 1);
  if (issues.length === 0 && textAt !== undefined) {
    throw fail(textAt, 'this report has text but no list items, so any findings in it would count as zero issues: write each issue as a "- " list item; a report with no issues is an empty file');
  }
  return issues;
}

/**
 * Whether a paragraph's first line reads as a label rather than a sentence:
 * wholly emphasised, ending in a colon, or a short line on its own (at most
 * four words, no full stop: "Nits", "Minor issues"); with text after a
 * colon only when that text is a severity ("Priority: high", not "Nits:
 * none."). "All earlier nits are resolved." is a sentence.
 */
function isLabelLine(line: string, alone: boolean): boolean {
  const bare = line.replace(/^(?: {0,3}> ?)+/, '').trim();
  const plain = bare.replace(/[*_`]/g, '').trim();
  const value = /:\s*(\S.*)$/.exec(plain);
  if (value) return isTierQualifier(value[1]);
  const short = alone && plain.split(/\s+/).length <= 4 && !/[.!?]$/.test(plain);
  return short || plain.endsWith(':') || /^(\*\*|__|\*|_)\S(?:.*\S)?\1$/.test(bare);
}

/** A heading's text as written: an ATX heading without its #s, a Setext one without its underline. */
function headingLabel(lines: string[], start: number, end: number): string {
  if (end > start) return lines.slice(start, end).join(' ');
  return lines[start].replace(/^(?:[ \t]*> ?)*[ \t]*#{1,6}(?=[ \t]|$)/, '').replace(/[ \t]+#+[ \t]*$/, '').trim();
}

/** The item's text: its marker and the item's indentation removed, blank lines at either end dropped. */
function itemText(item: ReportItem, lines: string[], fail: (line: number, message: string) => CountersignError): string {
  const start = item.first;
  const first = lines[start].replace(/^[ \t]*(?:[-*+]|\d{1,9}[.)])/, '');
  const body = [first, ...lines.slice(start + 1, item.last + 1).map((l) => stripColumns(l, item.content))].join('\n').trim();
  if (body === '') throw fail(start + 1, 'this list item is empty: each item is one issue and must say what is wrong');
  if (isBlankText(body)) throw fail(start + 1, 'this list item holds only invisible characters (zero-width or blank ones), so it says nothing: each item is one issue and must say what is wrong');
  // A bullet whose text is all comment (closed or not) reads as an empty item, yet it is not empty text: never a finding.
  const html = htmlRemainder(body);
  if (html === undefined || html === 'unclosed') {
    throw fail(start + 1, 'this list item holds only an HTML comment, so it says nothing: delete the item, or comment out the whole line, marker included');
  }
  return body;
}

/**
 * The column an item's text starts at (CommonMark): after the marker and
 * one to four spaces; a marker followed by five or more (indented code) or
 * by nothing takes one.
 */
function contentColumn(line: string): number {
  const marker = /^[ \t]*(?:[-*+]|\d{1,9}[.)])/.exec(line)![0];
  const markerEnd = leadOf(marker.replace(/[^ \t]/g, ' '));
  let col = markerEnd;
  let i = marker.length;
  for (; i < line.length && (line[i] === ' ' || line[i] === '\t'); i++) col += line[i] === '\t' ? 4 - (col % 4) : 1;
  if (i === line.length || col - markerEnd >= 5) return markerEnd + 1;
  return col;
}

/** Columns of leading whitespace (a tab to the next multiple of 4). */
function leadOf(line: string): number {
  let col = 0;
  for (const ch of line) {
    if (ch === ' ') col++;
    else if (ch === '\t') col += 4 - (col % 4);
    else break;
  }
  return col;
}

/**
 * The line with `width` columns of leading whitespace removed (fewer if it
 * has fewer). Tabs in that whitespace are read as CommonMark reads them (to
 * the next multiple of 4) and written back as spaces, so an issue's text
 * keeps the columns its lines had wherever it is written again.
 */
function stripColumns(line: string, width: number): string {
  const lead = /^[ \t]*/.exec(line)![0];
  return ' '.repeat(Math.max(0, leadOf(lead) - width)) + line.slice(lead.length);
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

