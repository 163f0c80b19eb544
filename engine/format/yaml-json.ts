/**
 * A YAML workflow must mean exactly what some JSON file could mean. YAML
 * can say more: `.nan`/`.inf`, binary and timestamp tags, big integers,
 * mappings used as keys. Those are refused at their position instead of
 * turning silently into null, Buffers, Dates or stringified keys.
 */
import { isAlias, isMap, isScalar, isSeq, visit, type Document } from 'yaml';

export interface NonJson {
  offset: number;
  message: string;
  fix: string;
}

const FIX = 'workflows are JSON data: use a string, a finite number, true/false, null, a list or a mapping with plain keys (quote the value to keep it as text)';

/** `text`: the document's source, to place a tagged collection's fault at its tag. */
export function firstNonJson(doc: Document, text = ''): NonJson | undefined {
  let found: NonJson | undefined;
  visit(doc, {
    Map(_key, map) {
      // !!set: a mapping that becomes a Set, which JSON would store as {}.
      if (map.tag && map.tag !== 'tag:yaml.org,2002:map') {
        found = tagged(map.tag, tagOffset(text, map.range?.[0] ?? 0));
        return visit.BREAK;
      }
      // Keys the parser holds apart by type (true and "true", 1 and "1") are
      // one JSON key: the later would silently replace the earlier.
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key) || pair.key.value === null) continue;
        const name = String(pair.key.value);
        if (seen.has(name)) {
          found = { offset: pair.key.range?.[0] ?? 0, message: `duplicate key "${name}" (written another way earlier in this mapping, e.g. true and "true"): as JSON the later one would replace the earlier`, fix: `remove or rename one of the two "${name}" keys` };
          return visit.BREAK;
        }
        seen.add(name);
      }
      return undefined;
    },
    Pair(_key, pair) {
      // An alias as a key: to a mapping or list it is a collection key JSON cannot express, and to a name it reads as its text ("*shape").
      if (isAlias(pair.key)) {
        found = { offset: pair.key.range?.[0] ?? 0, message: `the mapping key ${pair.key.source ? `*${pair.key.source}` : 'here'} is an alias, which a JSON key cannot be (it would read as its own text, or as a collection)`, fix: 'write the key out as a plain name' };
        return visit.BREAK;
      }
      // YAML 1.1's merge key: YAML 1.2 (and JSON) read it as a key named "<<", never as the fields it points at.
      if (isScalar(pair.key) && pair.key.value === '<<' && pair.key.type === 'PLAIN') {
        found = { offset: pair.key.range?.[0] ?? 0, message: 'a YAML merge key (<<) is not read as a merge: the fields it points at would be a mapping under the key "<<"', fix: 'write the fields out in this mapping (an &anchor and *alias for a whole value still work)' };
        return visit.BREAK;
      }
      if (isMap(pair.key) || isSeq(pair.key)) {
        found = { offset: (pair.key as { range?: [number] }).range?.[0] ?? 0, message: 'a mapping key is a list or mapping, which JSON cannot express', fix: FIX };
        return visit.BREAK;
      }
      // `null:`, `~:` or a bare `:` is YAML's null as a key, which would
      // become the key "" with no name of its own: refused where it is written.
      if (pair.key === null || (isScalar(pair.key) && pair.key.value === null)) {
        const source = isScalar(pair.key) && typeof pair.key.source === 'string' && pair.key.source !== '' ? pair.key.source : '(nothing)';
        const offset = isScalar(pair.key) ? pair.key.range?.[0] ?? 0 : (pair.value as { range?: [number] } | null)?.range?.[0] ?? 0;
        found = { offset, message: `the mapping key ${source} is YAML's null, not a name, which a JSON key cannot be`, fix: 'quote the key ("null") if it is a name, or remove it' };
        return visit.BREAK;
      }
      return undefined;
    },
    // !!omap: a list that becomes a Map, which JSON would store as {}; !!pairs: a list whose tag would be lost.
    Seq(_key, node) {
      if (node.tag && node.tag !== 'tag:yaml.org,2002:seq') {
        found = tagged(node.tag, tagOffset(text, node.range?.[0] ?? 0));
        return visit.BREAK;
      }
      return undefined;
    },
    Scalar(_key, node) {
      if (!isScalar(node)) return undefined;
      const value = node.value;
      const source = typeof node.source === 'string' ? node.source : String(value);
      // !!merge: YAML 1.1's merge marker, which has no data of its own.
      if (typeof value === 'symbol') {
        found = { offset: node.range?.[0] ?? 0, message: `${source} is tagged !!merge, YAML 1.1's merge marker, which YAML 1.2 and JSON do not have`, fix: 'remove the !!merge tag and write the fields out in this mapping (an &anchor and *alias for a whole value still work)' };
        return visit.BREAK;
      }
      let reason: string | undefined;
      if (typeof value === 'number' && !Number.isFinite(value)) reason = 'not a finite number';
      // An integer written past 2^53 - 1 is read rounded: said, never stored changed.
      else if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value) && /^[-+]?[0-9][0-9_]*$/.test(source.trim()) && BigInt(source.trim().replace(/_/g, '').replace(/^\+/, '')) !== BigInt(value)) reason = `an integer beyond the integers JSON keeps exactly (±9007199254740991): it would be read as ${value}`;
      else if (typeof value === 'bigint') reason = "an integer beyond JSON's safe range";
      else if (value instanceof Date) reason = 'a timestamp';
      else if (value instanceof Uint8Array) reason = 'binary data';
      else if (value !== null && typeof value === 'object') reason = `tagged ${node.tag ?? 'data'}`;
      if (reason) {
        const shown = source.length > 30 ? `${source.slice(0, 27)}...` : source;
        found = { offset: node.range?.[0] ?? 0, message: `the YAML value ${shown} is ${reason}, which JSON cannot express`, fix: FIX };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** A collection with a tag that makes it something other than a JSON object or list. */
function tagged(tag: string, offset: number): NonJson {
  const name = tag.replace(/^tag:yaml\.org,2002:/, '!!');
  // !!pairs reads as a plain list of one-key mappings, as the same list
  // without the tag does: nothing of it is lost but what the tag says
  // (ordered pairs, a key allowed twice), which JSON has no type for.
  if (name === '!!pairs') {
    return { offset, message: 'the YAML list tagged !!pairs would be read as a plain list of one-key mappings ([a: 1] as [{"a": 1}]), as it reads without the tag: JSON has no type for ordered pairs, so the tag would be lost', fix: 'remove the tag to keep the list of one-key mappings, or write one mapping (a: 1) if each key is named once' };
  }
  return { offset, message: `the YAML collection tagged ${name} is not a plain mapping or list, which JSON cannot express (it would be read as a ${name === '!!set' ? 'Set' : 'Map'})`, fix: 'remove the tag: write a plain list (- a) or mapping (a: 1)' };
}

/**
 * Where the tag of the collection starting at `offset` is written: the
 * nearest `!…` before it, past anchors (`!!pairs &x [a: 1]`), white space,
 * line breaks and comments (`!!set # a set`, then the items on the lines
 * below); `offset` itself when the text shows none there.
 */
function tagOffset(text: string, offset: number): number {
  let end = offset;
  for (;;) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const tokens = [...withoutComment(text.slice(start, end)).matchAll(/\S+/g)];
    for (let i = tokens.length - 1; i >= 0; i--) {
      if (tokens[i][0].startsWith('!')) return start + tokens[i].index!;
      // Anything but an anchor between the tag and the collection: the tag is not in the text before it.
      if (!tokens[i][0].startsWith('&')) return offset;
    }
    // A blank line, a comment, or anchors only: the tag is on a line above.
    if (start === 0) return offset;
    end = start - 1;
  }
}

/**
 * A line up to its comment: a `#` at its start or after white space, and
 * outside a quoted scalar (`"a #b": !!set # c` keeps `"a #b": !!set`). A
 * quote opens a scalar only where a token starts (`it's` is plain text).
 */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    const tokenStart = i === 0 || /[\s[{,]/.test(line[i - 1]);
    if (quote) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = undefined;
    } else if ((ch === '"' || ch === "'") && tokenStart) quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i);
  }
  return line;
}
