/**
 * Dataflow: every variable a template or condition reads must resolve, with
 * the same resolver the runtime uses, against the declarations the workflow
 * makes — builtins, registry and initialData names, globals node types
 * declare, and `node-id.field` for fields a node declares. Also warns about
 * finalOutput names that resolve to nothing and registry variables nothing
 * ever writes.
 */
import { errorFinding, withFix } from '../nodes/checks.js';
import { isCountersignError } from '../errors.js';
import { BUILTIN_VARIABLES, NODE_ID_PATTERN } from '../format/model.js';
import { resolve, staticScope, type Scope } from '../format/resolver.js';
import { damerauLevenshtein, suggest } from '../format/suggest.js';
import { templateVariables } from '../format/template.js';
import { parseExpression } from '../format/expression.js';
import type { Finding, VariableRead } from '../nodes/node-type.js';
import type { GraphModel, NodeEntry } from './graph-model.js';
import { childPointer, isPlainObject } from './pointer.js';
import { offsetOfMissing } from './missing-offset.js';

export interface Declarations {
  globals: ReadonlySet<string>;
  nodeFields: ReadonlyMap<string, ReadonlySet<string>>;
  /** Globals something writes: initialData, node-type globals, globalInputs. */
  written: ReadonlySet<string>;
  /**
   * Nodes whose type writes a fixed set of fields (delegate-review,
   * condition, …), by id, with that type: their fields cannot be declared,
   * only read by the right name.
   */
  fixedFields: ReadonlyMap<string, string>;
}

/**
 * What the workflow declares. `declares()` is asked of every node, even one
 * the schema rejected, so that one broken node does not make every reference
 * to it look undeclared; a node whose shape defeats its type's `declares()`
 * declares nothing.
 */
/** Targets of a node's expressions whose every assignment reads the target itself first. */
function selfReadingTargets(expressions: unknown): Set<string> {
  const reading = new Set<string>();
  const plain = new Set<string>();
  for (const src of Array.isArray(expressions) ? expressions : []) {
    if (typeof src !== 'string') continue;
    try {
      const e = parseExpression(src);
      const readsItself = e.reads.some((r) => r === e.target || r.startsWith(`${e.target}.`) || r.startsWith(`${e.target}[`));
      // An earlier plain assignment in the same node gives it a value first.
      if (readsItself && !plain.has(e.target)) reading.add(e.target);
      else plain.add(e.target);
    } catch {
      // reported by the expression's own check
    }
  }
  for (const name of plain) reading.delete(name);
  return reading;
}

export function collectDeclarations(data: Record<string, unknown>, model: GraphModel): Declarations {
  const registry = isPlainObject(data.variableRegistry) ? Object.keys(data.variableRegistry) : [];
  const globals = new Set<string>([...BUILTIN_VARIABLES, ...registry]);
  const written = new Set<string>();
  const nodeFields = new Map<string, ReadonlySet<string>>();
  const fixedFields = new Map<string, string>();
  // An expression may assign only a declared global (E_EXPRESSION_TARGET
  // otherwise): its target declares nothing new, or reads of a misspelt
  // target would look declared and their findings stay hidden.
  const declaredByStart = new Set(model.nodes.filter((n) => n.type === 'start').flatMap((n) => {
    const vars = isPlainObject(n.raw.initialData) ? n.raw.initialData.variables : undefined;
    return isPlainObject(vars) ? Object.keys(vars) : [];
  }));
  for (const node of model.nodes) {
    const declared = declarationsOf(node);
    // `n = n + 1` reads n before it writes it: on a run where nothing else
    // gave n a value it fails, so it gives no first value (never-written).
    const selfReading = node.type === 'expression' ? selfReadingTargets(node.raw.expressions) : new Set<string>();
    for (const name of declared.globals) {
      if (node.type === 'expression' && !globals.has(name) && !declaredByStart.has(name)) continue;
      globals.add(name);
      // An initialData entry without a value declares the name but seeds nothing (start.seed copies values only).
      if (node.type === 'start' && !seedsValue(node.raw.initialData, name)) continue;
      if (!selfReading.has(name)) written.add(name);
    }
    const schema = node.raw.inputSchema;
    if (isPlainObject(schema) && Array.isArray(schema.globalInputs)) {
      for (const name of schema.globalInputs) if (typeof name === 'string') written.add(name);
    }
    // An id E_NODE_ID refuses declares nothing: its answers can never be read, and it is never offered as a did-you-mean.
    if (node.id === undefined || !NODE_ID_PATTERN.test(node.id)) continue;
    if (node.type !== undefined && node.nodeType && model.byId.get(node.id) === node && !fieldsFollowInputSchema(node)) fixedFields.set(node.id, node.type);
    const fields = new Set(nodeFields.get(node.id) ?? []);
    for (const field of declared.local) fields.add(field);
    nodeFields.set(node.id, fields);
  }
  return { globals, nodeFields, written, fixedFields };
}

/** Whether a start node's initialData gives `name` a value. */
function seedsValue(initialData: unknown, name: string): boolean {
  const vars = isPlainObject(initialData) ? initialData.variables : undefined;
  const entry = isPlainObject(vars) ? vars[name] : undefined;
  return isPlainObject(entry) && entry.value !== undefined;
}

const PROBE_FIELD = 'declared-by-input-schema';

/**
 * Whether the node's type takes its fields from the node's inputSchema
 * (agent-directive): asked of the type itself by declaring a probe field,
 * so a new node type needs no list kept here.
 */
function fieldsFollowInputSchema(node: NodeEntry): boolean {
  try {
    const probe = { ...node.raw, inputSchema: { type: 'object', properties: { [PROBE_FIELD]: { type: 'string' } } } };
    return node.nodeType?.declares(probe as never).local.includes(PROBE_FIELD) ?? false;
  } catch {
    return false;
  }
}

function declarationsOf(node: NodeEntry): { local: string[]; globals: string[] } {
  if (!node.nodeType) return { local: [], globals: [] };
  try {
    const declared = node.nodeType.declares(node.raw as never);
    return {
      local: declared.local.filter((n) => typeof n === 'string'),
      globals: declared.globals.filter((n) => typeof n === 'string'),
    };
  } catch {
    return { local: [], globals: [] };
  }
}

export function scopeOf(declarations: Declarations): Scope {
  return staticScope({ globals: declarations.globals, nodeFields: declarations.nodeFields });
}

/**
 * A read that does not resolve, as an E_UNDECLARED_VARIABLE finding (or the
 * path's own syntax error). `reported` holds the place (pointer and offset)
 * and missing name of every finding so far: a template lists both
 * `items[idx]` and its index `idx`, and one undeclared `idx` is one finding;
 * the same name read again elsewhere in the string is another. `fixedFields` (see
 * Declarations) turns the advice for a node whose fields cannot be declared
 * into "it writes only …".
 */
export function checkRead(read: VariableRead, scope: Scope, reported: Set<string>, fixedFields: ReadonlyMap<string, string> = new Map()): Finding | undefined {
  const shown =
    // A template's variable is shown in its braces; an expression's operand as written.
    read.offset !== undefined && !/\/expressions\/\d+$/.test(read.pointer) ? `"{{${read.path}}}"`
    : read.pointer.endsWith('/contextPath') ? `contextPath "${read.path}"`
    : `"${read.path}"`;
  const inCondition = read.pointer.endsWith('/contextPath') || read.pointer.includes('/jsonLogic');
  // An empty contextPath is the schema's finding (minLength): one fault, one finding.
  if (read.path === '' && read.pointer.endsWith('/contextPath')) return undefined;
  let resolution;
  try {
    resolution = resolve(read.path, scope);
  } catch (e) {
    if (!isCountersignError(e)) throw e;
    // The path's syntax error, under the code of what holds it: a template, a condition or an expression.
    const code = e.code === 'E_TEMPLATE_SYNTAX' && inCondition ? 'E_CONDITION' : e.code === 'E_TEMPLATE_SYNTAX' && /\/expressions\/\d+$/.test(read.pointer) ? 'E_EXPRESSION' : e.code;
    const fix = code === 'E_TEMPLATE_SYNTAX' ? e.fix : e.fix?.replace('write a variable name such as {{name}} or {{node-id.field}}', 'write a path such as name or node-id.field');
    return { code, message: withFix(`${shown}: ${e.message}`, fix), pointer: read.pointer, offset: read.offset, severity: 'error' };
  }
  if (resolution.found) return undefined;
  const { missing, candidates } = resolution;
  // Inside {{#each}}, a bare name no variable has may be a field of the current item (Moira reads it so):
  // not checkable from declarations, so a warning, unless it is a near miss of a name that is (a typo).
  const itemRoot = read.path.split(/[.[]/)[0];
  if (read.inEach && missing === itemRoot && !itemRoot.startsWith('@') && suggest(missing, [...candidates, 'this']) === undefined) {
    return {
      code: 'E_EACH_ITEM_FIELD',
      message: `${shown} names no variable, so inside {{#each}} it reads the current item's "${itemRoot}" field (as Moira does), which declarations cannot check; write {{this.${read.path}}} to say so, or declare "${itemRoot}" if you meant a variable`,
      pointer: read.pointer,
      offset: read.offset,
      severity: 'warning',
    };
  }
  // Located at the missing name itself: for `items[idx]` that is the `idx` in the brackets.
  const offset = read.offset === undefined ? undefined : read.offset + offsetOfMissing(read.path, missing);
  // One place, one finding — a template lists `items[idx]` and its index `idx`, both reading the same
  // `idx` — but every place that reads the name is reported, so fixing one does not uncover the next.
  const place = `${read.pointer} ${offset ?? ''} ${missing}`;
  if (reported.has(place)) return undefined;
  reported.add(place);
  const guess = suggest(missing, candidates);
  const dot = missing.indexOf('.');
  let message: string;
  const nodeId = dot > 0 ? missing.slice(0, dot) : '';
  const fixedType = fixedFields.get(nodeId);
  if (dot > 0 && scope.isNode(nodeId) && fixedType !== undefined) {
    message = `${shown} is not declared: ${fixedFieldsAdvice(nodeId, missing.slice(dot + 1), fixedType, candidates)}`;
  } else if (dot > 0 && scope.isNode(nodeId)) {
    const field = missing.slice(dot + 1);
    message =
      `${shown} is not declared: node "${nodeId}" declares no field "${field}"` +
      (guess ? ` — did you mean "${guess}"?` : '.') +
      ` Add "${field}" to the inputSchema properties (or globalInputs) of node "${nodeId}", or correct the name`;
  } else if (missing === 'this' || missing === '@index' || missing.startsWith('this.') || missing.startsWith('@index.')) {
    // The loop's own names, used outside a loop: declaring them would not help (and would be shadowed inside every loop).
    message = `${shown} is read outside any {{#each}} block: "this" (the current item) and "@index" (its position) exist only inside one; move it into {{#each list}}…{{/each}}, or read the variable by its name`;
  } else if (missing.startsWith('@')) {
    // No variable name starts with "@": only the loop's @index does.
    // Offered only where it can be read: inside {{#each}} (never in a condition, which has no loop).
    const loop = read.inEach ? suggest(missing, ['@index']) : undefined;
    message = `${shown} is no variable: "@" begins only "@index", the position of the current item inside {{#each}}${loop ? ` — did you mean "${loop}"?` : '.'} Correct the name, or read a variable by its name`;
  } else {
    const what = missing === read.path ? shown : `${shown} reads "${missing}", which`;
    // A bare name only nodes declare (seed 003's issues_found): the node-id.field paths that read it.
    const declaring = (field: string) => [...scope.nodeIds!()].filter((id) => [...scope.fieldNames!(id)].includes(field)).map((id) => `${id}.${field}`);
    const exactField = dot < 0 && scope.nodeIds && scope.fieldNames ? declaring(missing) : [];
    // A misspelt bare field name ({{sumary}} for a node's summary): the node-id.field paths of the closest field name.
    const closeField = guess === undefined && exactField.length === 0 && dot < 0 && scope.nodeIds && scope.fieldNames
      ? suggest(missing, new Set([...scope.nodeIds()].flatMap((id) => [...scope.fieldNames!(id)])))
      : undefined;
    const fieldOf = closeField !== undefined ? declaring(closeField) : exactField;
    // A typo of the loop's own name ("thsi" inside {{#each}}).
    const near = guess ?? (read.inEach && fieldOf.length === 0 && dot < 0 ? suggest(missing, ['this']) : undefined);
    const meant = near !== undefined ? ` — did you mean "${near}"${near === 'this' ? ' (the current item, inside {{#each}})' : ''}?`
      : fieldOf.length > 0 ? ` — did you mean ${fieldOf.slice(0, 3).map((f) => `"${f}"`).join(' or ')}? (a node's answer is read as node-id.field)`
      : '.';
    message =
      `${what} is not declared${meant}` +
      ` Declare "${missing}" in variableRegistry, or read node-id.field from a node whose inputSchema declares the field`;
  }
  return { code: 'E_UNDECLARED_VARIABLE', message, pointer: read.pointer, offset, severity: 'error' };
}

/**
 * Advice for a field a fixed-output node does not write: what it writes,
 * and the closest of those names (by edit distance, even when far off:
 * there are only a few to choose from).
 */
function fixedFieldsAdvice(nodeId: string, field: string, type: string, fields: readonly string[]): string {
  if (fields.length === 0) {
    return `${type} node "${nodeId}" writes no fields of its own. Read a global, or node-id.field from a node that declares the field`;
  }
  const closest = suggest(field, fields) ?? nearest(field, fields);
  const listed = fields.length === 1 ? fields[0] : `${fields.slice(0, -1).join(', ')} and ${fields[fields.length - 1]}`;
  return `${type} node "${nodeId}" writes only ${listed}, and a ${type} node's fields cannot be declared — did you mean "${nodeId}.${closest}"? Correct the name to one of the fields it writes`;
}

function nearest(name: string, candidates: readonly string[]): string {
  let best = candidates[0];
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = damerauLevenshtein(name.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** The workflow-level template: systemReminder is appended to every directive, so it is checked like one. */
export function systemReminderReads(data: Record<string, unknown>): { reads: VariableRead[]; findings: Finding[] } {
  const text = data.systemReminder;
  if (typeof text !== 'string') return { reads: [], findings: [] };
  try {
    return { reads: templateVariables(text).map((v) => ({ path: v.path, pointer: '/systemReminder', offset: v.offset, ...(v.list ? { list: true as const } : {}), ...(v.inEach ? { inEach: true as const } : {}) })), findings: [] };
  } catch (e) {
    if (!isCountersignError(e)) throw e;
    return { reads: [], findings: [errorFinding(e, '/systemReminder')] };
  }
}

/** finalOutput names that resolve to nothing are left out of a run's output: warn. */
export function finalOutputFindings(node: NodeEntry, scope: Scope): Finding[] {
  const names = node.raw.finalOutput;
  if (node.nodeType?.kind !== 'final' || !Array.isArray(names)) return [];
  const findings: Finding[] = [];
  names.forEach((name: unknown, j: number) => {
    // An empty entry is the schema's finding (minLength): one fault, one finding.
    if (typeof name !== 'string' || name === '') return;
    let resolution;
    try {
      resolution = resolve(name, scope);
    } catch (e) {
      if (!isCountersignError(e)) throw e;
      // Not a path at all ("a b", "x["): it can never name a value, so it is the author's error, not a gap to warn about.
      findings.push({ ...errorFinding(e, `${node.pointer}/finalOutput/${j}`), code: 'E_FINAL_OUTPUT_PATH' });
      return;
    }
    if (resolution.found) return;
    // The whole path with the missing part corrected, offered only when it names a value.
    const near = suggest(resolution.missing, resolution.candidates);
    const corrected = near !== undefined && name.startsWith(resolution.missing) ? near + name.slice(resolution.missing.length) : undefined;
    const guess = corrected !== undefined && resolves(corrected, scope) ? corrected : undefined;
    findings.push({
      code: 'E_FINAL_OUTPUT_UNRESOLVED',
      pointer: `${node.pointer}/finalOutput/${j}`,
      severity: 'warning',
      message: `finalOutput "${name}" resolves to nothing and will be left out of the run's output${guess ? ` — did you mean "${guess}"?` : '.'} Declare it in variableRegistry, or name a node-id.field a node declares`,
    });
  });
  return findings;
}

/** Registry variables without a default that no initialData, globalInputs, expression or requiredInputs writes. */
export function neverWrittenFindings(data: Record<string, unknown>, declarations: Declarations): Finding[] {
  if (!isPlainObject(data.variableRegistry)) return [];
  const findings: Finding[] = [];
  // A required input is written by the start input of every run.
  const required = new Set(Array.isArray(data.requiredInputs) ? data.requiredInputs : []);
  for (const [name, decl] of Object.entries(data.variableRegistry)) {
    if (isPlainObject(decl) && 'default' in decl) continue;
    if (required.has(name)) continue;
    if (declarations.written.has(name)) continue;
    findings.push({
      code: 'E_VARIABLE_NEVER_WRITTEN',
      pointer: childPointer('/variableRegistry', name),
      severity: 'warning',
      message: `registry variable "${name}" has no default and nothing writes it (no initialData value, globalInputs or expression that gives it a first value; an update such as "${name} = ${name} + 1" reads it first); it is unset unless the start input supplies it — give it a default or write it from a node`,
    });
  }
  return findings;
}

function resolves(path: string, scope: Scope): boolean {
  try {
    return resolve(path, scope).found;
  } catch {
    return false;
  }
}
