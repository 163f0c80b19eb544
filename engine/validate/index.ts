/**
 * `countersign validate`: the published schema first, then structure,
 * graph, node-type and dataflow checks. Every finding carries a stable code,
 * the most specific JSON pointer and, when the document came from a file,
 * its line:col. Bad content never throws: it becomes findings.
 */
import { jsonProblem } from '../format/json-problem.js';
import { createToolCatalog, type ToolCatalog } from '../tools/catalog.js';
import { checkValidateFile, checkValidateOptions } from '../tools/catalog.js';
import { BUILTIN_TOOLS } from '../tools/builtin/index.js';
import type { Tool, ToolSpec } from '../tools/tool.js';
import { CountersignError, isCountersignError } from '../errors.js';
import type { Workflow } from '../format/model.js';
import { readSource, type SourceDocument } from '../format/source.js';
import type { Finding } from '../nodes/node-type.js';
import {
  checkRead,
  collectDeclarations,
  finalOutputFindings,
  neverWrittenFindings,
  scopeOf,
  systemReminderReads,
} from './dataflow.js';
import { graphModel } from './graph-model.js';
import { listReadFinding } from './list-reads.js';
import { conditionOperandFindings } from './condition-operands.js';
import { graphFindings } from './graph.js';
import { reviewGraphFindings } from './review-graph.js';
import { locateFinding, type Position } from './locate.js';
import { withScalarAsWritten } from './yaml-scalar-written.js';
import { isPlainObject } from './pointer.js';
import { nestingFindings } from './depth.js';
import { registryFindings, requiredInputFindings, reservedNameFindings } from './registry.js';
import { seedValueFindings } from './seed-values.js';
import { schemaFindings } from './schema-check.js';
import { structureFindings } from './structure.js';
import { toolDeclarationFindings } from './tool-declarations.js';
import { missingAsMisspelt, withTyposRecovered } from './typo-recovery.js';

export interface FindingOut {
  code: string;
  message: string;
  pointer: string;
  line: number;
  col: number;
}

export interface ValidationReport {
  file: string;
  ok: boolean;
  errors: FindingOut[];
  warnings: FindingOut[];
}

export { formatHuman, formatJson } from './report.js';
export { MAX_NODES } from './graph-model.js';

/** What validation knows beyond the document: the tools `tool` nodes may name (the built-ins by default). */
export interface ValidateOptions {
  /**
   * The tools `tool` nodes may name besides the built-ins: the same list a
   * host passes to createEngine({ tools }) (or a catalog), so validation and
   * start agree on what is valid.
   */
  tools?: ToolCatalog | ReadonlyArray<Tool | ToolSpec>;
  /** The workflow's own toolModules are loaded into `tools`: a tool still missing is an error, not a maybe. */
  modulesLoaded?: boolean;
  /** Tool names a host lends its agents at run time (engine.run({ tools })): `access` patterns may name them. */
  lentTools?: readonly string[];
  /** The workflow file, for `toolModules` paths (validateDocument takes it from the document). */
  file?: string;
}

export function validateDocument(doc: SourceDocument, opts: ValidateOptions = {}): ValidationReport {
  checkValidateOptions(opts, 'validateDocument');
  if (!isSourceDocument(doc)) {
    throw new CountersignError('E_INPUT', 'validateDocument needs a document loadWorkflow returned (with its positions)', {
      fix: 'pass loadWorkflow(file), or use validateWorkflow(object) for a workflow object',
    });
  }
  const findings = workflowFindings(doc.data, { ...opts, file: opts.file ?? doc.file }).map((f) => withScalarAsWritten(doc, f));
  return toReport(doc.file, findings, (f) => locateFinding(doc, f));
}

/**
 * For library users holding a workflow object: there is no source, so line
 * and col are 0. A document from loadWorkflow() is validated with its
 * positions, as validateDocument() does.
 */
export function validateWorkflow(data: unknown, file = '<workflow>', opts: ValidateOptions = {}): ValidationReport {
  checkValidateFile(file, 'validateWorkflow');
  checkValidateOptions(opts, 'validateWorkflow');
  if (isSourceDocument(data)) return validateDocument(data, opts);
  return toReport(file, workflowFindings(data, opts), () => ({ line: 0, col: 0 }));
}

function isSourceDocument(value: unknown): value is SourceDocument {
  return value !== null && typeof value === 'object' && typeof (value as SourceDocument).locate === 'function' && 'data' in value && 'text' in value;
}

/** A file that cannot be read or parsed is reported as one finding at the syntax error. */
export function validateFile(path: string, opts: ValidateOptions = {}): ValidationReport {
  checkValidateOptions(opts, 'validateFile');
  let doc: SourceDocument;
  try {
    doc = readSource(path);
  } catch (e) {
    // E_SCHEMA too: a YAML document nested past the limit before its parser could read it (said as JSON's is).
    if (!isCountersignError(e) || (e.code !== 'E_PARSE' && e.code !== 'E_FILE_NOT_FOUND' && e.code !== 'E_SCHEMA')) throw e;
    const message = e.fix ? `${e.message}; ${e.fix}` : e.message;
    return { file: path, ok: false, errors: [{ code: e.code, message, pointer: e.pointer ?? '', line: e.line ?? 0, col: e.col ?? 0 }], warnings: [] };
  }
  return validateDocument(doc, opts);
}

/** Every finding for a parsed document, unlocated; a misspelt key or type with a did-you-mean is one finding. */
export function workflowFindings(data: unknown, opts: ValidateOptions = {}): Finding[] {
  return withTyposRecovered(data, (document) => findingsOnce(document, opts));
}

function findingsOnce(data: unknown, opts: ValidateOptions): Finding[] {
  // The built-ins are always there, as in every engine: a host's catalog adds to them.
  const tools = opts.tools ? withBuiltins(opts.tools) : builtinCatalog();
  const tooDeep = nestingFindings(data);
  if (tooDeep.length > 0) return tooDeep;
  // A library caller's object may hold what no file can (a Set, a Map, NaN): start would refuse it, so validate does.
  const notJson = jsonProblem(data);
  if (notJson) {
    return [{ code: 'E_INPUT', message: `the workflow is not plain JSON data: ${notJson.pointer || '(root)'} ${notJson.message}; pass plain JSON data (strings, finite numbers, booleans, null, lists and plain objects)`, pointer: notJson.pointer, severity: 'error' }];
  }
  const fromSchema = schemaFindings(data);
  const model = graphModel(data);
  if (!model || !isPlainObject(data)) return withoutTypoEchoes(missingAsMisspelt(fromSchema, data));

  const broken = brokenNodes(fromSchema);
  const declarations = collectDeclarations(data, model);
  const scope = scopeOf(declarations);
  const workflow = checkableWorkflow(data);
  const reminder = systemReminderReads(data);

  const own: Finding[] = [...structureFindings(model), ...graphFindings(model), ...reviewGraphFindings(model, data), ...registryFindings(data, new Set(fromSchema.map((f) => f.pointer))), ...seedValueFindings(data, brokenEntries(fromSchema)), ...reservedNameFindings(data), ...requiredInputFindings(data), ...toolDeclarationFindings(data, tools, opts), ...reminder.findings];
  const reported = new Set<string>();
  for (const read of reminder.reads) pushDefined(own, checkRead(read, scope, reported, declarations.fixedFields) ?? listReadFinding(read, data, model.byId));
  for (const node of model.nodes) {
    if (node.nodeType?.lint) own.push(...node.nodeType.lint(node.raw, node.pointer));
    if (!node.nodeType) continue;
    if (broken.has(node.index)) {
      // A node missing a field (or holding one of the wrong shape) is still
      // checked where its shape allows — a template typo in its directive is
      // found in the same pass — but nothing under a pointer the schema
      // already reported, and a check the broken shape defeats says nothing.
      const faults = fromSchema.filter((f) => SHAPE_CODES.has(f.code));
      // A fault at the node itself covers only itself; one at a field covers
      // what is under it — except that a field missing from an object (a
      // condition without its right operand) says nothing of the names the
      // object does hold: their reads are still checked.
      const fresh = (f: Finding, read: boolean) => !faults.some((x) => f.pointer === x.pointer
        // The missing field itself (a condition's check of a condition that is not there) is that fault again.
        || (x.missingField && x.missing?.some((name) => f.pointer === `${x.pointer}/${name}` || f.pointer.startsWith(`${x.pointer}/${name}/`)))
        // A field missing from an object says nothing of the fields it does hold: their reads still run, and so do checks of their keys (a misspelt contextPath).
        || (x.pointer !== node.pointer && f.pointer.startsWith(`${x.pointer}/`) && !((read || f.key) && x.missingField)));
      try {
        const found: Finding[] = [...node.nodeType.check(node.raw as never, { workflow, pointer: node.pointer, globals: declarations.globals, tools, modulesLoaded: opts.modulesLoaded === true })];
        if (node.type === 'condition') found.push(...conditionOperandFindings(node.raw.condition, `${node.pointer}/condition`, data, model.byId));
        const reads: Finding[] = [];
        for (const read of node.nodeType.reads(node.raw as never, node.pointer)) pushDefined(reads, checkRead(read, scope, reported, declarations.fixedFields) ?? listReadFinding(read, data, model.byId));
        reads.push(...finalOutputFindings(node, scope));
        own.push(...found.filter((f) => fresh(f, false)), ...reads.filter((f) => fresh(f, true)));
      } catch {
        // the shape the schema refused: nothing more to say about it
      }
      continue;
    }
    own.push(...node.nodeType.check(node.raw as never, { workflow, pointer: node.pointer, globals: declarations.globals, tools, modulesLoaded: opts.modulesLoaded === true }));
    if (node.type === 'condition') own.push(...conditionOperandFindings(node.raw.condition, `${node.pointer}/condition`, data, model.byId));
    for (const read of node.nodeType.reads(node.raw as never, node.pointer)) pushDefined(own, checkRead(read, scope, reported, declarations.fixedFields) ?? listReadFinding(read, data, model.byId));
    own.push(...finalOutputFindings(node, scope));
  }
  own.push(...neverWrittenFindings(data, declarations));
  return missingTogether(withoutTypoEchoes(missingAsMisspelt(merge(fromSchema, own), data)));
}

/** The fields one `required` list misses in one object, said as one finding: `nodes[2] is missing required fields "id" and "type"`. */
function missingTogether(findings: Finding[]): Finding[] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    if (f.code !== 'E_SCHEMA' || f.required === undefined || f.missing?.length !== 1) continue;
    const key = `${f.pointer} ${f.required.at}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const dropped = new Set<Finding>();
  const joined = new Map<Finding, Finding>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const fields = group.map((f) => f.missing![0]);
    const hints = group.map((f, i) => (i < group.length - 1 ? f.required!.hint.replace(/\.$/, '') : f.required!.hint));
    joined.set(group[0], { ...group[0], missing: fields, message: `${group[0].required!.subject} is missing required fields ${fields.map((f) => `"${f}"`).join(' and ')}; add them${hints.join('')}` });
    for (const f of group.slice(1)) dropped.add(f);
  }
  return findings.filter((f) => !dropped.has(f)).map((f) => joined.get(f) ?? f);
}

/**
 * One typo is one finding: a connection written "sucess" is not also a
 * missing "success", and a node typed "End" is not also a workflow with no
 * end. The misspelt name's finding names what it was meant to be.
 */
function withoutTypoEchoes(findings: Finding[]): Finding[] {
  const meantTypes = new Set(findings.filter((f) => f.code === 'E_UNKNOWN_NODE_TYPE' && f.meant).map((f) => f.meant));
  const meantConnections = new Map<string, Set<string>>();
  for (const f of findings) {
    const node = NODE_POINTER.exec(f.pointer);
    if (f.code !== 'E_UNKNOWN_CONNECTION' || !f.meant || !node) continue;
    const names = meantConnections.get(node[1]) ?? new Set<string>();
    names.add(f.meant);
    meantConnections.set(node[1], names);
  }
  // One unknown key, one finding: a condition's closed key set and its operator's branch both refuse it; the narrower list is kept.
  const unknownAt = new Map<string, Finding>();
  for (const f of findings) {
    if (f.code !== 'E_UNKNOWN_KEY') continue;
    const kept = unknownAt.get(f.pointer);
    if (!kept || (!kept.meant && f.meant) || (!!kept.meant === !!f.meant && f.message.length < kept.message.length)) unknownAt.set(f.pointer, f);
  }
  findings = findings.filter((f) => f.code !== 'E_UNKNOWN_KEY' || unknownAt.get(f.pointer) === f);
  // globalInputs of the wrong shape (a string, an object): which globals it declares is unknown, so the checks
  // that depend on it (required names among the answer's fields, globals nothing writes) say nothing.
  const shapeless = findings.filter((f) => f.code === 'E_SCHEMA' && f.pointer.endsWith('/inputSchema/globalInputs')).map((f) => f.pointer.slice(0, -'/globalInputs'.length));
  if (shapeless.length > 0) {
    findings = findings.filter((f) => f.code !== 'E_VARIABLE_NEVER_WRITTEN' && !(f.code === 'E_INPUT_SCHEMA' && shapeless.some((p) => f.pointer.startsWith(`${p}/required/`))));
  }
  // A key written "directve" where "directive" is missing: the unknown key says it, with its did-you-mean.
  const meantKeys = new Set(findings.filter((f) => f.code === 'E_UNKNOWN_KEY' && f.meant).map((f) => `${f.pointer.slice(0, f.pointer.lastIndexOf('/'))}/${f.meant}`));
  return findings.filter((f) => {
    if (f.code === 'E_SCHEMA' && f.missingField && f.missing?.length === 1 && meantKeys.has(`${f.pointer}/${f.missing[0]}`)) return false;
    // A condition's "jsonlogic" stands for jsonLogic, which takes operator's place.
    if (f.code === 'E_SCHEMA' && f.missingField && f.missing?.[0] === 'operator' && meantKeys.has(`${f.pointer}/jsonLogic`)) return false;
    if (f.code === 'E_NO_END') return !meantTypes.has('end');
    // "conections" where "connections" is missing: the unknown key says it.
    if (f.code === 'E_MISSING_CONNECTION' && meantKeys.has(`${/^\/nodes\/\d+/.exec(f.pointer)?.[0]}/connections`)) return false;
    if (f.code === 'E_START_COUNT' && f.pointer === '/nodes') return !meantTypes.has('start');
    if (f.code === 'E_MISSING_CONNECTION' && f.missing) {
      const meant = meantConnections.get(NODE_POINTER.exec(f.pointer)?.[1] ?? '');
      return !(meant && f.missing.every((name) => meant.has(name)));
    }
    return true;
  });
}

/** `/variableRegistry/<name>` of every registry entry the schema check found fault with. */
function brokenEntries(findings: Finding[]): Set<string> {
  const out = new Set<string>();
  for (const f of findings) {
    // A fault in one of the entry's schema keywords: its values cannot be judged against it. A missing
    // description (at the entry itself) or the default's own fault says nothing against the schema.
    const m = /^(\/variableRegistry\/[^/]+)\/(?!default(?:\/|$)|description(?:\/|$))/.exec(f.pointer);
    if (m) out.add(m[1]);
  }
  return out;
}

function pushDefined(into: Finding[], finding: Finding | undefined): void {
  if (finding) into.push(finding);
}

/**
 * Schema findings that make a node's shape untrustworthy. Node-type checks
 * and reads skip such nodes; an unknown key or a connection problem leaves
 * the shape usable, so those nodes are still checked.
 */
const SHAPE_CODES: ReadonlySet<string> = new Set(['E_SCHEMA', 'E_UNKNOWN_NODE_TYPE']);
const NODE_POINTER = /^\/nodes\/(\d+)(?:\/|$)/;

function brokenNodes(findings: Finding[]): Set<number> {
  const broken = new Set<number>();
  for (const f of findings) {
    const m = NODE_POINTER.exec(f.pointer);
    if (m && SHAPE_CODES.has(f.code) && !f.valueOnly) broken.add(Number(m[1]));
  }
  return broken;
}

/** Node checks read the registry; a registry that is not a map (already a schema error) is treated as absent. */
function checkableWorkflow(data: Record<string, unknown>): Workflow {
  if (data.variableRegistry === undefined || isPlainObject(data.variableRegistry)) return data as unknown as Workflow;
  const { variableRegistry: _ignored, ...rest } = data;
  return rest as unknown as Workflow;
}

/**
 * The schema and the structural checks both notice some problems (a
 * missing or unknown connection, too many nodes). The structural finding
 * knows the node type's rules, so it wins; exact repeats are dropped.
 */
function merge(fromSchemaAll: Finding[], own: Finding[]): Finding[] {
  // One schema finding per place: the branches of a oneOf (or a type and an
  // enum on the same value) each say the same fault their own way. A named
  // code there (E_UNKNOWN_NODE_TYPE) says it best; else the first E_SCHEMA.
  const named = new Set(fromSchemaAll.filter((f) => f.code !== 'E_SCHEMA').map((f) => f.pointer));
  const schemaPlaces = new Map<string, Finding>();
  const fromSchema = fromSchemaAll.filter((f) => {
    if (f.code !== 'E_SCHEMA') return true;
    if (named.has(f.pointer)) return false;
    const first = schemaPlaces.get(f.pointer);
    // Each field one `required` list misses ({} for a node: id and type) is its own fault, said together later (missingTogether).
    if (first) return first.required !== undefined && first.required.at === f.required?.at && !first.missing?.some((m) => f.missing?.includes(m));
    schemaPlaces.set(f.pointer, f);
    return true;
  });
  const ownPlaces = new Set(own.map((f) => `${f.code} ${f.pointer}`));
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of [...fromSchema.filter((f) => !ownPlaces.has(`${f.code} ${f.pointer}`)), ...own]) {
    const key = `${f.code} ${f.pointer} ${f.offset ?? ''} ${f.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out;
}

function toReport(file: string, findings: Finding[], locate: (f: Finding) => Position): ValidationReport {
  const located = findings.map((f, order) => ({ f, order, at: locate(f) }));
  located.sort((a, b) => a.at.line - b.at.line || a.at.col - b.at.col || a.order - b.order);
  const errors: FindingOut[] = [];
  const warnings: FindingOut[] = [];
  for (const { f, at } of located) {
    // Text reused through a YAML alias is located at its anchor; the message names the alias, so the two findings read apart.
    const aliases = at.through ?? (at.via ? [at.via] : []);
    const message = aliases.length === 0 ? f.message
      : `${f.message} (in the text reused by ${aliases.length === 1 ? 'the alias' : 'the aliases'} at ${aliases.map((a) => `${a.line}:${a.col}`).join(', then ')})`;
    const out = { code: f.code, message, pointer: f.pointer, line: at.line, col: at.col };
    (f.severity === 'warning' ? warnings : errors).push(out);
  }
  return { file, ok: errors.length === 0, errors, warnings };
}

let builtins: ToolCatalog | undefined;
function builtinCatalog(): ToolCatalog {
  builtins ??= createToolCatalog(BUILTIN_TOOLS);
  return builtins;
}

function withBuiltins(given: ToolCatalog | ReadonlyArray<Tool | ToolSpec>): ToolCatalog {
  // A list is checked as createEngine({ tools }) checks it (a bad entry throws E_TOOL_DEFINITION).
  const tools = Array.isArray(given) ? createToolCatalog(BUILTIN_TOOLS, given as ReadonlyArray<Tool | ToolSpec>) : (given as ToolCatalog);
  if (BUILTIN_TOOLS.every((t) => tools.has(t.name))) return tools;
  return new Map([...builtinCatalog(), ...tools]);
}
