/**
 * An alias inside the very value its anchor names (`a: &x [*x]`): the value
 * would contain itself, without end. The parser keeps it as a cycle, which
 * every later check would read as an endlessly deep document; said here, at
 * the alias, as what it is.
 */
import { visit, type Document } from 'yaml';
import { CountersignError } from '../errors.js';
import { LineIndex } from './positions.js';

export function selfAliasError(doc: Document, text: string, file: string): CountersignError | undefined {
  let found: { offset: number; name: string } | undefined;
  visit(doc, {
    Alias(_key, node, path) {
      const target = node.resolve(doc);
      if (target === undefined || !path.includes(target as never)) return undefined;
      found = { offset: node.range?.[0] ?? 0, name: node.source };
      return visit.BREAK;
    },
  });
  if (found === undefined) return undefined;
  const at = new LineIndex(text).position(found.offset);
  return new CountersignError('E_PARSE', `the alias *${found.name} is inside the value its anchor &${found.name} names, so that value would contain itself without end`, {
    file, line: at.line, col: at.col,
    fix: `write the value out here instead of *${found.name} (an alias may only repeat a value it is not part of)`,
  });
}
