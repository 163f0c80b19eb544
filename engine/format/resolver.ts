/**
 * THE variable resolver. The validator (a static scope: only declarations)
 * and the runtime (a scope over a run's data) both resolve every template
 * variable, contextPath and expression operand here, so a name the
 * validator accepts is exactly a name the runtime can read.
 *
 * Rules (Moira semantics):
 * - a path of two or more segments whose first segment is a node id reads
 *   that node's stored answer (`review.summary`), and never falls back to a
 *   global of the same name;
 * - otherwise the root is a builtin (`executionId`, `workflowId`, `userId`);
 * - otherwise it is a global (registry, initialData, node-type declared).
 * Static scopes check only the root and, for node-local paths, the field:
 * deeper segments (`.length`, `.x.y`) are not checked. Index refs
 * (`items[idx]`) are resolved through this same resolver in both modes.
 */
import { BUILTIN_VARIABLES } from './model.js';
import { isIndex, parsePath, type Segment } from './path.js';
import { nodeAnswer, type RecentAnswers } from './node-answers.js';

export interface Scope {
  readonly static: boolean;
  isNode(id: string): boolean;
  /** undefined: not a builtin. */
  builtin(name: string): { value: unknown } | undefined;
  /** undefined: not declared. Declared but unset at runtime: `{ value: undefined }`. */
  global(name: string): { value: unknown } | undefined;
  /** undefined: not declared (static) or unknown node (runtime). A known node without the field gives `{ value: undefined }` at runtime. */
  nodeField(nodeId: string, field: string): { value: unknown } | undefined;
  /** Names valid as a root, for "did you mean" (optional: scopes without it give no candidates). */
  globalNames?(): Iterable<string>;
  /** Fields valid after `nodeId.`, for "did you mean". */
  fieldNames?(nodeId: string): Iterable<string>;
  /** All node ids, offered as candidates for a dotted path whose root is unknown. */
  nodeIds?(): Iterable<string>;
}

export type Resolution = { found: true; value: unknown } | { found: false; missing: string; candidates: string[] };

const BUILTINS: ReadonlySet<string> = new Set(BUILTIN_VARIABLES);
const UNSET: Resolution = Object.freeze({ found: true, value: undefined }) as Resolution;
/** What a static scope answers for a declared name: it exists, its value is unknown. */
const UNSET_BOX: { value: unknown } = Object.freeze({ value: undefined });

export function resolve(path: string | Segment[], scope: Scope): Resolution {
  const segments = typeof path === 'string' ? parsePath(path) : path;
  const root = segments[0] as string;
  let value: unknown;
  let next: number;

  // `name.field` reads a node's answer; an index (`name[0]`, `name.0`,
  // `name[ref]`) does too, unless `name` is also a global: then it indexes
  // the global (items[0], items[idx] into a list), as `{{items}}` and
  // `{{#each items}}` read it.
  const indexesGlobal = segments.length >= 2 && typeof segments[1] !== 'string' && !BUILTINS.has(root) && scope.global(root) !== undefined;
  if (segments.length >= 2 && scope.isNode(root) && !indexesGlobal) {
    const fieldSeg = segments[1];
    let field: string;
    if (typeof fieldSeg === 'object') {
      const key = resolve(fieldSeg.ref, scope);
      if (!key.found) return key;
      if (scope.static) return walkRefs(segments, 2, scope);
      if (typeof key.value !== 'string' && typeof key.value !== 'number') return UNSET;
      field = String(key.value);
    } else {
      field = String(fieldSeg);
    }
    const hit = scope.nodeField(root, field);
    if (!hit) {
      return {
        found: false,
        missing: `${root}.${field}`,
        candidates: scope.fieldNames ? [...scope.fieldNames(root)] : [],
      };
    }
    value = hit.value;
    next = 2;
  } else {
    const hit = BUILTINS.has(root) ? scope.builtin(root) : undefined;
    const global = hit ?? scope.global(root);
    if (!global) return { found: false, missing: root, candidates: rootCandidates(scope, segments.length >= 2) };
    value = global.value;
    next = 1;
  }

  if (scope.static) return walkRefs(segments, next, scope);
  for (let i = next; i < segments.length; i++) {
    if (value === undefined || value === null) return UNSET;
    const seg = segments[i];
    let key: unknown = seg;
    if (typeof seg === 'object') {
      const ref = resolve(seg.ref, scope);
      if (!ref.found) return ref;
      key = ref.value;
    }
    value = stepInto(value, key);
  }
  return value === undefined ? UNSET : { found: true, value };
}

/** Static mode past the checked segments: only index refs still have to resolve. */
function walkRefs(segments: readonly Segment[], from: number, scope: Scope): Resolution {
  for (let i = from; i < segments.length; i++) {
    const seg = segments[i];
    if (typeof seg === 'object') {
      const ref = resolve(seg.ref, scope);
      if (!ref.found) return ref;
    }
  }
  return UNSET;
}

function rootCandidates(scope: Scope, dotted: boolean): string[] {
  const out = new Set<string>(BUILTIN_VARIABLES);
  if (scope.globalNames) for (const name of scope.globalNames()) out.add(name);
  if (dotted && scope.nodeIds) for (const id of scope.nodeIds()) out.add(id);
  return [...out];
}

/**
 * One step into a runtime value: numeric keys index arrays, `length` works
 * on arrays and strings, objects expose own properties only (so `constructor`
 * or `__proto__` never leak out of a prototype). Anything else is undefined.
 */
export function stepInto(value: unknown, key: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof key !== 'string' && typeof key !== 'number') return undefined;
  if (Array.isArray(value)) {
    if (key === 'length') return value.length;
    const index = typeof key === 'number' ? key : isIndex(key) ? Number(key) : -1;
    return Number.isInteger(index) && index >= 0 && index < value.length ? value[index] : undefined;
  }
  if (typeof value === 'string') return key === 'length' ? value.length : undefined;
  if (typeof value === 'object') {
    const name = String(key);
    return Object.prototype.hasOwnProperty.call(value, name) ? (value as Record<string, unknown>)[name] : undefined;
  }
  return undefined;
}

export interface RuntimeData {
  vars: Record<string, unknown>;
  nodes: Record<string, Record<string, unknown>>;
  /** Answers not yet folded into `nodes` (see node-answers.ts). */
  recent?: RecentAnswers<Record<string, unknown>>;
  meta: { executionId: string; workflowId: string; userId: string };
}

const hasOwn = (obj: object, key: string): boolean => Object.prototype.hasOwnProperty.call(obj, key);

export function runtimeScope(data: RuntimeData, nodeIds: ReadonlySet<string>, declaredGlobals: ReadonlySet<string>): Scope {
  return new RuntimeScope(data, nodeIds, declaredGlobals);
}

/** A class, not an object of closures: one is built per step, so it must be cheap to create. */
class RuntimeScope implements Scope {
  readonly static = false;
  constructor(
    private readonly data: RuntimeData,
    private readonly ids: ReadonlySet<string>,
    private readonly declaredGlobals: ReadonlySet<string>,
  ) {}

  isNode(id: string): boolean {
    return this.ids.has(id);
  }

  builtin(name: string): { value: unknown } | undefined {
    return BUILTINS.has(name) ? { value: this.data.meta[name as keyof RuntimeData['meta']] } : undefined;
  }

  global(name: string): { value: unknown } | undefined {
    const vars = this.data.vars;
    if (hasOwn(vars, name)) return { value: vars[name] };
    return this.declaredGlobals.has(name) ? UNSET_BOX : undefined;
  }

  nodeField(nodeId: string, field: string): { value: unknown } | undefined {
    if (!this.ids.has(nodeId)) return undefined;
    const answer = nodeAnswer(this.data, nodeId);
    return answer && hasOwn(answer, field) ? { value: answer[field] } : UNSET_BOX;
  }

  globalNames(): Iterable<string> {
    return new Set([...this.declaredGlobals, ...Object.keys(this.data.vars)]);
  }

  fieldNames(nodeId: string): Iterable<string> {
    return Object.keys(nodeAnswer(this.data, nodeId) ?? {});
  }

  nodeIds(): Iterable<string> {
    return this.ids;
  }
}

export interface StaticDeclarations {
  globals: ReadonlySet<string>;
  /** Keys are ALL node ids; values the fields each node declares. */
  nodeFields: ReadonlyMap<string, ReadonlySet<string>>;
}

export function staticScope(decl: StaticDeclarations): Scope {
  return {
    static: true,
    isNode: (id) => decl.nodeFields.has(id),
    builtin: (name) => (BUILTINS.has(name) ? UNSET_BOX : undefined),
    global: (name) => (decl.globals.has(name) ? UNSET_BOX : undefined),
    nodeField: (nodeId, field) => (decl.nodeFields.get(nodeId)?.has(field) ? UNSET_BOX : undefined),
    globalNames: () => decl.globals,
    fieldNames: (nodeId) => decl.nodeFields.get(nodeId) ?? [],
    nodeIds: () => decl.nodeFields.keys(),
  };
}

