/**
 * Positions inside a workflow file: offset → 1-based line:col, and JSON
 * pointer → the offset of a value (or of its property key) in the JSON tree
 * of jsonc-parser or the YAML document of the `yaml` package. A pointer that
 * does not exist resolves to its nearest existing ancestor, so a finding
 * about a missing property lands on the object that lacks it.
 */
import type { Node as JsonNode } from 'jsonc-parser';
import { isAlias, isCollection, isMap, isPair, isScalar, isSeq, type Document, type Node as YamlNode } from 'yaml';
import { isIndex } from './path.js';

export { LineIndex, offsetToPosition, type Position } from './offsets.js';

/** RFC 6901: `/nodes/3/a~1b` → ['nodes', '3', 'a/b']. A missing leading `/` is tolerated. */
export function pointerSegments(pointer: string): string[] {
  let p = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (p === '' || p === '/') return p === '/' ? [''] : [];
  if (!p.startsWith('/')) p = '/' + p;
  const raw = p.slice(1).split('/');
  for (let i = 0; i < raw.length; i++) {
    const s = raw[i];
    if (s.includes('~')) raw[i] = s.replace(/~1/g, '/').replace(/~0/g, '~');
  }
  return raw;
}

/** Offset of the value at `segments` in a jsonc-parser tree (or of its key with `key`). */
export function locateInJsonTree(root: JsonNode, segments: readonly string[], key: boolean): number {
  let node = root;
  let keyNode: JsonNode | undefined;
  for (const seg of segments) {
    const children = node.children ?? [];
    let next: JsonNode | undefined;
    let nextKey: JsonNode | undefined;
    if (node.type === 'object') {
      for (const prop of children) {
        const k = prop.children?.[0];
        if (k && k.value === seg) {
          nextKey = k;
          next = prop.children?.[1] ?? k;
          break;
        }
      }
    } else if (node.type === 'array' && isIndex(seg)) {
      next = children[Number(seg)];
    }
    if (!next) break;
    node = next;
    keyNode = nextKey;
  }
  return key && keyNode ? keyNode.offset : node.offset;
}

/** Offset of the value at `segments` in a YAML document (or of its key with `key`). */
export function locateInYaml(doc: Document, segments: readonly string[], key: boolean): number {
  return walkYaml(doc, segments, key, false).offset;
}

/**
 * As locateInYaml, but a path that runs on through an alias (`inputSchema:
 * *s`, then into its keys) is followed into the anchored text, the only
 * place those keys are written; `alias` is where the alias that reuses it
 * stands (the finding's own place), to be named beside the position.
 */
export function locateInYamlThroughAliases(doc: Document, segments: readonly string[], key: boolean): { offset: number; aliases?: number[] } {
  return walkYaml(doc, segments, key, true);
}

function walkYaml(doc: Document, segments: readonly string[], key: boolean, throughAliases: boolean): { offset: number; aliases?: number[] } {
  let node: unknown = doc.contents;
  if (!node) return { offset: 0 };
  let keyNode: YamlNode | undefined;
  // Every alias the path goes through, outermost first: a place reached through two names both.
  const aliases: number[] = [];
  for (const seg of segments) {
    if (isAlias(node)) {
      // Without following, inside an alias (`- *x`) every position would be the anchor's, which
      // belongs to another place in the document: the alias itself is the most specific place.
      const target = throughAliases ? node.resolve(doc) : undefined;
      if (!target) break;
      if (node.range) aliases.push(node.range[0]);
      node = target;
    }
    const container = node;
    let next: unknown;
    let nextKey: YamlNode | undefined;
    if (isMap(container)) {
      for (const pair of container.items) {
        const k = pair.key;
        if (isScalar(k) && String(k.value) === seg) {
          nextKey = k;
          next = pair.value ?? k;
          break;
        }
      }
    } else if (isSeq(container) && isIndex(seg)) {
      const item = container.items[Number(seg)];
      next = isPair(item) ? item.key : item;
    }
    if (!next) break;
    node = next;
    keyNode = nextKey;
  }
  const start = rangeStart(node);
  const at = (offset: number) => (aliases.length > 0 ? { offset, aliases } : { offset });
  // A key without a value (`name:`) has an empty null scalar after the colon; the key is the better place.
  if (keyNode && (key || start === undefined || isEmptyScalar(node))) return at(rangeStart(keyNode) ?? 0);
  return at(start ?? 0);
}

function rangeStart(node: unknown): number | undefined {
  if (isScalar(node) || isCollection(node) || isAlias(node)) return node.range?.[0];
  return undefined;
}

function isEmptyScalar(node: unknown): boolean {
  return isScalar(node) && node.value === null && !!node.range && node.range[0] === node.range[1];
}
