/**
 * The tools a run can use, by name: the built-ins (always there, as the
 * CLI promises) plus whatever a library host registers with
 * `createEngine({ tools })`. Names are unique: a second tool with a taken
 * name is refused rather than silently shadowing the first.
 */
import { CountersignError } from '../errors.js';
import type { Tool } from './tool.js';

export type ToolCatalog = ReadonlyMap<string, Tool>;

export function createToolCatalog(...lists: ReadonlyArray<readonly Tool[]>): ToolCatalog {
  const catalog = new Map<string, Tool>();
  for (const tool of lists.flat()) {
    if (catalog.has(tool.name)) {
      throw new CountersignError('E_TOOL_DEFINITION', `two tools are named "${tool.name}"`, {
        fix: 'give every registered tool its own name (the built-ins are post_review, post_docs_review and pr_status)',
      });
    }
    catalog.set(tool.name, tool);
  }
  return catalog;
}
