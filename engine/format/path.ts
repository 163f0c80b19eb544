/**
 * Variable paths as written in templates, expressions and condition
 * `contextPath`s: `name`, `node-id.field`, `a.b[0]`, `a.b.0`, `items[idx]`,
 * `items[a.b]`. A bracket holding digits is an index; a bracket holding a
 * path is an index ref, resolved through the same resolver at read time.
 * Indices are 0-based and non-negative: `[-1]`, `[+1]` and `[1.5]` are refused.
 */
import { CountersignError } from '../errors.js';

export type Segment = string | number | { ref: Segment[] };

const NAME_CHARS = buildNameChars();

function buildNameChars(): Uint8Array {
  const table = new Uint8Array(128);
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$-';
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}

export function isNameChar(code: number): boolean {
  return code < 128 && NAME_CHARS[code] === 1;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Paths are parsed once per distinct text; the cap keeps a long-lived process from growing without bound. */
const CACHE_LIMIT = 10_000;
const cache = new Map<string, Segment[]>();

/**
 * Parses a variable path. Results are cached and frozen: callers share them
 * and must not mutate them. Throws E_TEMPLATE_SYNTAX on a malformed path.
 */
export function parsePath(text: string): Segment[] {
  const hit = cache.get(text);
  if (hit) return hit;
  const parser = new PathParser(text);
  const segments = parser.parseWhole();
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, segments);
  return segments;
}

/** The first segment of a path: the global, builtin or node id it starts from. */
export function pathRoot(text: string): string {
  return parsePath(text)[0] as string;
}

/** Renders segments back to the written form (`a.b[0]`, `items[idx]`). */
export function formatPath(segments: readonly Segment[]): string {
  let out = '';
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string') out += i === 0 ? seg : `.${seg}`;
    else out += `[${formatPath(seg.ref)}]`;
  }
  return out;
}

class PathParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parseWhole(): Segment[] {
    if (this.text.length === 0) this.fail('the path is empty', 'write a variable name such as {{name}} or {{node-id.field}}');
    const segments = this.parsePath();
    if (this.pos < this.text.length) this.unexpected();
    return segments;
  }

  /** A root name followed by `.name`, `.0`, `[0]` or `[path]` segments. */
  private parsePath(): Segment[] {
    const segments: Segment[] = [this.parseRoot()];
    const text = this.text;
    while (this.pos < text.length) {
      const c = text.charCodeAt(this.pos);
      if (c === 46 /* . */) {
        this.pos++;
        segments.push(this.parseDotSegment());
      } else if (c === 91 /* [ */) {
        this.pos++;
        segments.push(this.parseBracket());
      } else {
        break;
      }
    }
    return Object.freeze(segments) as Segment[];
  }

  private parseRoot(): string {
    const text = this.text;
    const start = this.pos;
    // `@index` is the loop index inside {{#each}}; the renderer gives it meaning.
    if (text.charCodeAt(start) === 64 /* @ */) this.pos++;
    const nameStart = this.pos;
    this.readName();
    if (this.pos === nameStart) this.unexpected('a variable name');
    // Node ids and names may start with a digit ("2nd-review"); digits alone are a number or an index, never a name.
    if (/^[0-9]+$/.test(text.slice(nameStart, this.pos))) {
      this.pos = nameStart;
      this.fail('a variable name cannot be digits alone', 'start the name with a letter or "_"; digits alone are only valid as an index such as a.0 or a[0]');
    }
    return text.slice(start, this.pos);
  }

  private parseDotSegment(): string | number {
    const text = this.text;
    const start = this.pos;
    this.readName();
    if (this.pos === start) this.unexpected('a name or an index after "."');
    const word = text.slice(start, this.pos);
    // `a.-1` reads like a negative index, never a key a workflow means: refused as `[-1]` is.
    if (/^-[0-9]+$/.test(word)) {
      this.pos = start;
      this.badIndex(`index "${word}" is negative`);
    }
    return isIndex(word) ? Number(word) : word;
  }

  private parseBracket(): Segment {
    const text = this.text;
    const start = this.pos;
    let segment: Segment;
    // `[-1]`, `[+1]`, `[1.5]`: a number that is no index. "-1" is a legal variable name, so without
    // this `[-1]` would silently read the variable "-1" as the index.
    const number = /^[-+]?[0-9]+(?:\.[0-9]*)?(?=\])/.exec(text.slice(start));
    if (number && !/^[0-9]+$/.test(number[0])) {
      const word = number[0];
      this.badIndex(`index "${word}" ${word.startsWith('-') ? 'is negative' : word.startsWith('+') ? 'is not a plain number' : 'is not a whole number'}`);
    }
    if (isDigit(text.charCodeAt(start))) {
      while (isDigit(text.charCodeAt(this.pos))) this.pos++;
      const word = text.slice(start, this.pos);
      if (!isIndex(word)) {
        this.pos = start;
        if (word.charCodeAt(0) === 48) this.fail(`index "${word}" has a leading zero`, 'write the index without leading zeros, e.g. [0] or [12]');
        this.fail(`index "${word}" is too large (the largest is ${Number.MAX_SAFE_INTEGER})`, `write an index no larger than ${Number.MAX_SAFE_INTEGER} (no list is that long; [0] is the first item), or read the item through a variable index such as items[idx]`);
      }
      segment = Number(word);
    } else {
      segment = { ref: this.parsePath() };
    }
    if (text.charCodeAt(this.pos) !== 93 /* ] */) this.unexpected('"]"');
    this.pos++;
    return segment;
  }

  private readName(): void {
    const text = this.text;
    while (this.pos < text.length && isNameChar(text.charCodeAt(this.pos))) this.pos++;
  }

  private unexpected(expected?: string): never {
    // The whole character (an emoji is two UTF-16 units), control characters escaped: never half of one.
    const found = this.pos < this.text.length ? JSON.stringify(String.fromCodePoint(this.text.codePointAt(this.pos)!)) : 'the end of the path';
    const what = expected ? `expected ${expected} but found ${found}` : `unexpected ${found}`;
    this.fail(what, 'paths look like name, node-id.field, a.b[0], a.b.0 or items[idx]; names use letters, digits, "_", "$" and "-"');
  }

  private badIndex(what: string): never {
    this.fail(what, 'indices are 0-based whole numbers counted from the start of the list: [0] is the first item, [1] the second; there are no negative indices (read the last item by its index, or give it its own variable)');
  }

  /** The offset inside the path goes in `data.offset`; callers embedding the path add their own. */
  private fail(what: string, fix: string): never {
    throw new CountersignError('E_TEMPLATE_SYNTAX', `malformed variable path "${this.text}": ${what}`, {
      fix,
      data: { offset: this.pos },
    });
  }
}

/** Canonical array index: `0` or digits without a leading zero. */
export function isIndex(word: string): boolean {
  const n = word.length;
  if (n === 0 || n > 16) return false;
  if (n > 1 && word.charCodeAt(0) === 48) return false;
  for (let i = 0; i < n; i++) if (!isDigit(word.charCodeAt(i))) return false;
  // Every index a number holds exactly (up to 2^53 - 1); past it two indices would read as one.
  return n < 16 || Number(word) <= Number.MAX_SAFE_INTEGER;
}

/**
 * Each top-level `[…]` of a path, in order: what it holds (nested brackets
 * included) and the offset where that starts. The index refs a template
 * reads and the places validation points at are both found this way.
 */
export function bracketContents(path: string): Array<{ inner: string; at: number }> {
  const found: Array<{ inner: string; at: number }> = [];
  for (let i = 0; i < path.length; i++) {
    if (path[i] !== '[') continue;
    let depth = 1;
    let j = i + 1;
    for (; j < path.length && depth > 0; j++) {
      if (path[j] === '[') depth++;
      else if (path[j] === ']') depth--;
    }
    found.push({ inner: path.slice(i + 1, j - 1), at: i + 1 });
    i = j - 1;
  }
  return found;
}
