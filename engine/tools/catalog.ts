/**
 * The tools a run can use, by name: the built-ins (always there, as the
 * CLI promises), whatever a library host registers with
 * `createEngine({ tools })`, and a workflow's loaded tool modules. Names are
 * unique: a second tool with a taken name is refused rather than silently
 * shadowing the first, and the refusal says where both came from, so the
 * user knows which file (or which `tools[i]`) to fix.
 *
 * A host may register plain tool specs ({name, class, inputSchema, run}) as
 * a module may: they go through `defineTool` here, so a malformed one is
 * refused at once (E_TOOL_DEFINITION, naming `tools[i]`) instead of failing
 * at its first call.
 */
import { CountersignError, isCountersignError } from '../errors.js';
import { BUILTIN_TOOLS } from './builtin/index.js';
import { asTool, isTool, type Tool, type ToolSpec } from './tool.js';
import type { ValidateOptions } from '../validate/index.js';
import { checkOptionKeys, keysOf } from '../run/option-keys.js';
import { said, shown } from '../format/said.js';

export type ToolCatalog = ReadonlyMap<string, Tool>;

/** Where one tool of a loaded tool module came from: the module file and its `/toolModules/<i>`. */
export interface ModuleToolOrigin {
  /** The module file. */
  file: string;
  /** The workflow's `/toolModules/<i>` entry naming it. */
  pointer: string;
  /** The workflow file the pointer is in (absent for a workflow given as an object). */
  workflow?: string;
}

/** Lists returned by loadToolModules, with the origin of each entry (same order). */
const moduleLists = new WeakMap<readonly unknown[], readonly ModuleToolOrigin[]>();

/** Marks `tools` as loaded from tool modules, so a name clash names the module. Returns `tools`. */
export function markModuleTools<T extends readonly Tool[]>(tools: T, origins: readonly ModuleToolOrigin[]): T {
  moduleLists.set(tools, origins);
  return tools;
}

type Origin =
  | { kind: 'builtin' }
  | { kind: 'host'; index: number }
  | { kind: 'module'; file: string; pointer: string; workflow?: string };

// Plain specs are defined once per object, so every catalog built from the same host list holds the same tools —
// as long as the object still says the same: a host that edits it (a class, a schema) gets the tool it now describes.
const defined = new WeakMap<object, { tool: Tool; snapshot: SpecSnapshot }>();

/** A spec's fields as they were when it was defined: functions by identity, other values as JSON. */
type SpecSnapshot = ReadonlyMap<string, unknown>;

function snapshotOf(entry: object): SpecSnapshot | undefined {
  try {
    return new Map(Object.entries(entry).map(([key, value]) => [key, typeof value === 'function' ? value : JSON.stringify(value)]));
  } catch {
    return undefined; // a value JSON cannot write (a cycle): never reused, defined afresh each time
  }
}

function sameSnapshot(a: SpecSnapshot, b: SpecSnapshot): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (!b.has(key) || b.get(key) !== value) return false;
  return true;
}

/**
 * One catalog from lists of tools. A list that starts with the built-ins
 * (as createEngine passes `[...BUILTIN_TOOLS, ...tools]`) counts the host's
 * entries after them, so `tools[i]` in a message is the host's own index.
 */
export function createToolCatalog(...lists: ReadonlyArray<readonly (Tool | ToolSpec)[]>): ToolCatalog {
  const catalog = new Map<string, Tool>();
  const origins = new Map<string, Origin>();
  for (const list of lists) {
    const modules = moduleLists.get(list);
    const skip = builtinPrefix(list);
    list.forEach((entry, i) => {
      const origin: Origin = modules?.[i] ? { kind: 'module', ...modules[i] } : i < skip ? { kind: 'builtin' } : { kind: 'host', index: i - skip };
      const tool = toTool(entry, origin);
      const taken = origins.get(tool.name);
      if (taken) throw clash(tool.name, origin, taken);
      catalog.set(tool.name, tool);
      origins.set(tool.name, origin);
    });
  }
  return catalog;
}

function builtinPrefix(list: readonly unknown[]): number {
  let n = 0;
  while (n < BUILTIN_TOOLS.length && list[n] === BUILTIN_TOOLS[n]) n++;
  return n === BUILTIN_TOOLS.length ? n : 0;
}

function toTool(entry: unknown, origin: Origin): Tool {
  if (isTool(entry)) return entry;
  const snapshot = entry !== null && typeof entry === 'object' ? snapshotOf(entry) : undefined;
  const known = snapshot ? defined.get(entry as object) : undefined;
  if (known && sameSnapshot(known.snapshot, snapshot!)) return known.tool;
  try {
    const tool = asTool(entry);
    if (snapshot) defined.set(entry as object, { tool, snapshot });
    return tool;
  } catch (e) {
    if (!isCountersignError(e)) throw e;
    const where = origin.kind === 'host' ? `tools[${origin.index}]` : origin.kind === 'module' ? `tool module ${origin.file} (${origin.pointer})` : 'a built-in tool';
    throw new CountersignError(e.code, `${where} is not a tool: ${e.message}`, {
      ...(origin.kind === 'module' ? { file: origin.file, pointer: origin.pointer } : {}),
      fix: `pass a tool made with defineTool, or a plain spec {name, class, inputSchema, run}${e.fix ? `: ${e.fix}` : ''}`,
    });
  }
}

function clash(name: string, origin: Origin, taken: Origin): CountersignError {
  const builtins = BUILTIN_TOOLS.map((t) => t.name).join(', ');
  const rule = `tool names are unique across the built-ins (${builtins}), the host's tools and every tool module`;
  const takenBy =
    taken.kind === 'builtin' ? 'which is already a built-in tool'
    : taken.kind === 'host' ? `which is already a host tool (tools[${taken.index}] of createEngine)`
    : `which is also defined by tool module ${taken.file} (${taken.pointer})`;
  if (origin.kind === 'module') {
    const module = `tool module ${origin.file} (${origin.pointer})`;
    return new CountersignError('E_TOOL_DEFINITION', sameModule(origin, taken) ? `${module} defines "${name}" twice` : `${module} defines "${name}", ${takenBy}`, {
      ...(origin.workflow ? { file: origin.workflow } : {}),
      pointer: origin.pointer,
      fix: `rename the tool in ${origin.file}: ${rule}`,
    });
  }
  const who = origin.kind === 'host' ? `tools[${origin.index}]` : 'a built-in tool';
  return new CountersignError('E_TOOL_DEFINITION', `${who} is named "${name}", ${takenBy}`, {
    fix: taken.kind === 'builtin'
      ? `rename it, or leave it out if it is the built-in itself (the built-ins are always registered): ${rule}`
      : `rename one of them: ${rule}`,
  });
}

function sameModule(a: Origin, b: Origin): boolean {
  return a.kind === 'module' && b.kind === 'module' && a.pointer === b.pointer && a.file === b.file;
}

/**
 * A host's `tools` as createEngine takes them (a list) and validation too
 * (a list, or a catalog): anything else would be a bare TypeError inside,
 * or (null) read as no tools at all.
 */
export function checkToolList(given: unknown, call: string, catalogs = false): void {
  if (given === undefined || Array.isArray(given) || (catalogs && given instanceof Map)) return;
  const got = given instanceof Map ? 'a Map' : shown(given);
  throw new CountersignError('E_INPUT', `${call}'s tools must be a list of tools${catalogs ? ' (or a catalog of them)' : ''}, got ${got}`, {
    fix: 'pass tools: [defineTool({…}), …] (plain {name, class, inputSchema, run} specs work too), or leave tools out for the built-ins only',
  });
}

/** The keys of ValidateOptions (engine/validate/index.ts), checked against that type by the compiler. */
export const VALIDATE_OPTION_KEYS = keysOf<ValidateOptions>({ tools: true, modulesLoaded: true, lentTools: true, file: true });

/**
 * validateWorkflow's, validateDocument's and validateFile's options: an
 * object of ValidateOptions' keys (a misspelt one is E_INPUT with a
 * did-you-mean), whose `tools`, if given, checkToolList takes.
 */
export function checkValidateOptions(opts: unknown, call: string): void {
  if (opts === undefined) return;
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw new CountersignError('E_INPUT', `${call}() options must be an object, got ${opts === null ? 'null' : Array.isArray(opts) ? 'a list' : said(opts)}`, {
      fix: 'pass { tools: [...] } (the list createEngine takes), or leave the options out',
    });
  }
  checkOptionKeys(opts, VALIDATE_OPTION_KEYS, `${call}()`);
  checkToolList((opts as { tools?: unknown }).tools, `${call}()`, true);
}

/**
 * validateWorkflow's file, its second argument: a string. The options go
 * third; given second (`validateWorkflow(wf, { tools })`) they would be
 * reported as the file, and the host's tools dropped for a false
 * E_TOOL_UNKNOWN.
 */
export function checkValidateFile(file: unknown, call: string): void {
  if (typeof file === 'string') return;
  const options = file !== null && typeof file === 'object' && !Array.isArray(file);
  throw new CountersignError('E_INPUT', `${call}()'s second argument is the file name (a string), got ${file === null ? 'null' : Array.isArray(file) ? 'a list' : options ? 'an object' : said(file)}${options ? ': the options go third' : ''}`, {
    fix: `call ${call}(workflow, "<workflow>", { tools }) — the file name second (or undefined for "<workflow>"), the options third`,
  });
}
