/**
 * A line indented out of step with its neighbours. The yaml parser reports
 * it as a compact-mapping or implicit-key error at the value on the line
 * before (or at the start of a stray list item), which would send a user to
 * quote a value that holds no ": ". Said instead of the line at fault, with
 * the column it belongs at.
 */
export interface Misindented {
  offset: number;
  message: string;
  fix: string;
}

/** For BLOCK_AS_IMPLICIT_KEY / MULTILINE_IMPLICIT_KEY at `pos`; undefined when the fault is something else (a value holding ": "). */
export function misindentedLine(text: string, pos: number, raw: string): Misindented | undefined {
  const lines = splitLines(text);
  const at = lines.findIndex((l) => pos >= l.start && pos <= l.start + l.text.length);
  if (at < 0) return undefined;
  const line = lines[at];
  // A "-" item the parser met where a key belongs: reported as a block sequence used as a key, or (after a flow value) as a key spanning lines.
  if (/block sequence/i.test(raw) || (isItem(line.text) && pos === line.start + indentOf(line.text))) return strayItem(lines, at);
  // "a: b: c" — the value itself holds ": ": quoting is the fix, not indentation.
  const rest = line.text.slice(pos - line.start);
  if (/:(\s|$)/.test(rest)) return undefined;
  const next = lines.slice(at + 1).find((l) => !isBlankOrComment(l.text));
  if (!next || indentOf(next.text) <= indentOf(line.text)) return undefined;
  const keyCol = keyColumn(line.text) + 1;
  const col = indentOf(next.text) + 1;
  return {
    offset: next.start + indentOf(next.text),
    message: `this line is indented deeper (column ${col}) than the key on line ${at + 1} (column ${keyCol}), which already has its value on that line, so YAML reads this line as a continuation of that value`,
    fix: `indent it to column ${keyCol}, as the key on line ${at + 1}; if it belongs inside that key, put the key's value on the lines below it instead`,
  };
}

/**
 * A key written without its ":" (`completionCondition done`, `nodes`) with
 * more lines after it: the parser reads the lines as one key spanning them
 * ("implicit keys need to be on a single line"). The line holds no ": "
 * (a ":" inside a word, as in a URL or a time, is text), so it cannot be a
 * key with a value: the missing ":" is the fault.
 */
export function keyWithoutColon(text: string, pos: number): Misindented | undefined {
  const lines = splitLines(text);
  const line = lines.find((l) => pos >= l.start && pos <= l.start + l.text.length);
  if (!line) return undefined;
  const content = line.text.slice(pos - line.start);
  // A ":" that ends a word (`a: b: c`) makes the line a key with a value; one inside a word (http://x, 10:30) is text.
  if (content.trim() === '' || /:(\s|$)/.test(content) || /^\s*[-#'"[{&*!|>%]/.test(content)) return undefined;
  return { offset: pos, message: 'a key without its ":" (a mapping key is written key: value)', fix: 'add ": " after the key, or quote the line if it is text' };
}

/**
 * A "- " item indented unlike the items of the list it continues. Which
 * list it meant is a guess: the nearest item deeper than it (it fell short
 * of that list) and the nearest shallower one (it overshot that list) are
 * both named when both exist.
 */
function strayItem(lines: Line[], at: number): Misindented | undefined {
  const line = lines[at];
  if (!/^\s*-(\s|$)/.test(line.text)) return undefined;
  const indent = indentOf(line.text);
  const items = lines.slice(0, at).map((l, i) => ({ l, i })).reverse().filter(({ l }) => /^\s*-(\s|$)/.test(l.text));
  const deeper = items.find(({ l }) => indentOf(l.text) > indent);
  const shallower = items.find(({ l }) => indentOf(l.text) < indent);
  // At the column of a mapping's keys, with no list there for it to overshoot: the mapping wants a "key:", not an item.
  const mapping = openMappings(blockLinesAbove(lines, at)).find((m) => m.col === indent);
  if (mapping && !shallower) return itemWhereKeyBelongs(line, indent, mapping, deeper);
  // The nearer candidate first: the list the item most likely continues.
  const candidates = [deeper, shallower].filter((c) => c !== undefined).sort((a, b) => b!.i - a!.i) as Array<{ l: Line; i: number }>;
  const named = candidates.map(({ l, i }) => `column ${indentOf(l.text) + 1}, as the item on line ${i + 1}`);
  return {
    offset: line.start + indent,
    message: `this list item is indented unlike the lines before it (its "-" is at column ${indent + 1}), so YAML cannot read it as an item of the list above`,
    fix: `indent its "-" to the column of the other items of its list${named.length === 0 ? '' : named.length === 1 ? ` (${named[0]})` : ` (${named.join(', or ')}, whichever list it belongs to)`}`,
  };
}

/** A "- " item at the column of a mapping's keys: a mapping holds `key: value` lines, never items. */
function itemWhereKeyBelongs(line: Line, indent: number, mapping: OpenMapping, list: { l: Line; i: number } | undefined): Misindented {
  const where = mapping.col === 0 ? 'the top-level mapping' : `the mapping holding the key on line ${mapping.i + 1}`;
  const join = list === undefined ? '' : `; if it belongs to the list above, indent its "-" to column ${indentOf(list.l.text) + 1}, as the item on line ${list.i + 1}`;
  return {
    offset: line.start + indent,
    message: `a "-" list item where ${where} expects a key (column ${indent + 1} holds that mapping's "key: value" lines, and a mapping cannot also hold list items)`,
    fix: `remove it, or indent it under a key to make it that key's list (key:, then "  - item" on the lines below)${join}`,
  };
}

/**
 * A key indented less than the keys of the mapping it continues, where that
 * mapping is a list item's: the parser reads it as a list item without its
 * "-" ("sequence item without - indicator") and reports the line's start.
 */
export function shallowKey(text: string, pos: number): Misindented | undefined {
  const lines = splitLines(text);
  const at = lines.findIndex((l) => pos >= l.start && pos <= l.start + l.text.length);
  if (at < 0 || isBlankOrComment(lines[at].text) || /^\s*-(\s|$)/.test(lines[at].text)) return undefined;
  const line = lines[at];
  const indent = indentOf(line.text);
  // The mapping it fell short of: the outermost open mapping still deeper than it (never a "- value" item's text, which holds no key).
  const mapping = openMappings(blockLinesAbove(lines, at)).filter((m) => m.col > indent).pop();
  if (!mapping) return undefined;
  const col = indent + 1;
  const keyCol = mapping.col + 1;
  return {
    offset: line.start + indent,
    message: `this key is indented less (column ${col}) than the key on line ${mapping.i + 1} (column ${keyCol}) of the mapping it continues, so YAML cannot tell where it belongs`,
    fix: `indent it to column ${keyCol}, as the key on line ${mapping.i + 1}; a new list item starts with "- " instead`,
  };
}

/**
 * The lines before `at` that hold block structure: not blank or a comment,
 * and not a continuation line of a flow collection ({a: 1,\n b: 2}) or of a
 * block scalar (|, >), whose indentation and "key: " text say nothing about
 * which block mapping a later key can join.
 */
function blockLinesAbove(lines: Line[], at: number): Array<{ l: Line; i: number }> {
  const out: Array<{ l: Line; i: number }> = [];
  let flowDepth = 0;
  let scalarIndent = -1;
  for (let i = 0; i < at; i++) {
    const text = lines[i].text;
    if (isBlankOrComment(text)) continue;
    if (scalarIndent >= 0 && indentOf(text) > scalarIndent) continue;
    scalarIndent = -1;
    const inFlow = flowDepth > 0;
    flowDepth = flowDepthAfter(text, flowDepth);
    if (inFlow) continue;
    out.push({ l: lines[i], i });
    if (flowDepth === 0 && /(?:^|[:\s-])[|>][-+0-9]*\s*(#.*)?$/.test(text)) scalarIndent = indentOf(text);
  }
  return out;
}

/** The flow-collection nesting after `text`, starting at `depth`: brackets that open a value count, quoted text and comments do not. */
function flowDepthAfter(text: string, depth: number): number {
  let quote = '';
  let prev = '';
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '#' && (k === 0 || /\s/.test(text[k - 1]))) {
      break;
    } else if ((c === '"' || c === "'") && (prev === '' || /[:,[{\-]/.test(prev))) {
      quote = c;
    } else if ((c === '{' || c === '[') && (depth > 0 || prev === '' || /[:\-]/.test(prev))) {
      depth++;
    } else if ((c === '}' || c === ']') && depth > 0) {
      depth--;
    }
    if (!/\s/.test(c)) prev = c;
  }
  return depth;
}

interface Line {
  start: number;
  text: string;
}

function splitLines(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (const piece of text.split('\n')) {
    out.push({ start, text: piece.replace(/\r$/, '') });
    start += piece.length + 1;
  }
  return out;
}

function indentOf(line: string): number {
  return /^ */.exec(line)![0].length;
}

/** The column where a line's key starts: past its indentation and any "- " item markers. */
function keyColumn(line: string): number {
  return /^ *(?:- +)*/.exec(line)![0].length;
}

function isBlankOrComment(line: string): boolean {
  return /^\s*(#.*)?$/.test(line);
}

/**
 * Where a BAD_INDENT ("all mapping items must start at the same column")
 * really is: the parser reports the start of the stretch before the
 * out-of-line key (a blank or comment line, or the key's indentation).
 * The first content character from there on is the key at fault.
 */
export function contentFrom(text: string, pos: number): number {
  const lines = splitLines(text);
  for (const l of lines) {
    if (l.start + l.text.length < pos || isBlankOrComment(l.text)) continue;
    const from = Math.max(pos, l.start);
    const lead = /^ */.exec(l.text.slice(from - l.start))![0].length;
    return from + lead;
  }
  return pos;
}

/**
 * A BAD_INDENT ("all … items must start at the same column") at the line
 * holding `offset` (its first content character): said with the column it
 * belongs at. A "-" item under an item line continues that item's list; a
 * "-" item elsewhere lines up with the parent's first item child. A key
 * lines up with one of the mappings still open at the line above it (that
 * line's and each enclosing one's): YAML closed every mapping deeper than
 * the key, so the nearest shallower mapping is one candidate, and the
 * nearest deeper one (the key fell short of it) the other; both are named
 * when both exist. Undefined when no candidate shows.
 */
export function misalignedLine(text: string, offset: number): Misindented | undefined {
  const lines = splitLines(text);
  const at = lines.findIndex((l) => offset >= l.start && offset <= l.start + l.text.length);
  if (at < 0) return undefined;
  const line = lines[at];
  const indent = indentOf(line.text);
  const above = lines.slice(0, at).map((l, i) => ({ l, i })).filter(({ l }) => !isBlankOrComment(l.text));
  if (!isItem(line.text)) return misalignedKey(line, indent, openMappings(blockLinesAbove(lines, at)));
  const parentAt = [...above].reverse().find(({ l }) => indentOf(l.text) < indent);
  if (!parentAt) return undefined;
  let sibling: { i: number; col: number } | undefined;
  if (isItem(parentAt.l.text)) {
    sibling = { i: parentAt.i, col: indentOf(parentAt.l.text) };
  } else {
    const children = above.filter(({ i }) => i > parentAt.i);
    if (children.length === 0) return undefined;
    const col = indentOf(children[0].l.text);
    const same = children.filter(({ l }) => indentOf(l.text) === col && isItem(l.text)).pop();
    if (same) sibling = { i: same.i, col };
  }
  if (!sibling || sibling.col === indent) return undefined;
  return {
    offset: line.start + indent,
    message: `this list item's "-" is at column ${indent + 1}, out of line with the other items of its list (column ${sibling.col + 1})`,
    fix: `indent its "-" to column ${sibling.col + 1}, as the item on line ${sibling.i + 1}, with spaces`,
  };
}

function isItem(text: string): boolean {
  return /^\s*-(\s|$)/.test(text);
}

/** A mapping open at some line: the column of its keys, and the nearest line holding one of them. */
interface OpenMapping {
  col: number;
  i: number;
}

/**
 * The block mappings still open after the last of `above`, innermost
 * first: that line's own, then the one of each line it is nested under
 * (a "- key: v" item line holds its item's mapping, at the key's column).
 */
function openMappings(above: Array<{ l: Line; i: number }>): OpenMapping[] {
  const open: OpenMapping[] = [];
  let cur: { l: Line; i: number } | undefined = above[above.length - 1];
  while (cur) {
    const col = keyColumn(cur.l.text);
    const holdsKey = /:(\s|$)/.test(cur.l.text.slice(col)) && !/^[#|>]/.test(cur.l.text.slice(col));
    if (holdsKey && !open.some((m) => m.col <= col)) open.push({ col, i: cur.i });
    const indent = indentOf(cur.l.text);
    cur = [...above].reverse().find(({ l, i }) => i < cur!.i && indentOf(l.text) < indent);
  }
  return open;
}

function misalignedKey(line: Line, indent: number, open: OpenMapping[]): Misindented | undefined {
  if (open.some((m) => m.col === indent)) return undefined;
  // Innermost first: the deeper mapping the key fell short of, then the enclosing one YAML reads it against.
  const deeper = open.filter((m) => m.col > indent).pop();
  const shallower = open.find((m) => m.col < indent);
  const candidates = [deeper, shallower].filter((m): m is OpenMapping => m !== undefined);
  if (candidates.length === 0) return undefined;
  const named = candidates.map((m) => `column ${m.col + 1}, as the key on line ${m.i + 1}`);
  const columns = candidates.map((m) => `column ${m.col + 1}`);
  return {
    offset: line.start + indent,
    message: candidates.length === 1
      ? `this key is at column ${indent + 1}, out of line with the other keys of its mapping (${columns[0]}), so YAML cannot tell where it belongs`
      : `this key is at column ${indent + 1}, between the keys of the mapping above it (${columns[0]}) and those of the mapping around that one (${columns[1]}), so YAML cannot tell which of them it belongs to`,
    fix: candidates.length === 1 ? `indent it to ${named[0]}, with spaces` : `indent it to ${named.join(', or to ')}, whichever mapping it belongs to, with spaces`,
  };
}
