/**
 * A workflow's own tools: `toolModules: ["./my-tools.mjs"]`, resolved
 * against the workflow file. Loading a module runs its code, so it happens
 * only when the host allows it (`--allow-tool-modules`,
 * `createEngine({ allowToolModules: true })`); otherwise a workflow that
 * names modules is refused with E_TOOL_MODULE_BLOCKED rather than run
 * without its tools. A module exports `tools` (or a default export): an
 * array of tools made with `defineTool`, or of plain tool specs.
 *
 * The list returned is marked with each tool's module, so when
 * `createToolCatalog` finds a name taken (a built-in, a host tool, another
 * module's tool) it names the module file and its `/toolModules/<i>`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CountersignError, isCountersignError } from '../errors.js';
import { shellWord } from '../format/shell-word.js';
import { markModuleTools, type ModuleToolOrigin } from './catalog.js';
import { importModule } from './module-import.js';
import { asModuleActivity, type ModuleActivity } from './module-activity.js';
import { asTool, type Tool } from './tool.js';

/** The path a `toolModules` entry names: resolved against the workflow file's folder (a bare name too). */
export function toolModulePath(entry: string, workflowFile: string | undefined): string {
  return resolve(workflowFile ? dirname(workflowFile) : process.cwd(), entry);
}

/**
 * Why a relative entry cannot be loaded for a workflow given as an object:
 * with no file it would resolve against whichever process's cwd continues
 * the run, and run a different module there.
 */
export function relativeWithoutFile(entry: string): string {
  return `tool module "${entry}" is a relative path, and the workflow came from no file to resolve it against: give an absolute path, or start the workflow from its file`;
}

/**
 * Loads `modules` (a workflow's toolModules, entries resolved against
 * `file`'s folder) when `allow`; else E_TOOL_MODULE_BLOCKED. `runId`: the
 * list is that run's stored copy of its workflow, which it keeps whatever
 * becomes of the file since (see blocked() and storedRunFault()).
 */
export async function loadToolModules(modules: readonly string[] | undefined, file: string | undefined, allow: boolean, runId?: string): Promise<Tool[]> {
  if (!modules || modules.length === 0) return [];
  if (!allow) throw blocked(modules, file, runId);
  const tools: Tool[] = [];
  const origins: ModuleToolOrigin[] = [];
  for (const [i, name] of modules.entries()) {
    try {
      const path = toolModulePath(name, file);
      for (const entry of await moduleTools(name, i, file)) {
        tools.push(entry);
        // A stored run's entry is in its stored copy, not in the file: a name clash names no file either.
        origins.push({ file: path, pointer: `/toolModules/${i}`, ...(file && runId === undefined ? { workflow: file } : {}) });
      }
    } catch (e) {
      throw runId !== undefined && isCountersignError(e) ? storedRunFault(e, runId, file, { name, index: i }) : e;
    }
  }
  return markModuleTools(tools, origins);
}

/** Faults of the entry's path itself (nothing there, or nothing Node loads): for a stored run the entry cannot be changed, so the fix is to put the module back. */
const PATH_FAULTS = new WeakSet<CountersignError>();

/** The tools of toolModules entry `i` (`name`), or E_TOOL_MODULE / E_TOOL_DEFINITION placed at that entry. */
async function moduleTools(name: string, i: number, file: string | undefined): Promise<Tool[]> {
  // Where the fault is: the workflow's own entry (its file and pointer); the
  // module, and a line:col inside it, are named in the message.
  const entryAt = { ...(file ? { file } : {}), pointer: `/toolModules/${i}` };
  if (file === undefined && !isAbsolute(name)) {
    throw new CountersignError('E_TOOL_MODULE', relativeWithoutFile(name), { pointer: `/toolModules/${i}`, fix: 'use an absolute module path, or pass the workflow file (not its object) to start/run' });
  }
  const path = toolModulePath(name, file);
  let mod: Record<string, unknown>;
  const activity: ModuleActivity = { module: path, ...(file ? { workflow: file } : {}), pointer: `/toolModules/${i}`, phase: 'load' };
  try {
    mod = await asModuleActivity(activity, () => importModule(pathToFileURL(path).href));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // Node's import() names no position for a syntax error; `node --check`
    // does, for the module itself. One it imports, or a SyntaxError thrown
    // while it runs (JSON.parse), is said as such, never pinned on it.
    const at = e instanceof SyntaxError ? syntaxErrorAt(path, message) : undefined;
    if (at !== undefined) {
      throw new CountersignError('E_TOOL_MODULE', `tool module ${at.place} has a syntax error: ${message}`, {
        ...entryAt,
        fix: `correct the module's syntax at that line${at.column ? ' and column' : ''} (node --check <module> shows it)`,
      });
    }
    if (e instanceof SyntaxError) {
      throw new CountersignError('E_TOOL_MODULE', `tool module ${path} could not be loaded: SyntaxError: ${message} (the module itself parses, so this comes from a module it imports, or was thrown while it ran)`, {
        ...entryAt,
        fix: `run \`node ${shellWord(path)}\` to see which file and line fail`,
      });
    }
    if (!existsSync(path)) {
      throw pathFault(new CountersignError('E_TOOL_MODULE', `tool module ${path} does not exist`, {
        ...entryAt,
        fix: 'check the path: a relative one is read from the workflow file\'s folder',
      }));
    }
    // Not a module Node loads (a folder, JSON, TypeScript under plain node): it never ran.
    if (notLoadable(e, path)) {
      throw pathFault(new CountersignError('E_TOOL_MODULE', `tool module ${path} is not a JavaScript module Node can load: ${message}`, {
        ...entryAt,
        fix: 'name a .mjs or .js file that exports a tools array',
      }));
    }
    // Found, so its own code (or a module it imports) threw while it ran: a path check would not help.
    throw new CountersignError('E_TOOL_MODULE', `tool module ${path} threw while it was loaded (its own code or a module it imports): ${message}`, {
      ...entryAt,
      fix: `run \`node ${shellWord(path)}\` to see where it fails`,
    });
  }
  const exported = mod.tools ?? mod.default;
  if (!Array.isArray(exported)) {
    throw new CountersignError('E_TOOL_MODULE', `tool module ${path} exports no tools array`, {
      ...entryAt,
      fix: 'export const tools = [defineTool({...}), …] (or a default export of that array)',
    });
  }
  return exported.map((entry) => watched(moduleTool(entry, path, entryAt), activity));
}

/** The tool, its calls and argument checks said to be its module's code running (module-activity.ts). */
function watched(tool: Tool, at: ModuleActivity): Tool {
  const call: ModuleActivity = { ...at, phase: 'run', tool: tool.name };
  const check: ModuleActivity = { ...at, phase: 'args', tool: tool.name };
  // Named field by field: a module's own Tool-like object may hold them on its prototype.
  return Object.freeze({
    name: tool.name,
    class: tool.class,
    ...(tool.blastRadius !== undefined ? { blastRadius: tool.blastRadius } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    run: (args: unknown, ctx?: Parameters<Tool['run']>[1]) => asModuleActivity(call, () => tool.run(args, ctx)),
    checkArgs: (args: unknown) => asModuleActivity(check, () => tool.checkArgs(args)),
    argProblems: (args: unknown) => asModuleActivity(check, () => tool.argProblems(args)),
  });
}

function pathFault(e: CountersignError): CountersignError {
  PATH_FAULTS.add(e);
  return e;
}

/**
 * `e`, a fault of a module an existing run's stored workflow names, said
 * as that: the run reads its stored copy, never the file (which may name
 * other modules by now, and validate), so the error carries neither the
 * file nor a pointer into it, and the message says where the entry really
 * is. A fault of the entry's path gets a fix that works for this run:
 * put the module back, or start a new run. `entry`: the toolModules entry
 * at fault, when known (a clash found by the catalog names its module itself).
 */
export function storedRunFault(e: CountersignError, runId: string, file: string | undefined, entry?: { name: string; index: number }): CountersignError {
  const copy = `run ${runId}'s stored workflow${file ? ` (started from ${file})` : ''}`;
  const where = entry ? `${copy} names tool module ${JSON.stringify(entry.name)} (its /toolModules/${entry.index})` : copy;
  const kept = `the run keeps the workflow it started with, so editing ${file ?? 'the workflow'} does not change the modules it loads`;
  const path = entry && toolModulePath(entry.name, file);
  const fix = PATH_FAULTS.has(e) && path
    ? `restore ${shellWord(path)} (${existsSync(path) ? 'a .mjs or .js module that exports a tools array' : 'the module as it was when the run started'}): ${kept}; or start a new run from ${file ? `${file} as it reads now` : 'the workflow as it reads now'}`
    : e.fix;
  return new CountersignError(e.code, `${where}: ${e.message}`, {
    ...(fix ? { fix } : {}),
    ...(e.nodeId ? { nodeId: e.nodeId } : {}),
    ...(e.data !== undefined ? { data: e.data } : {}),
    cause: e,
  });
}

/**
 * The refusal to load `modules`. A new workflow names them in its file:
 * the error is placed there, and taking them out of it is a way on. An
 * existing run reads only the copy stored when it started, so the file
 * (which may have changed since) is neither named as holding them nor
 * worth editing: the ways on are the flag, or a new run.
 */
function blocked(modules: readonly string[], file: string | undefined, runId: string | undefined): CountersignError {
  const named = `names tool modules (${modules.join(', ')}), and loading them runs their code`;
  const allow = 'if you trust these modules, pass --allow-tool-modules (library: createEngine({ allowToolModules: true }))';
  if (runId !== undefined) {
    // No file, so no pointer: the copy it would point into is the run's, not one the user can open.
    return new CountersignError('E_TOOL_MODULE_BLOCKED', `run ${runId}'s stored workflow${file ? ` (started from ${file})` : ''} ${named}`, {
      fix: `${allow}; the run keeps the workflow it started with, so editing ${file ?? 'the workflow'} does not change it: to go on without these modules, start a new run from a workflow without toolModules`,
    });
  }
  return new CountersignError('E_TOOL_MODULE_BLOCKED', `${file ?? 'the workflow'} ${named}`, {
    ...(file ? { file } : {}),
    pointer: '/toolModules',
    fix: `${allow}; otherwise remove toolModules`,
  });
}

/** Node refused the file itself as a module (a folder, a .json or .ts file), before any of its code ran. */
function notLoadable(e: unknown, path: string): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ERR_UNSUPPORTED_DIR_IMPORT' || statSync(path, { throwIfNoEntry: false })?.isDirectory()) return true;
  const refused = code === 'ERR_UNKNOWN_FILE_EXTENSION' || code === 'ERR_IMPORT_ASSERTION_TYPE_MISSING' || code === 'ERR_IMPORT_ATTRIBUTE_MISSING';
  // The module's own file, not one it imports (whose message names that other file).
  return refused && (e as Error).message.includes(path);
}

function moduleTool(entry: unknown, path: string, at: { file?: string; pointer: string }): Tool {
  try {
    return asTool(entry);
  } catch (e) {
    if (!isCountersignError(e)) throw e;
    throw new CountersignError(e.code, `tool module ${path}: ${e.message}`, { ...at, ...(e.fix ? { fix: e.fix } : {}) });
  }
}

/**
 * `path:line:col` of a module's syntax error, as `node --check` reports it
 * (the source line, then a caret under the column), or undefined when it
 * says no position (a TypeScript module it cannot check, say). At the end
 * of the input node draws no caret: the place is where the file ends.
 * `column`: whether the place has one (the fix names only what it gives).
 */
function syntaxErrorAt(path: string, message: string): { place: string; column: boolean } | undefined {
  const checked = spawnSync(process.execPath, ['--check', path], { encoding: 'utf8', timeout: 10_000 });
  const lines = (checked.stderr ?? '').split('\n');
  const at = lines.findIndex((l) => l.startsWith(`${path}:`));
  const line = at >= 0 ? /:(\d+)$/.exec(lines[at])?.[1] : undefined;
  if (line === undefined) return undefined;
  const caret = lines[at + 2]?.indexOf('^') ?? -1;
  if (caret >= 0) return { place: `${path}:${line}:${caret + 1}`, column: true };
  const end = message === 'Unexpected end of input' ? endOf(path) : undefined;
  return end ? { place: `${path}:${end}`, column: true } : { place: `${path}:${line}`, column: false };
}

/** `line:col` just past a file's last character (undefined when it cannot be read). */
function endOf(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split(/\r\n|[\r\n\u2028\u2029]/);
  return `${lines.length}:${[...lines[lines.length - 1]].length + 1}`;
}
