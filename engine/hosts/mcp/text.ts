/**
 * The text block of each tool result, written for a model. The structured
 * result carries the same facts as JSON; the text says what to do next.
 * Every run state names its runId and, while waiting, the seq to answer and
 * the exact `step` call, so an agent that lost its context can continue
 * from `runs` and `status` alone.
 */
import type { JsonObject } from '../../format/model.js';
import { reportFormatByExtension } from '../../review/report.js';
import type { JournalEvent, RunState, RunSummary, WaitingState } from '../../run/contract.js';
import type { JsonReport } from '../../validate/report.js';
import type { LateAnswer } from './late-answer.js';
import type { WorkflowEntry } from './workflows.js';

/**
 * `workspace` is the run's working directory (absolute): the text names it,
 * as relative paths in the workflow mean it. `late` is set when the answer
 * just given came after its item's deadline and was dropped: the text says
 * so first, then gives the state the deadline left.
 */
export function stateText(state: RunState, workspace?: string, late?: LateAnswer): string {
  const lines: string[] = [];
  const where = workspace === undefined ? [] : [`Workspace: ${workspace} (the run's working directory).`];
  if (late) {
    lines.push(...lateText(late, state), '');
  } else if (state.replayed) {
    lines.push(`That seq was already answered, so nothing changed (replayed: true). This is run ${state.runId}'s current state.`, '');
  } else if (state.retriesSpent) {
    const r = state.retriesSpent;
    lines.push(`Your answer was REJECTED (${r.code}), and node "${r.nodeId}" had no retries left, so the run took its "${r.via}" route to "${r.to}":`);
    for (const e of r.errors) lines.push(`  - ${e}`);
    lines.push('');
  }
  switch (state.status) {
    case 'waiting':
      lines.push(...waitingText(state, workspace));
      break;
    case 'completed':
      lines.push(`Run ${state.runId} completed at end node "${state.endNodeId}" (seq ${state.seq}). It takes no more answers.`, ...where, '', 'OUTPUT', json(state.output));
      break;
    case 'failed': {
      const e = state.error;
      lines.push(`Run ${state.runId} failed${e.nodeId ? ` at node "${e.nodeId}"` : ''} (seq ${state.seq}): ${e.code}: ${e.message}`);
      if (e.fix) lines.push(`fix: ${e.fix}`);
      lines.push(...where);
      lines.push('It takes no more answers; start a new run to try again.');
      break;
    }
  }
  return lines.join('\n');
}

/** The answer was not taken: when its deadline passed (or why it was refused while the deadline passed), and where the deadline sent the run instead. */
function lateText(late: LateAnswer, state: RunState): string[] {
  const went = late.timeoutRouteTo !== undefined
    ? `The run took node "${late.nodeId}"'s timeout route to "${late.timeoutRouteTo}".`
    : `Node "${late.nodeId}" has no timeout route, so the run failed with ${state.status === 'failed' ? state.error.code : 'E_TIMEOUT'}.`;
  const then = state.status === 'waiting' ? 'Below is the item the run waits for now; answer that one if it is yours to answer.' : 'Below is where the run ended.';
  if (late.refusedBehindTools) {
    return [
      `Your answer was NOT TAKEN: the answer to node "${late.nodeId}" (seq ${late.seq}) was refused by the tool nodes and review after it, and the node's DEADLINE (${late.deadline}) passed while they ran, so the deadline fired instead of asking again:`,
      ...late.refusedBehindTools.map((e) => `  - ${e}`),
      went,
      then,
    ];
  }
  return [
    `Your answer was NOT TAKEN: it arrived after the DEADLINE of node "${late.nodeId}" (seq ${late.seq}, deadline ${late.deadline}). The deadline fired first and the answer was discarded.`,
    went,
    then,
  ];
}

function waitingText(state: WaitingState, workspace: string | undefined): string[] {
  const where = (what: string) =>
    workspace === undefined ? [] : [`WORKSPACE: ${workspace} — relative paths in ${what} are relative to this directory; work there (not in your own current directory).`];
  const p = state.pending;
  const tries = `attempt ${p.attempt} of ${p.maxRetries + 1}`;
  const lines: string[] = [];
  if (state.rejected && !state.replayed) {
    lines.push(`Your answer was REJECTED (${state.rejected.code}). Nothing advanced; answer again.`);
    for (const e of p.errors ?? state.rejected.errors) lines.push(`  - ${e}`);
    lines.push(`The next answer is ${tries}.`, '');
  } else if (p.errors && p.errors.length > 0) {
    lines.push(`The previous answer to this item was rejected; this is ${tries}:`);
    for (const e of p.errors) lines.push(`  - ${e}`);
    lines.push('');
  }
  if (p.kind === 'review' && p.contract === 'decision') {
    lines.push(
      `Run ${state.runId} is waiting for a DECISION REVIEW at node "${p.nodeId}": seq ${state.seq}, by the persona "${p.persona.name}" (model ${p.persona.model}, at most ${p.persona.max_turns} turns).`,
      ...where('the proposal'),
      '',
      'REVIEW PROMPT',
      p.prompt.trimEnd(),
      '',
      'ANSWER SCHEMA (the reply\'s first non-blank line decides: "Decision: approve" approves, anything else rejects)',
      json(stepAnswerSchema(p.inputSchema)),
    );
    if (p.deadline) lines.push('', `DEADLINE: ${p.deadline}`);
    lines.push('', `To answer, call step with {"runId": "${state.runId}", "seq": ${state.seq}, "answer": {"reply": "<the reviewer's final reply>"}}.`);
    return lines;
  } else if (p.kind === 'review') {
    lines.push(
      `Run ${state.runId} is waiting for an INDEPENDENT REVIEW at node "${p.nodeId}": seq ${state.seq}, review iteration ${p.iteration}, ${tries}, for role "${p.reviewer}".`,
      ...where('the review prompt and the report file'),
      '',
      'This review must be answered by another identity than the one that produced or fixed the artifacts. Hand it to a separate reviewer (for example a subagent) that reads the files itself, writes every finding to the report file and answers with its own `as`. An answer from the producer\'s identity is rejected with E_SELF_REVIEW. The reviewer must not edit the artifacts.',
      '',
      'REVIEW PROMPT',
      p.prompt.trimEnd(),
      '',
      reportFileHeading(p.report),
      p.report,
      '',
      'ANSWER SCHEMA (issues_count must equal the number of issues in the report file)',
      json(stepAnswerSchema(p.inputSchema)),
    );
    if (p.deadline) lines.push('', `DEADLINE: ${p.deadline}`);
    lines.push('', `To answer, call step with {"runId": "${state.runId}", "seq": ${state.seq}, "as": "<reviewer identity>", "answer": {"issues_count": N}}.`);
    return lines;
  }
  if (p.kind === 'tool') {
    lines.push(`Run ${state.runId} is at tool node "${p.nodeId}" (seq ${state.seq}): the engine is running ${p.tool}${p.startedAt ? ` since ${p.startedAt}` : ''}. There is nothing to answer; call status to see where the run goes.`, ...where('the tool\'s arguments'));
    return lines;
  }
  lines.push(`Run ${state.runId} is waiting at node "${p.nodeId}": seq ${state.seq}, ${tries}${p.agent ? `, for role "${p.agent}"` : ''}.`, ...where('the directive'), '');
  const empty = takesEmptyAnswer(p.inputSchema);
  const schemaHeading = empty ? 'ANSWER SCHEMA (this item asks for no fields: answer with the empty object {})' : 'ANSWER SCHEMA (answer with one JSON object that satisfies it)';
  lines.push('DIRECTIVE', p.directive, '', 'DONE WHEN', p.completionCondition, '', schemaHeading, json(stepAnswerSchema(p.inputSchema)));
  const answer = empty ? '{}' : '{…}';
  if (p.deadline) lines.push('', `DEADLINE: ${p.deadline}`);
  if (p.requiresIdentity) {
    lines.push(
      '',
      'IDENTITY REQUIRED: this node produces or fixes work that an independent review checks, so the answer must carry `as` (who answers). Keep one identity for the producing and fixing steps; the review must come from a different one.',
      '',
      `To answer, call step with {"runId": "${state.runId}", "seq": ${state.seq}, "as": "<your identity>", "answer": ${answer}}.`,
    );
  } else {
    lines.push('', `To answer, call step with {"runId": "${state.runId}", "seq": ${state.seq}, "answer": ${answer}}.`);
  }
  return lines;
}

/**
 * An answer schema as the `step` tool takes it. The engine gives an item
 * that asks for no fields the schema {"type": ["object", "null"],
 * "maxProperties": 0}, so the CLI's `--response null` answers it; `step`'s
 * `answer` argument is always an object, so the text leaves out a top-level
 * "null" type instead of showing a value the tool refuses. The structured
 * result keeps the engine's schema: it is the CLI's JSON.
 */
export function stepAnswerSchema(schema: JsonObject): JsonObject {
  const type = schema.type;
  if (!Array.isArray(type) || !type.includes('null')) return schema;
  const rest = type.filter((t) => t !== 'null');
  if (rest.length === 0) return schema;
  return { ...schema, type: rest.length === 1 ? rest[0] : rest };
}

/** The item asks for no fields: `{}` is its answer. */
function takesEmptyAnswer(schema: JsonObject): boolean {
  return schema.maxProperties === 0;
}

/** What the report file must hold, in the format its extension asks for: the engine reads a .md report as Markdown list items only. */
function reportFileHeading(report: string): string {
  return reportFormatByExtension(report) === 'markdown'
    ? 'REPORT FILE (overwrite it with Markdown: one top-level list item "- …" per finding, no sub-items; an empty file when there are none)'
    : 'REPORT FILE (overwrite it with JSON {"issues": ["one finding per string", …]}; {"issues": []} when there are none)';
}

export function validateText(report: JsonReport): string {
  const lines: string[] = [];
  for (const f of report.files) {
    lines.push(f.ok ? `${f.file}: valid${f.warnings.length ? `, ${f.warnings.length} warning(s)` : ''}` : `${f.file}: INVALID, ${f.errors.length} error(s)`);
    const at = (x: { line: number | null; col: number | null }) => (x.line === null ? ':' : `:${x.line}:${x.col}`);
    for (const e of f.errors) lines.push(`  ${f.file}${at(e)} error ${e.code} ${e.message}`);
    for (const w of f.warnings) lines.push(`  ${f.file}${at(w)} warning ${w.code} ${w.message}`);
  }
  return lines.join('\n');
}

/**
 * The workflow list. `startWith` gives the shortest `workflow` argument that
 * starts each entry: its name, else its file name, else its path (a name or
 * file name that an earlier folder or the server's directory takes).
 */
export function workflowsText(list: WorkflowEntry[], startWith: (entry: WorkflowEntry) => string = (w) => w.name): string {
  if (list.length === 0) return 'No workflows found. Pass a workflow file path to start or validate.';
  const lines = ['Workflows (start one with start {"workflow": "<name>"}):'];
  for (const w of list) {
    const ref = startWith(w);
    const reach = ref === w.name ? '' : ref === w.path ? ' (its name and file name start another file: start this one by its path)' : ` (its name starts another file: start this one with "${ref}")`;
    lines.push(`- ${w.name}${w.version ? ` ${w.version}` : ''} — ${w.path}${reach}${w.description ? `\n  ${w.description}` : ''}`);
  }
  return lines.join('\n');
}

export function runsText(runs: RunSummary[]): string {
  if (runs.length === 0) return 'No runs. Start one with start {"workflow": "<name or path>"}.';
  const lines = ['Runs, newest first (call status {"runId": …} for the pending item and the seq to answer):'];
  for (const r of runs) lines.push(`- ${r.runId}  ${r.status}  ${r.workflow}  updated ${r.updatedAt}`);
  return lines.join('\n');
}

export function traceText(journal: { runId: string; events: JournalEvent[] }): string {
  const lines = [`Journal of run ${journal.runId} (${journal.events.length} events):`];
  for (const e of journal.events) {
    const { seq, at, type, nodeId, ...rest } = e;
    const detail = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
    lines.push(`${at} #${seq} ${type}${nodeId ? ` ${nodeId}` : ''}${detail ? `  ${detail}` : ''}`);
  }
  return lines.join('\n');
}

export function errorText(error: { code: string; message: string; fix?: string; file?: unknown; line?: unknown; col?: unknown; pointer?: unknown }): string {
  // Where, when known: file:line:col, else the JSON pointer (an invalid workflow's first finding).
  const at = typeof error.file === 'string' && typeof error.line === 'number' ? `${error.file}:${error.line}:${String(error.col ?? 1)}: ` : typeof error.pointer === 'string' && error.pointer !== '' ? `at ${error.pointer}: ` : '';
  const lines = [`Error ${error.code}: ${at}${error.message}`];
  if (error.fix) lines.push(`fix: ${error.fix}`);
  // Said only where a call can fix it: a server setting (E_TOOL_MODULE_BLOCKED) is the host's to change.
  if (error.code !== 'E_TOOL_MODULE_BLOCKED') lines.push('The server keeps serving: correct the call and try again (`runs` and `status` show where each run stands).');
  else lines.push('The server keeps serving; this workflow cannot run on it as it was started.');
  return lines.join('\n');
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
