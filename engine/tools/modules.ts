/**
 * A workflow's own tools: `toolModules: ["./my-tools.mjs"]`, resolved
 * against the workflow file. Loading a module runs its code, so it happens
 * only when the host allows it (`--allow-tool-modules`,
 * `createEngine({ allowToolModules: true })`); otherwise a workflow that
 * names modules is refused with E_TOOL_MODULE_BLOCKED rather than run
 * without its tools. A module exports `tools` (or a default export): an
 * array of tools made with `defineTool`, or of plain tool specs.
 */
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CountersignError, isCountersignError } from '../errors.js';
import { defineTool, type Tool, type ToolSpec } from './tool.js';

export async function loadToolModules(modules: readonly string[] | undefined, file: string | undefined, allow: boolean): Promise<Tool[]> {
  if (!modules || modules.length === 0) return [];
  const where = file ?? 'the workflow';
  if (!allow) {
    throw new CountersignError('E_TOOL_MODULE_BLOCKED', `${where} names tool modules (${modules.join(', ')}), and loading them runs their code`, {
      ...(file ? { file } : {}),
      pointer: '/toolModules',
      fix: 'if you trust these modules, pass --allow-tool-modules (library: createEngine({ allowToolModules: true })); otherwise remove toolModules',
    });
  }
  const base = file ? dirname(file) : process.cwd();
  const tools: Tool[] = [];
  for (const [i, name] of modules.entries()) {
    const path = resolve(base, name);
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    } catch (e) {
      throw new CountersignError('E_TOOL_MODULE', `tool module ${path} could not be loaded: ${e instanceof Error ? e.message : String(e)}`, {
        file: path,
        pointer: `/toolModules/${i}`,
        fix: 'check the path (relative to the workflow file) and that the module runs with node',
      });
    }
    const exported = mod.tools ?? mod.default;
    if (!Array.isArray(exported)) {
      throw new CountersignError('E_TOOL_MODULE', `tool module ${path} exports no tools array`, {
        file: path,
        pointer: `/toolModules/${i}`,
        fix: 'export const tools = [defineTool({...}), …] (or a default export of that array)',
      });
    }
    for (const entry of exported) tools.push(asTool(entry, path));
  }
  return tools;
}

function asTool(entry: unknown, path: string): Tool {
  const t = entry as Partial<Tool>;
  if (t && typeof t.checkArgs === 'function' && typeof t.run === 'function' && typeof t.name === 'string') return t as Tool;
  try {
    return defineTool(entry as ToolSpec);
  } catch (e) {
    if (!isCountersignError(e)) throw e;
    throw new CountersignError(e.code, `tool module ${path}: ${e.message}`, { file: path, ...(e.fix ? { fix: e.fix } : {}) });
  }
}
