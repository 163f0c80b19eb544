/**
 * The workflow-level tool declarations, `access` and `toolModules`, checked
 * against what validation knows (ADR-019).
 *
 * - An `access` pattern that matches no known tool claims nothing, and a
 *   tool no role claims is open to every role: a misspelt `post_reveiw`
 *   silently opens `post_review` to all (H21, H35, H36). Each such pattern
 *   is E_TOOL_UNKNOWN at `/access/<role>/<i>`, with a did-you-mean. As for
 *   a tool node's `tool`, it is only a warning while the workflow's
 *   toolModules are not loaded (validate never runs them), since the
 *   pattern may name one of their tools.
 * - A `toolModules` path that names no file is E_TOOL_MODULE at
 *   `/toolModules/<i>`, found without importing anything: otherwise the
 *   first sign is a failed start, or E_TOOL_MODULE_BLOCKED asking the user
 *   to trust a module that is not there. Paths resolve as the loader
 *   resolves them (against the workflow file, a bare name too); in a
 *   workflow that came from no file only absolute paths can be loaded.
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { suggest } from '../format/suggest.js';
import type { Finding } from '../nodes/node-type.js';
import { BUILTIN_TOOLS } from '../tools/builtin/index.js';
import { matchesToolPattern } from '../tools/glob.js';
import { relativeWithoutFile, toolModulePath } from '../tools/modules.js';
import { childPointer, isPlainObject } from './pointer.js';

export interface ToolDeclarationOptions {
  /** Whether the workflow's toolModules are among the tools given. */
  modulesLoaded?: boolean;
  /** Names a host lends its agents at run time (engine.run({ tools })): access patterns may name them too. */
  lentTools?: readonly string[];
  /** The workflow file, when the workflow came from one. */
  file?: string;
}

/**
 * `tools`: what validation knows (the host's, and the modules' once loaded).
 * The built-ins count as known even when `tools` leaves them out: every
 * engine registers them, so an access entry naming one always claims it.
 */
export function toolDeclarationFindings(data: Record<string, unknown>, tools: ReadonlyMap<string, unknown>, opts: ToolDeclarationOptions): Finding[] {
  const names = [...BUILTIN_TOOLS.map((t) => t.name), ...tools.keys(), ...(opts.lentTools ?? [])];
  return [...accessFindings(data, names, opts.modulesLoaded === true), ...unusedRoleFindings(data), ...toolModuleFindings(data, opts.file)];
}

/**
 * A role no node takes (a directive's or tool node's `agent`, a review's
 * `reviewer`) is most likely a misspelt one: the role meant is then denied
 * its tools at run time. A warning, since a host may drive roles of its own.
 */
function unusedRoleFindings(data: Record<string, unknown>): Finding[] {
  if (!isPlainObject(data.access) || !Array.isArray(data.nodes)) return [];
  const used = new Set<string>();
  for (const node of data.nodes) {
    if (!isPlainObject(node)) continue;
    for (const key of ['agent', 'reviewer']) if (typeof node[key] === 'string') used.add(node[key] as string);
  }
  return Object.keys(data.access).filter((role) => role !== '' && !used.has(role)).map((role) => {
    const guess = suggest(role, used);
    return {
      code: 'E_ACCESS_ROLE_UNUSED',
      pointer: childPointer('/access', role),
      severity: 'warning' as const,
      key: true,
      message: `no node takes the role "${role}"${guess ? ` — did you mean "${guess}"?` : ''}; its tools are denied to every other role${used.size > 0 ? ` (roles in this workflow: ${[...used].join(', ')})` : ''}`,
    };
  });
}

function accessFindings(data: Record<string, unknown>, names: readonly string[], modulesLoaded: boolean): Finding[] {
  const access = data.access;
  if (!isPlainObject(access)) return [];
  const known = [...new Set(names)];
  // Same rule as a tool node's unknown tool: validate does not load modules, so their tools are unknown to it, not wrong.
  const maybeModule = !modulesLoaded && Array.isArray(data.toolModules) && data.toolModules.length > 0;
  const findings: Finding[] = [];
  for (const [role, patterns] of Object.entries(access)) {
    if (!Array.isArray(patterns)) continue; // a schema error already
    patterns.forEach((pattern: unknown, i: number) => {
      if (typeof pattern !== 'string' || pattern === '') return; // a schema error already
      if (known.some((name) => matchesToolPattern(pattern, name))) return;
      const guess = suggest(pattern, known);
      const mean = guess ? ` — did you mean "${guess}"?` : '';
      findings.push({
        code: 'E_TOOL_UNKNOWN',
        pointer: childPointer(childPointer('/access', role), i),
        severity: maybeModule ? 'warning' : 'error',
        message: maybeModule
          ? `access pattern "${pattern}" of role "${role}" matches no built-in or registered tool${mean}; it may name a tool of the workflow's toolModules, which validate loads only with --allow-tool-modules (as the run does)`
          : `access pattern "${pattern}" of role "${role}" matches no registered tool${mean}; a pattern that matches nothing claims nothing, and a tool no role claims is open to every role; known tools: ${known.join(', ') || 'none'}`,
      });
    });
  }
  return findings;
}

function toolModuleFindings(data: Record<string, unknown>, file: string | undefined): Finding[] {
  const modules = data.toolModules;
  if (!Array.isArray(modules)) return [];
  const findings: Finding[] = [];
  modules.forEach((entry: unknown, i: number) => {
    if (typeof entry !== 'string') return;
    if (file === undefined && !isAbsolute(entry)) {
      findings.push({ code: 'E_TOOL_MODULE', pointer: `/toolModules/${i}`, severity: 'error', message: relativeWithoutFile(entry) });
      return;
    }
    const path = toolModulePath(entry, file);
    const problem = fileProblem(path);
    if (!problem) return;
    findings.push({
      code: 'E_TOOL_MODULE',
      pointer: `/toolModules/${i}`,
      severity: 'error',
      message: `tool module "${entry}" ${problem}: ${path}; toolModules paths are resolved against the workflow file's folder: correct the path or remove the entry`,
    });
  });
  return findings;
}

function fileProblem(path: string): string | undefined {
  try {
    return statSync(path).isDirectory() ? 'is a directory, not a module file' : undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be read (${code ?? (e as Error).message})`;
  }
}
