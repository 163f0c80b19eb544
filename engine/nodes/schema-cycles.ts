/**
 * A `$ref` that leads back to the schema it is in while still checking the
 * same value (`{"x": {"$ref": "#/properties/x"}}`, or through allOf/anyOf/
 * not/if…) never ends: ajv either overflows the stack compiling it, or
 * compiles it and overflows on every answer (an E_INTERNAL mid-run). A
 * recursion through `properties`/`items`/… is fine: each step checks a
 * smaller part of the answer, so it ends.
 *
 * Refs are resolved as ajv does: `#` (and `#/`, `""`, which ajv reads as it), `#/pointer` and `#anchor` against
 * the nearest enclosing URI `$id` (or the root), and a URI (relative ones
 * against that `$id`) naming some part's `$id`. Others are ajv's to tell.
 */
import type { JsonObject, JsonValue } from '../format/model.js';
import type { SchemaProblem } from './schema-errors.js';
import { subschemas } from './schema-walk.js';
import { asAjvReads } from './schema-refs.js';

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
/** Keywords whose subschemas check the very value their parent checks. */
const SAME_VALUE_SINGLES = ['not', 'if', 'then', 'else'];
const SAME_VALUE_LISTS = ['allOf', 'anyOf', 'oneOf'];

interface Part {
  schema: JsonObject;
  /** Pointer of the part holding the nearest URI `$id` (itself included), or '' for the root. */
  base: string;
  /** That `$id`, resolved against the ones around it (as ajv resolves a relative one); undefined when none. */
  uri?: string;
}

/** `ref` resolved against `base` as a URL, without its fragment; `ref` itself when it is no URL. */
function absolute(ref: string, base: string | undefined): string {
  try {
    return new URL(ref, base).href.replace(/#.*$/, '');
  } catch {
    return ref.replace(/#.*$/, '');
  }
}

/** The first `$ref` that closes a loop on the same value, as a problem at that `$ref`. */
export function circularRef(root: JsonObject): SchemaProblem | undefined {
  const parts = new Map<string, Part>();
  const ids = new Map<string, string>();
  collect(root, '', '', undefined, parts, ids);
  const state = new Map<string, 'open' | 'done'>();
  // The path being walked: each part with the `$ref` it was reached through (if any).
  const path: [string, string | undefined][] = [];
  const visit = (at: string, reachedBy: string | undefined): SchemaProblem | undefined => {
    state.set(at, 'open');
    path.push([at, reachedBy]);
    for (const [next, via] of sameValueEdges(at, parts, ids)) {
      if (state.get(next) === 'open') {
        // A loop: told at its first `$ref` (a loop without one would need a schema inside itself).
        const loop = [...path.slice(path.findIndex(([p]) => p === next) + 1).map(([, by]) => by), via];
        const ref = loop.find((by) => by !== undefined);
        if (ref !== undefined) return problemAt(ref, parts);
      }
      if (state.get(next) === undefined) {
        const found = visit(next, via);
        if (found) return found;
      }
    }
    path.pop();
    state.set(at, 'done');
    return undefined;
  };
  // Only what checking an answer reaches: a definition nothing refers to is never compiled (ajv's way), loop or not.
  for (const at of reachable(parts, ids)) {
    if (state.get(at) !== undefined) continue;
    const found = visit(at, undefined);
    if (found) return found;
  }
  return undefined;
}

/** The parts checking an answer reaches from the root: every subschema but `definitions`/`$defs` entries, and what a `$ref` names. */
function reachable(parts: Map<string, Part>, ids: Map<string, string>): string[] {
  const seen = new Set<string>();
  const stack = [''];
  while (stack.length > 0) {
    const at = stack.pop()!;
    const part = parts.get(at);
    if (part === undefined || seen.has(at)) continue;
    seen.add(at);
    for (const [, here] of subschemas(part.schema, at)) {
      if (!here.startsWith(`${at}/definitions/`) && !here.startsWith(`${at}/$defs/`)) stack.push(here);
    }
    if (typeof part.schema.$ref === 'string') {
      const target = resolve(part.schema.$ref, part.base, part.uri, parts, ids);
      if (target !== undefined) stack.push(target);
    }
  }
  return [...seen];
}

function problemAt(refAt: string, parts: Map<string, Part>): SchemaProblem {
  const ref = parts.get(refAt.slice(0, -'/$ref'.length))?.schema.$ref;
  return {
    at: refAt,
    message: `"$ref" ${JSON.stringify(ref)} leads back to the schema it is in while still checking the same value: checking an answer would recurse forever`,
    fix: 'point "$ref" at another schema, or recurse only through "properties", "items" or another keyword that checks a part of the value',
  };
}

function collect(schema: JsonValue, at: string, base: string, baseUri: string | undefined, parts: Map<string, Part>, ids: Map<string, string>): void {
  if (!isObject(schema)) return;
  const id = typeof schema.$id === 'string' ? schema.$id : undefined;
  const named = id !== undefined && !id.startsWith('#');
  const own = named ? at : base;
  const uri = named ? absolute(id, baseUri) : baseUri;
  parts.set(at, { schema, base: own, ...(uri !== undefined ? { uri } : {}) });
  if (id !== undefined) ids.set(named ? `${uri}#` : `${own}${id}`, at);
  for (const [sub, here] of subschemas(schema, at)) collect(sub, here, own, uri, parts, ids);
}

/** The parts checking the same value as the one at `at`, each with the pointer of the `$ref` it is reached through (if any). */
function* sameValueEdges(at: string, parts: Map<string, Part>, ids: Map<string, string>): Generator<[string, string | undefined]> {
  const part = parts.get(at);
  if (!part) return;
  const s = part.schema;
  for (const k of SAME_VALUE_SINGLES) if (isObject(s[k])) yield [`${at}/${k}`, undefined];
  for (const k of SAME_VALUE_LISTS) {
    const list = s[k];
    if (Array.isArray(list)) for (let i = 0; i < list.length; i++) if (isObject(list[i])) yield [`${at}/${k}/${i}`, undefined];
  }
  if (isObject(s.dependencies)) {
    for (const [name, dep] of Object.entries(s.dependencies)) if (isObject(dep)) yield [`${at}/dependencies/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, undefined];
  }
  if (typeof s.$ref === 'string') {
    const target = resolve(s.$ref, part.base, part.uri, parts, ids);
    if (target !== undefined) yield [target, `${at}/$ref`];
  }
}

function resolve(written: string, base: string, baseUri: string | undefined, parts: Map<string, Part>, ids: Map<string, string>): string | undefined {
  // `""` and `"#/"` are the root (of the nearest `$id`), as `"#"` is; `x#/` is `x`.
  const ref = asAjvReads(written.endsWith('#/') ? written.slice(0, -1) : written);
  if (ref.startsWith('#')) {
    const fragment = ref.slice(1);
    if (fragment === '' || fragment.startsWith('/')) {
      let pointer: string;
      try {
        pointer = base + decodeURIComponent(fragment);
      } catch {
        return undefined;
      }
      return parts.has(pointer) ? pointer : undefined;
    }
    return ids.get(`${base}${ref}`);
  }
  // A URI (relative ones against the `$id` around the ref): the part whose `$id` it is, then the pointer inside it.
  const hash = ref.indexOf('#');
  const named = ids.get(`${absolute(ref, baseUri)}#`);
  if (named === undefined) return undefined;
  return resolve(hash < 0 ? '#' : ref.slice(hash), named, parts.get(named)?.uri, parts, ids);
}
