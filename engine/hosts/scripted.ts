/**
 * The `scripted:<file>` adapter: a fixed list of answers per node id, used
 * in order, so a workflow runs offline and deterministically (demos,
 * tests, CI). A node visited again takes the next answer in its list; a
 * resumed run continues each list after the answers the run already took
 * for that node (answersTaken), so stopping and resuming never changes
 * which answer a node gets.
 */
import { decodeUtf8 } from '../format/utf8.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { reportFormatByExtension, reportText } from '../review/report.js';
import { CountersignError, isCountersignError } from '../errors.js';
import { detectFormat, parseSource, type SourceDocument } from '../format/source.js';
import { suggest } from '../format/suggest.js';
import { checkOptionKeys, keysOf } from '../run/option-keys.js';
import { said, shown } from '../format/said.js';
import { jsonProblem } from '../format/json-problem.js';
import type { JsonValue } from '../format/model.js';
import type { JournalEvent } from '../run/contract.js';
import type { Agent } from './agent.js';

export type Script = Record<string, unknown[]>;

export interface ScriptedOptions {
  /** The script's file, as the user named it (for messages). */
  file?: string;
  /** Answers already taken per node id: each list starts after them (a resumed run). */
  answered?: Readonly<Record<string, number>>;
}

export const SCRIPTED_OPTION_KEYS = keysOf<ScriptedOptions>({ file: true, answered: true });

export function createScriptedAgent(given: Script, opts: ScriptedOptions = {}): Agent {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw new CountersignError('E_INPUT', `createScriptedAgent's options must be an object, got ${shown(opts)}`, { fix: 'pass { file?, answered? }, or leave the options out' });
  }
  checkOptionKeys(opts, SCRIPTED_OPTION_KEYS, 'createScriptedAgent');
  // A null file is a value of the wrong type, never the file left out.
  if (opts.file !== undefined && (typeof opts.file !== 'string' || opts.file === '')) {
    throw new CountersignError('E_INPUT', `createScriptedAgent's file must be the script's file name (a non-empty string), got ${shown(opts.file)}`, {
      fix: 'pass file: "answers.yaml" (it names the script in messages), or leave it out',
    });
  }
  // A library caller's script is checked as a file's is: never read as "no answers" when it is no map of lists.
  const script = checkScript(given, opts.file ?? '(given to createScriptedAgent)');
  checkAnswered(opts.answered, 'createScriptedAgent');
  const used = new Map<string, number>(Object.entries(opts.answered ?? {}));
  const name = opts.file ? `the script ${opts.file}` : 'the script';
  return {
    callsTools: false,
    async answer(request) {
      const nodeId = request.nodeId;
      const list = Object.hasOwn(script, nodeId) ? script[nodeId] : undefined;
      const next = used.get(nodeId) ?? 0;
      if (!list || next >= list.length) {
        // A misspelt key is caught before the run (checkScriptNodes): the keys left are other nodes' lists.
        // On a resume the list starts after the answers the run already took: say so, or "it had 1" reads as a lie.
        const before = opts.answered && Object.hasOwn(opts.answered, nodeId) ? opts.answered[nodeId] : 0;
        const skipped = before > 0 ? `; the run had already taken ${before} answer(s) for it before this resume, and a resumed script continues after them` : '';
        throw new CountersignError(
          'E_AGENT_SCRIPT_EXHAUSTED',
          (list ? `${name} has no answer left for node "${nodeId}" (it had ${list.length})` : `${name} has no answers for node "${nodeId}"`) + skipped,
          { nodeId, file: opts.file, fix: `add ${list ? 'another answer to the list' : 'a list of answers'} under "${nodeId}" in ${opts.file ?? 'the script'}` },
        );
      }
      used.set(nodeId, next + 1);
      const given: unknown = list[next];
      const at = { file: opts.file, pointer: `/${escapePointer(nodeId)}/${next}`, nodeId, ...placed(list, `/${escapePointer(nodeId)}/${next}`) };
      // An answer is a JSON object (or null): anything else is the script's fault, as a non-object
      // line is a jsonl agent's, never an answer that spends one of the node's attempts.
      // Checked before the copy: a library caller's function or symbol entry cannot be copied.
      if (given !== null && (typeof given !== 'object' || Array.isArray(given))) {
        const what = Array.isArray(given) ? 'a list' : typeof given === 'function' || given === undefined ? shown(given) : `the ${typeof given} ${said(given)}`;
        throw new CountersignError('E_AGENT_OUTPUT', `${name} answers node "${nodeId}" with ${what} (answer ${next + 1}, at ${at.pointer}${at.line !== undefined ? `, line ${at.line}, column ${at.col}` : ''}), not a JSON object`, {
          ...at,
          fix: `write each answer under "${nodeId}" as a mapping of fields (in YAML "- {x: 1}", or "- x: 1" with a space after the colon); the run is still waiting`,
        });
      }
      // A library caller's entry JSON would not keep as given (a class instance, symbol keys, a symbol or
      // function inside) is the script's fault at its pointer, as a plain agent's such answer is: never
      // handed on changed by a copy (which drops symbol keys and makes an instance a plain object) nor a copy's crash.
      const notJson = given === null ? undefined : jsonProblem(given, { plainObjectsOnly: true }) ?? cycleIn(given);
      if (notJson) {
        const pointer = `${at.pointer}${notJson.pointer}`;
        throw new CountersignError('E_AGENT_OUTPUT', `${name} answers node "${nodeId}" with an entry that is not plain JSON (answer ${next + 1}, at ${pointer}): ${notJson.pointer || '(root)'} ${notJson.message}`, {
          ...at,
          pointer,
          fix: `write each answer under "${nodeId}" as plain JSON data: strings, finite numbers, booleans, null, lists and plain objects (no functions, symbols or symbol keys, BigInts, Maps, Dates or class instances); the run is still waiting`,
        });
      }
      // A copy, so nothing downstream can change the script's later answers.
      const entry = structuredClone(given) as JsonValue;
      return request.kind === 'review' && request.contract === 'issues' ? reviewAnswer(entry, request.report, at) : entry;
    },
  };
}

/**
 * `answered`: counts of answers already taken, per node. Anything else
 * (null, 0, a list) would replay the script from its start, or name no answer.
 */
export function checkAnswered(answered: unknown, call: string): void {
  if (answered !== undefined && (answered === null || typeof answered !== 'object' || Array.isArray(answered) || answered instanceof Map || !Object.values(answered).every((n) => Number.isInteger(n) && (n as number) >= 0))) {
    throw new CountersignError('E_INPUT', `${call}'s answered must map node ids to the number of answers the run already took (whole numbers from 0), got ${shown(answered)}`, {
      fix: 'pass answered: answersTaken((await engine.trace(runId)).events), or leave it out',
    });
  }
}

/**
 * A scripted review entry `{issues: ["…", …]}` plays the whole reviewer:
 * it writes those findings to the review's report file (JSON, or Markdown
 * items for a .md report) and answers their count. Any other entry (e.g.
 * `{issues_count: 0}` when another process writes the report) is the answer.
 *
 * The findings are written as given, never coerced to text: the engine,
 * not the adapter, judges a report, so an object or tiered item in a JSON
 * report reaches it and is rejected (E_REPORT_FORMAT). A Markdown list can
 * only hold text, so a non-string item there is the script's mistake.
 */
function reviewAnswer(entry: JsonValue, report: string, at: { file?: string; pointer: string; nodeId: string }): JsonValue {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry) || !Array.isArray(entry.issues) || Object.keys(entry).length !== 1) return entry;
  const issues = entry.issues;
  if (reportFormatByExtension(report) === 'json') {
    writeFileSync(report, `${JSON.stringify({ issues }, null, 2)}\n`);
  } else {
    const bad = issues.findIndex((i) => typeof i !== 'string');
    if (bad !== -1) {
      throw new CountersignError(
        'E_AGENT_OUTPUT',
        `${at.file ? `the script ${at.file}` : 'the script'}: issue ${bad + 1} of the review entry at ${at.pointer} is ${said(issues[bad])}, not a string, and the Markdown report ${report} can only list text`,
        { nodeId: at.nodeId, file: at.file, pointer: `${at.pointer}/issues/${bad}`, fix: 'write each finding as one string, e.g. issues: ["the heading Setup has no body"]' },
      );
    }
    writeFileSync(report, reportText(issues as string[], 'markdown'));
  }
  return { issues_count: issues.length };
}

/**
 * Refuses a script naming a node the workflow does not have (a typo would
 * otherwise start the run and stop it at the real node, "exhausted"):
 * E_INPUT at the key, with the closest node id.
 */
export function checkScriptNodes(script: Script, nodeIds: readonly string[], file: string): void {
  for (const key of Object.keys(script)) {
    if (nodeIds.includes(key)) continue;
    const near = suggest(key, nodeIds);
    const at = placed(script, `/${escapePointer(key)}`, true);
    throw new CountersignError('E_INPUT', `the script ${file} has answers for node "${key}", which is no node of the workflow that takes answers (a directive or a review)${at.line !== undefined ? `, at line ${at.line}, column ${at.col}` : ''}${near ? ` — did you mean "${near}"?` : ''}`, {
      file,
      ...at,
      pointer: `/${escapePointer(key)}`,
      nodeId: key,
      fix: near ? `rename "${key}" to "${near}"` : `name one of the workflow's nodes that take answers: ${nodeIds.map((n) => `"${n}"`).join(', ')}`,
    });
  }
}

/**
 * How many answers a run took per node, from its journal: accepted,
 * rejected or declared failed by the answerer (`answer.*` events with a
 * userId; the engine's own refusals at a deadline carry none).
 */
export function answersTaken(events: readonly JournalEvent[]): Record<string, number> {
  if (!Array.isArray(events)) {
    throw new CountersignError('E_INPUT', 'answersTaken needs the run\'s journal events (a list)', { fix: 'pass (await engine.trace(runId)).events' });
  }
  // Every entry a journal event (an object with its type and seq, a string nodeId where it has one; an answer's always):
  // anything else is no journal, never a TypeError or an answer left uncounted (a resumed script would replay it).
  const bad = events.findIndex((e: unknown) => notAnEvent(e) !== undefined);
  if (bad !== -1) {
    throw new CountersignError('E_INPUT', `answersTaken needs the run's journal events: event ${bad} is ${notAnEvent(events[bad])}, not a journal event ({seq, at, type, nodeId, …})`, {
      fix: 'pass (await engine.trace(runId)).events, as trace returns them',
    });
  }
  const taken: Record<string, number> = {};
  // One answer per item handed out: an answer accepted and then refused behind a tool node (the review it led to
  // found the artifacts unchanged) is journaled twice for the one item, and counted once.
  const answered = new Set<string>();
  for (const e of events) {
    if (e.type.endsWith('.issued') && typeof e.nodeId === 'string') answered.delete(e.nodeId);
    if (!e.type.startsWith('answer.') || e.userId === null || e.userId === undefined) continue;
    const nodeId = e.nodeId!;
    if (answered.has(nodeId)) continue;
    answered.add(nodeId);
    taken[nodeId] = (Object.hasOwn(taken, nodeId) ? taken[nodeId] : 0) + 1;
  }
  return taken;
}

/** Why `e` is no journal event, or undefined when it is one (as the store reads them: a type and a whole-number seq). */
function notAnEvent(e: unknown): string | undefined {
  // Named as given (NaN, 5n, Symbol(x)): JSON would say null for NaN, and throw a bare TypeError on a BigInt.
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return shown(e);
  const event = e as Record<string, unknown>;
  if (typeof event.type !== 'string') return 'an object without a type';
  const typed = `an object of type ${JSON.stringify(event.type)}`;
  if (!Number.isInteger(event.seq)) return `${typed} without a whole-number seq`;
  if (event.nodeId !== undefined && typeof event.nodeId !== 'string') return `${typed} whose nodeId is ${said(event.nodeId)}, not a string`;
  if (event.type.startsWith('answer.') && event.nodeId === undefined) return `${typed} without the nodeId it answers`;
  return undefined;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The parsed file each script (and each of its answer lists) came from, so
 * a fault found later — a key naming no node, an entry that is no object —
 * is told at the script's line:col, as its syntax errors are.
 */
const sources = new WeakMap<object, SourceDocument>();

/** `{line, col}` of `pointer` in the file `of` came from (`key`: the key itself), or nothing for a script given as an object. */
function placed(of: unknown, pointer: string, key = false): { line?: number; col?: number } {
  const doc = of !== null && typeof of === 'object' ? sources.get(of) : undefined;
  if (!doc) return {};
  try {
    const at = doc.locate(pointer, { key });
    return { line: at.line, col: at.col };
  } catch {
    return {};
  }
}

function placedIn(doc: SourceDocument, pointer: string): { line?: number; col?: number } {
  try {
    const at = doc.locate(pointer);
    return { line: at.line, col: at.col };
  } catch {
    return {};
  }
}

/** ` (line 5, column 1)` for a message, or '' when the place is not known. */
function where(at: { line?: number; col?: number }): string {
  return at.line !== undefined ? ` (line ${at.line}, column ${at.col ?? 1})` : '';
}

/**
 * Reads a YAML or JSON script file: a map from node id to a list of answers.
 * `flag` is the option that named it (`--agent`, `--reviewer`), for the fix.
 */
export function loadScript(path: string, flag = '--agent', shownAs = path): Script {
  // Named in messages as the user gave it (scripted:<file>), as the run's later script errors name it.
  const name = shownAs;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new CountersignError('E_FILE_NOT_FOUND', `cannot read the script ${name}: ${(err as Error).message}`, {
      file: path,
      fix: `pass an existing file: ${flag} scripted:<file>, relative to the directory countersign runs in (not --workspace)`,
    });
  }
  const decoded = decodeUtf8(bytes);
  if ('problem' in decoded) {
    const { message, line, col, fix } = decoded.problem;
    throw new CountersignError('E_PARSE', `the script ${name} ${message}`, { file: name, line, col, fix });
  }
  const doc = parseScriptText(decoded.text, path, name);
  const script = checkScript(doc?.data ?? null, name, doc);
  if (doc) {
    sources.set(script, doc);
    for (const list of Object.values(script)) sources.set(list, doc);
  }
  return script;
}

/** Parsed as workflow files are (JSON or YAML by extension or content), so a syntax error names its line:col. */
function parseScriptText(text: string, path: string, name = path): SourceDocument | undefined {
  if (text.replace(/^\uFEFF/, '').trim() === '') return undefined; // checkScript says what a script must hold
  try {
    return parseSource(text, path);
  } catch (err) {
    if (!isCountersignError(err) || err.code !== 'E_PARSE') throw err;
    const format = detectFormat(path, text) === 'json' ? 'JSON' : 'YAML';
    const where = err.line !== undefined ? ` at ${err.line}:${err.col ?? 1}` : '';
    throw new CountersignError('E_PARSE', `the script ${name} is not valid ${format}${where}: ${err.message}`, {
      file: name,
      ...(err.line !== undefined ? { line: err.line, col: err.col } : {}),
      fix: err.fix ?? `fix the ${format} syntax at the position named`,
    });
  }
}

/**
 * Where an entry holds itself ({ self: <the entry> }): JSON cannot write it
 * (JSON.stringify throws), so it is the script's fault at the pointer of the
 * reference. jsonProblem skips a value met before, which a shared value
 * (met twice, no cycle) must be, so the cycle is looked for here.
 */
function cycleIn(value: unknown, pointer = '', parents = new Set<object>()): { pointer: string; message: string } | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (parents.has(value)) return { pointer, message: 'is a reference to itself (the entry holds itself), which JSON cannot write' };
  parents.add(value);
  try {
    for (const [key, item] of Object.entries(value)) {
      const found = cycleIn(item, `${pointer}/${escapePointer(key)}`, parents);
      if (found) return found;
    }
  } finally {
    parents.delete(value);
  }
  return undefined;
}

function checkScript(value: unknown, path: string, doc?: SourceDocument): Script {
  // A Map (or a class instance) would be read through its own keys, which are none of its entries: "no answers" for every node.
  const proto = value !== null && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (proto !== undefined && proto !== Object.prototype && proto !== null && !Array.isArray(value)) {
    throw new CountersignError('E_INPUT', `the script ${path} must map node ids to lists of answers, got a ${(value as object).constructor?.name ?? 'class'} instance`, {
      file: path,
      pointer: '',
      fix: value instanceof Map ? 'pass a plain object: Object.fromEntries(map) turns the Map into one' : 'pass a plain object, e.g. { "node-id": [ {answer}, {answer} ] }',
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CountersignError('E_INPUT', `the script ${path} must map node ids to lists of answers`, {
      file: path,
      pointer: '',
      fix: 'write it as `node-id: [ {answer}, {answer} ]`, one key per agent-directive node',
    });
  }
  const script: Script = {};
  for (const [nodeId, answers] of Object.entries(value)) {
    if (!Array.isArray(answers)) {
      const at = doc ? placedIn(doc, `/${escapePointer(nodeId)}`) : {};
      throw new CountersignError('E_INPUT', `the script ${path}: the answers for node "${nodeId}"${where(at)} must be a list`, {
        file: path,
        ...at,
        pointer: `/${escapePointer(nodeId)}`,
        nodeId,
        fix: `write "${nodeId}" as a list, e.g. \`${nodeId}: [ {answer} ]\`, even for a single answer`,
      });
    }
    script[nodeId] = answers;
  }
  return script;
}
