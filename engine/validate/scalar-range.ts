/**
 * Where a string value is written in the source: the [start, end) offsets
 * of its JSON string literal or YAML scalar, so a finding about text inside
 * it is never placed outside it. A YAML value reached through an alias
 * (`criteria: *crit`) is written at its anchor, so the range is the
 * anchored scalar's. The YAML text is parsed again here (once per document,
 * only when a finding points into a string): the source document exposes
 * start positions only.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Document } from 'yaml';
import type { SourceDocument } from '../format/source.js';
import { yamlParserText } from '../format/yaml-source.js';
import { isIndex } from '../format/path.js';
import { pointerSegments } from './pointer.js';

export interface ScalarRange {
  start: number;
  end: number;
  /** Where the alias that led to the anchored scalar is written, when the path went through one. */
  alias?: number;
}

/** `start` is where the document locates the value (the offset of its opening `"` in JSON). */
export function scalarRange(doc: SourceDocument, pointer: string, start: number): ScalarRange | undefined {
  return doc.format === 'json' ? jsonStringRange(doc.text, start) : yamlScalarRange(doc, pointer);
}

function jsonStringRange(text: string, start: number): ScalarRange | undefined {
  if (text[start] !== '"') return undefined;
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return { start, end: i + 1 };
  }
  return undefined;
}

const parsed = new WeakMap<SourceDocument, Document>();

function yamlScalarRange(doc: SourceDocument, pointer: string): ScalarRange | undefined {
  let yaml = parsed.get(doc);
  if (!yaml) {
    // Parsed as parseYaml parses it: a lone CR read as a line break, every offset unchanged.
    yaml = parseDocument(yamlParserText(doc.text), { uniqueKeys: true, prettyErrors: false });
    parsed.set(doc, yaml);
  }
  let node: unknown = yaml.contents;
  let alias: number | undefined;
  // Bounded like the alias expansion toJS() already accepted for this document.
  const follow = (n: unknown): unknown => {
    if (!isAlias(n)) return n;
    alias ??= n.range?.[0];
    return n.resolve(yaml);
  };
  for (const seg of pointerSegments(pointer)) {
    node = follow(node);
    let next: unknown;
    if (isMap(node)) {
      next = node.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === seg)?.value;
    } else if (isSeq(node) && isIndex(seg)) {
      const item = node.items[Number(seg)];
      next = isPair(item) ? item.key : item;
    }
    if (next === undefined || next === null) return undefined;
    node = next;
  }
  node = follow(node);
  if (!isScalar(node) || !node.range) return undefined;
  return { start: node.range[0], end: node.range[1], ...(alias !== undefined ? { alias } : {}) };
}
