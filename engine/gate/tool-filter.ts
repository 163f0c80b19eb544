/**
 * The runtime tool filter (B13–B16, §4.7): which tools of a catalog a
 * persona may call. It is enforced by the engine, never by the prompt:
 * whatever the persona body asks for, a tool outside this list is refused.
 */
import type { Persona } from './persona.js';
import { matchesToolPattern } from '../tools/glob.js';

export type ToolClass = 'read' | 'write' | 'destructive';

/** The least the filter needs to know about a tool. */
export interface CatalogTool {
  name: string;
  class: ToolClass;
}

/** The persona fields the filter reads. */
export type ToolPolicy = Pick<Persona, 'tools' | 'disallowed_tools' | 'permission_mode'>;

export { matchesToolPattern };

/**
 * Why the persona may not call `tool`, or null when it may. The deny list
 * is named first (its exact entry before a pattern): it is the reason a
 * reader most needs to see.
 */
export function toolDenial(persona: ToolPolicy, tool: CatalogTool): string | null {
  const deny = persona.disallowed_tools.includes(tool.name) ? tool.name : persona.disallowed_tools.find((pattern) => matchesToolPattern(pattern, tool.name));
  if (deny !== undefined) {
    return deny === tool.name ? `"${tool.name}" is in the persona's disallowed_tools` : `"${tool.name}" is denied by the persona's disallowed_tools entry "${deny}"`;
  }
  if (persona.permission_mode === 'read-only' && tool.class !== 'read') {
    return `"${tool.name}" is a ${tool.class} tool and the persona is read-only`;
  }
  if (!persona.tools.some((pattern) => matchesToolPattern(pattern, tool.name))) return `"${tool.name}" is not in the persona's tools`;
  return null;
}

/**
 * The tools of `catalog` the persona may call, in catalog order: those
 * `tools` allows, minus those `disallowed_tools` denies, and for a
 * read-only persona only class `read`. A name the persona lists that is
 * not in the catalog is no tool at all.
 */
export function effectiveTools<T extends CatalogTool>(persona: ToolPolicy, catalog: readonly T[]): T[] {
  return catalog.filter((tool) => toolDenial(persona, tool) === null);
}
