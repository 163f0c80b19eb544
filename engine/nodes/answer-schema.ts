/**
 * Answer schemas: the effective inputSchema of a waiting node and its
 * compiled ajv validator. Compilation dominates the cost of a step
 * (1–4 ms against ~0.3 µs to validate), so validators are compiled once
 * per schema content and shared by every node, run and validation pass.
 */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { JsonObject, JsonValue, Workflow } from '../format/model.js';
import { ajvModules } from '../format/ajv.js';
import { deepFreeze } from '../format/freeze.js';
import { loadValidator, saveValidator, validatorCacheKey, type ValidatorCache } from './validator-cache.js';
import { SHAPE_MAPS, SHAPE_SINGLES } from './schema-walk.js';
import { refsRebased } from './schema-refs.js';

/** Answers larger than this (serialised JSON) are rejected: they would bloat every snapshot. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** Schemas this module built and froze: the only ones answerValidator caches by identity. */
const frozenHere = new WeakSet<JsonObject>();

/** Freezes a schema built here (a constant, an effective schema) and lets answerValidator cache it by identity. */
export function ownSchema<T extends JsonObject>(schema: T): T {
  deepFreeze(schema);
  frozenHere.add(schema);
  return schema;
}

/** A node without an inputSchema accepts only `{}` or `null`. */
const EMPTY_ANSWER_SCHEMA: JsonObject = ownSchema({ type: ['object', 'null'], maxProperties: 0 });

type Purpose = 'check' | 'run';

// `check`: default strictness (unknown keywords are compile errors).
// `run`: runs start only from validated workflows whose schemas `check`
// already compiled, so the meta-schema check is skipped; it costs a CLI
// step ~50 ms of compiling draft-07's meta-schema. `source` keeps the
// generated code, which the validator cache stores.
// ownProperties: a property named like an Object.prototype member
// (`constructor`) is read only from the answer itself. verbose: an error
// carries its keyword's schema, so a `not` or `contains` line can say what
// the value must (not) be (keyword-wording.ts).
function ajvOptions(purpose: Purpose): { allErrors: true; ownProperties: true; verbose: true; logger: false; validateSchema?: false } {
  return { allErrors: true, ownProperties: true, verbose: true, logger: false, ...(purpose === 'run' ? { validateSchema: false as const } : {}) };
}

/** ajv-formats' options: every format, each checked in full. */
const FORMATS = { mode: 'full' } as const;

/**
 * How `run` validators are compiled, as text: part of the validator cache's
 * key, so a validator compiled under other options is never loaded.
 */
export const RUN_COMPILER = JSON.stringify({ options: ajvOptions('run'), formats: FORMATS });

function newAjv(purpose: Purpose, source = false): Ajv {
  const { Ajv, addFormats } = ajvModules();
  const ajv = new Ajv({ ...ajvOptions(purpose), ...(source ? { code: { source: true } } : {}) });
  addFormats(ajv, FORMATS);
  return ajv;
}

interface Compiled {
  fn: ValidateFunction;
  schema: JsonObject;
  /** The instance that compiled it; none when it was loaded from the validator cache. */
  ajv?: Ajv;
}

interface Compiler {
  /** Created on first compile: a process that only loads cached validators never builds one. */
  ajv?: Ajv;
  byKey: Map<string, Compiled>;
  bySchema: WeakMap<JsonObject, ValidateFunction>;
}
const compilers: Record<Purpose, Compiler> = {
  check: { byKey: new Map(), bySchema: new WeakMap() },
  run: { byKey: new Map(), bySchema: new WeakMap() },
};
/** Distinct schemas kept compiled per purpose; a long-lived host must not grow without bound. */
const MAX_COMPILED = 512;
let compiledCount = 0;
let cache: ValidatorCache | undefined;

/** How many schemas have been compiled in this process (compilation is the expensive part of a first answer). */
export function compilations(): number {
  return compiledCount;
}

/**
 * Keeps answer validators compiled across processes (the CLI's per-user
 * cache: one `countersign step` then loads the validator instead of
 * loading ajv and compiling). `undefined` turns it off. Returns the
 * setting it replaces, so a caller can put it back.
 */
export function useValidatorCache(next: ValidatorCache | undefined): ValidatorCache | undefined {
  const previous = cache;
  if (next === cache) return previous;
  cache = next;
  // Instances built for the other setting would not (or would needlessly) keep sources.
  compilers.run = { byKey: new Map(), bySchema: new WeakMap() };
  return previous;
}
/** Effective schemas of the input schemas of engine-owned workflows, per workflow. */
const effectiveCache = new WeakMap<JsonObject, { workflow: Workflow; schema: JsonObject }>();
/** Workflow copies the engine owns, deep-frozen by ownWorkflow. */
const owned = new WeakSet<Workflow>();

/**
 * Takes ownership of a workflow copy (the one a run keeps for its whole
 * life): deep-frozen, so nothing can change it under a run, and what is
 * derived from it (effective answer schemas) is cached by identity.
 */
export function ownWorkflow(workflow: Workflow): void {
  deepFreeze(workflow);
  owned.add(workflow);
}

/**
 * The schema an answer must satisfy: `globalInputs` removed, registry
 * entries for the global inputs inlined into `properties`, and Moira's rule
 * that every object schema with `properties` gets `additionalProperties:
 * false` unless it says otherwise.
 *
 * Only the schemas of engine-owned workflows (ownWorkflow) are cached: a
 * caller's object may change after it was read, so it is read afresh each
 * time, into a copy it shares nothing with (the result is frozen, and the
 * caller's object must not be).
 */
export function effectiveSchema(inputSchema: JsonObject | undefined, workflow: Workflow): JsonObject {
  if (inputSchema === undefined) return EMPTY_ANSWER_SCHEMA;
  const ours = owned.has(workflow);
  if (ours) {
    const hit = effectiveCache.get(inputSchema);
    if (hit && hit.workflow === workflow) return hit.schema;
  }
  const { globalInputs, ...rest } = inputSchema;
  let schema = closeObjects(rest) as JsonObject;
  // An answer is an object of fields (Moira's real flows omit the type).
  if (schema.type === undefined) schema.type = 'object';
  if (Array.isArray(globalInputs) && globalInputs.length > 0) {
    const properties = { ...((schema.properties as JsonObject | undefined) ?? {}) };
    const registry = workflow.variableRegistry ?? {};
    // A name listed twice is inlined once: a second pass would wrap the first
    // copy in allOf and leave its rebased $refs pointing at nothing
    // (validation reports the repeat itself, at its index).
    for (const name of new Set(globalInputs)) {
      if (typeof name !== 'string' || !Object.hasOwn(registry, name)) continue;
      const decl = closeObjects(registry[name]) as JsonObject;
      // The global's declared schema always applies; a node's own property for it narrows it further.
      // Either way the entry's own $refs keep pointing into it (schema-refs.ts).
      const at = `/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      properties[name] = Object.hasOwn(properties, name) ? { allOf: [refsRebased(decl, `${at}/allOf/0`), properties[name]] } : refsRebased(decl, at);
    }
    schema.properties = properties;
    if (schema.additionalProperties === undefined) schema.additionalProperties = false;
  }
  if (!ours) schema = structuredClone(schema);
  // Shared by every run of the workflow and handed to hosts in pending items: read-only.
  deepFreeze(schema);
  frozenHere.add(schema);
  if (ours) effectiveCache.set(inputSchema, { workflow, schema });
  return schema;
}

const entryCache = new WeakMap<Workflow, Map<string, JsonObject>>();

/**
 * The schema a value of registry variable `name` must fit — a start
 * input's, a seed value's, an expression's result: the entry as answers
 * see it when they write the global (Moira's additionalProperties rule
 * included), so a value the start accepts an answer accepts too. Each
 * entry is its own root, never inlined beside the others: its `$ref`s and
 * `$id`s mean what they mean in the entry alone, and two entries may each
 * use the same `$id`. Undefined when `name` has no entry.
 */
function registryEntrySchema(workflow: Workflow, name: string): JsonObject | undefined {
  const registry = workflow.variableRegistry;
  if (!registry || !Object.hasOwn(registry, name)) return undefined;
  const decl = registry[name] as JsonValue;
  // Validation requires an object (a schema of its own); anything else has nothing to check against.
  if (decl === null || typeof decl !== 'object' || Array.isArray(decl)) return undefined;
  const ours = owned.has(workflow);
  let byName = ours ? entryCache.get(workflow) : undefined;
  const hit = byName?.get(name);
  if (hit) return hit;
  // A copy: a caller's entry shares nothing with the frozen schema.
  const schema = ownSchema(structuredClone(closeObjects(decl)) as JsonObject);
  if (ours) {
    if (!byName) entryCache.set(workflow, (byName = new Map()));
    byName.set(name, schema);
  }
  return schema;
}

/**
 * Why `value` does not fit registry variable `name` (ajv's errors, their
 * instancePath relative to the value); empty when it fits or `name` has no
 * entry. `check` compiles as validation does (throws ajv's error when the
 * entry does not compile); `run` trusts a validated workflow.
 */
export function registryMisfits(workflow: Workflow, name: string, value: JsonValue, purpose: Purpose = 'run'): ErrorObject[] {
  const schema = registryEntrySchema(workflow, name);
  if (!schema) return [];
  const validate = answerValidator(schema, purpose);
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

function closeObjects(schema: JsonValue): JsonValue {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: JsonObject = { ...schema };
  for (const k of SHAPE_MAPS) {
    const map = out[k];
    if (map && typeof map === 'object' && !Array.isArray(map)) {
      out[k] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, closeObjects(sub)]));
    }
  }
  for (const k of SHAPE_SINGLES) {
    if (out[k] !== undefined) out[k] = Array.isArray(out[k]) ? (out[k] as JsonValue[]).map(closeObjects) : closeObjects(out[k]);
  }
  if (out.properties && typeof out.properties === 'object' && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

// Only subschemas that describe the answer's own shape are closed (SHAPE_*).
// Applicators (if/then/else, not, allOf/anyOf/oneOf) are left open: closing
// a branch would make `{"if": {"properties": …}}` fail for any extra field.

/**
 * The compiled validator for a schema; throws ajv's error when it does not
 * compile. `check` (validation) also checks the schema against its
 * meta-schema; `run` (answers) trusts the validated workflow.
 */
export function answerValidator(schema: JsonObject, purpose: Purpose = 'run'): ValidateFunction {
  const c = compilers[purpose];
  // By identity only for schemas this module froze (effective schemas, its
  // own constants): a caller's object (a registry entry being validated)
  // may change after it was read, so it is looked up by its text.
  const ours = frozenHere.has(schema);
  let fn = ours ? c.bySchema.get(schema) : undefined;
  if (fn) return fn;
  // Identical schemas in other nodes, runs or validation passes share one compilation.
  const key = JSON.stringify(schema);
  const hit = c.byKey.get(key);
  if (hit) fn = hit.fn;
  else {
    // A schema with an `$id` is never cached, nor compiled keeping its
    // source: ajv writes the `$id` unescaped into a comment of that source,
    // so an `$id` holding `*/` would end the comment and run as code.
    const hasId = key.includes('"$id"');
    const cacheKey = purpose === 'run' && cache && !hasId ? validatorCacheKey(key, RUN_COMPILER) : undefined;
    const stored = cacheKey ? loadValidator(cache!, cacheKey) : undefined;
    let ajv: Ajv | undefined;
    if (stored) fn = neverOverflowing(stored);
    else {
      // ajv registers a schema's `$id` instance-wide, so two workflows that
      // reuse an `$id` for different schemas would clash: such schemas get
      // an instance of their own.
      ajv = hasId ? newAjv(purpose) : (c.ajv ??= newAjv(purpose, purpose === 'run' && cache !== undefined));
      // ajv keeps what it compiles: a caller's object is compiled as a copy, so none is held or read later.
      if (!ours) schema = JSON.parse(key) as JsonObject;
      let compiled: ValidateFunction | undefined;
      try {
        compiled = ajv.compile(schema);
      } catch (e) {
        // A loop ajv overflows on while compiling (`{"x": {"$ref": "#/properties/x"}}`): in a stored run, every answer is refused with why, never a crashed step.
        if (!(e instanceof RangeError) || purpose !== 'run') throw e;
        try {
          ajv.removeSchema(schema);
        } catch {
          // nothing of it was kept
        }
      }
      if (compiled) {
        compiledCount++;
        if (cacheKey) saveValidator(cache!, cacheKey, () => ajvModules().standaloneCode(ajv!, compiled!));
        fn = neverOverflowing(compiled);
      } else {
        fn = neverOverflowing(Object.assign((() => {
          throw new RangeError('Maximum call stack size exceeded');
        }) as unknown as ValidateFunction, { schema }));
      }
    }
    if (c.byKey.size >= MAX_COMPILED) {
      const [oldestKey, oldest] = c.byKey.entries().next().value as [string, Compiled];
      c.byKey.delete(oldestKey);
      oldest.ajv?.removeSchema(oldest.schema); // ajv's own cache holds every schema it compiled
    }
    c.byKey.set(key, { fn, schema, ...(ajv ? { ajv } : {}) });
  }
  if (ours) c.bySchema.set(schema, fn);
  return fn;
}

/**
 * A schema whose `$ref`s loop on the same value overflows the stack on every
 * answer. Validation refuses such schemas (schema-cycles.ts); should one
 * still reach a run (a run stored before that check), the answer is
 * rejected with the reason instead of crashing the step. (Thrown from here
 * it would surface through xstate's guard as an unexplained error.)
 */
function neverOverflowing(fn: ValidateFunction): ValidateFunction {
  const safe = ((data: unknown) => {
    try {
      const ok = fn(data);
      safe.errors = fn.errors;
      return ok;
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      safe.errors = [{ instancePath: '', schemaPath: '#', keyword: '$ref', params: {}, message: 'cannot be checked: this run\'s inputSchema has a "$ref" that leads back to where it starts while checking the same value, so checking recurses forever and no answer can pass (the run was stored before validation refused such schemas); `countersign validate` on the workflow reports the "$ref": fix it and start a new run' }];
      return false;
    }
  }) as ValidateFunction;
  return Object.assign(safe, { schema: fn.schema, schemaEnv: fn.schemaEnv });
}
