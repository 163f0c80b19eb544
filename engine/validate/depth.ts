/**
 * A bound on nesting, checked before anything recursive (ajv, the checks,
 * condition evaluation) sees the document: a condition nested a thousand
 * levels deep must be a finding, not a stack overflow.
 */
import { deeperThan } from '../format/depth.js';
import type { Finding } from '../nodes/node-type.js';

export const MAX_NESTING = 128;

export function nestingFindings(data: unknown): Finding[] {
  const pointer = deeperThan(data, MAX_NESTING);
  if (pointer === undefined) return [];
  return [{
    code: 'E_SCHEMA',
    message: `the document nests deeper than ${MAX_NESTING} levels here; flatten it (combine conditions in one "and"/"or" list instead of nesting them)`,
    pointer,
    severity: 'error',
  }];
}
