/**
 * A workflow's tool module runs inside the command (--allow-tool-modules),
 * and may end the whole process with process.exit() — or leave a timer
 * that does so, or that keeps the process alive — before or after the
 * command has said anything. None of that is silent or changes what the
 * command said:
 * - ended before the command finished: E_TOOL_MODULE (the --json document
 *   and the `countersign:` line), exit 2;
 * - ended after it finished: the command's own status is kept, and stderr
 *   says a module ended the process;
 * - kept alive after it finished (a timer, a server left open): countersign
 *   ends the process after a grace second, saying so on stderr.
 * (countersign's own forced exit, signals.ts, says its own piece first.)
 */
import { claimExpiresAt } from '../run/tool-steps.js';
import type { RunRecord } from '../store/store.js';
import { moduleBlame, type ModuleActivity, type ModuleBlame } from '../tools/module-activity.js';
import { shellWord } from '../format/shell-word.js';
import { printJson, type Io } from './io.js';

let ownExit = false;

/** Called before countersign itself ends the process (a forced stop): not a module's doing. */
export function exitingOnPurpose(): void {
  ownExit = true;
}

/** How long a process whose command has finished may stay alive for a module's leftovers before it is ended. */
const LEFTOVER_GRACE_MS = 1_000;

export interface EarlyExitGuard {
  /** The command finished with `status`: from now on an exit keeps it. */
  finished(status: number): void;
}

/** What the command is, to say what an early end left behind and how to go on. */
export interface EarlyExitContext {
  command: string;
  /** ` --store DIR` as the command was given it ('' for the default). */
  store: string;
  /** The run the command names (step, status, trace, run --resume). */
  runId?: string;
  /** The files validate or graph was given. */
  files?: readonly string[];
  /** The command was given --allow-tool-modules: the commands a message suggests carry it too. */
  toolModules?: boolean;
}

/** What went wrong, for a command that says its own partial result (validate's files checked so far). */
export interface EndedEarly {
  message: string;
  fix: string;
  /** The module code that ended it, when known. */
  activity?: ModuleActivity;
}

let created: string | undefined;
let partial: ((ended: EndedEarly) => void) | undefined;
let runs: { get(runId: string): RunRecord | undefined } | undefined;

/** A run this command created (command.ts's store tells it): an early end names it. */
export function noteRunCreated(runId: string): void {
  created = runId;
  onCreated?.(runId);
}

let onCreated: ((runId: string) => void) | undefined;

/** The run this command created, if it did (E_OUTPUT names it: main.ts). */
export function runCreated(): string | undefined {
  return created;
}

/** `fn` is told the run this command creates, when it does (interrupted.ts names it to the launcher). */
export function whenRunCreated(fn: (runId: string) => void): void {
  onCreated = fn;
}

/** The command's store: an early end reads where the run stands (a synchronous read, as 'exit' allows). */
export function noteStore(store: { get(runId: string): RunRecord | undefined }): void {
  runs = store;
}

/** `say` writes the command's own output for an early end (its --json document, its lines) instead of the plain E_TOOL_MODULE document. */
export function sayWhenEndedEarly(say: ((ended: EndedEarly) => void) | undefined): void {
  partial = say;
}

/** Forgets what an earlier command in this process noted (main() may run more than once in a host's process). */
export function resetNotes(): void {
  created = undefined;
  onCreated = undefined;
  partial = undefined;
  runs = undefined;
}

export function guardEarlyExit(io: Io, json: boolean, context: EarlyExitContext): EarlyExitGuard {
  resetNotes();
  const began = new Date().toISOString();
  let status: number | undefined;
  const onExit = (code: number) => {
    if (ownExit) return;
    try {
      if (status === undefined) {
        const ended = endedEarly(code, context, began);
        if (partial) partial(ended);
        else if (json) printJson(io, { error: { code: 'E_TOOL_MODULE', message: ended.message, fix: ended.fix } });
        io.stderr.write(`countersign: E_TOOL_MODULE: ${ended.message}\n  fix: ${ended.fix}\n`);
        process.exitCode = 2;
        return;
      }
      if (code !== status) io.stderr.write(`countersign: warning: a tool module ended the process (status ${code}) after the command finished; the command's status ${status} is kept\n`);
      process.exitCode = status;
    } catch {
      // the streams are gone: the status still says it
    }
  };
  process.on('exit', onExit);
  return {
    finished(done: number) {
      status = done;
      // A module's timer or open handle would keep the process (and a waiting host) hanging after the result.
      setTimeout(() => {
        io.stderr.write(`countersign: warning: a tool module left something running (a timer, an open handle) after the command finished; the process is ended\n`);
        exitingOnPurpose();
        process.exit(done);
      }, LEFTOVER_GRACE_MS).unref();
    },
  };
}

/** What the command left of its run, read from the store when the process ends under it. */
export interface Standing {
  runId?: string;
  rec?: RunRecord;
  /** The run changed since the command began: it stored something (a step is one transaction). */
  changed: boolean;
  /** validate or graph: files, no run. */
  checking: boolean;
  /** start, or run without --resume: the command makes the run. */
  startsRun: boolean;
  /** The command had its store by then (before it, nothing can have been stored). */
  storeOpened: boolean;
}

export function standing(context: EarlyExitContext, began: string): Standing {
  const runId = context.runId ?? created;
  const rec = runId !== undefined ? readRun(runId) : undefined;
  return {
    ...(runId !== undefined ? { runId } : {}),
    ...(rec ? { rec } : {}),
    changed: rec !== undefined && rec.updatedAt >= began,
    checking: context.files !== undefined,
    startsRun: context.command === 'start' || (context.command === 'run' && context.runId === undefined),
    storeOpened: runs !== undefined,
  };
}

/** The message and fix for a process ended by status `code` before the command finished. */
function endedEarly(code: number, context: EarlyExitContext, began: string): EndedEarly {
  const blame = moduleBlame();
  const { runId, rec, changed, checking, startsRun } = standing(context, began);
  const left = checking ? ''
    : rec ? (changed ? `; run ${runId} now ${where(rec)}` : `; nothing of this command was stored: run ${runId} ${where(rec)}, as before`)
      : runId !== undefined ? `; run ${runId} may be left waiting at a tool node`
        : startsRun ? '; no run was stored' : '; a run it was stepping may be left waiting at a tool node';
  const rule = 'a tool module returns its tools, and a tool its result (or throws an error); neither may call process.exit nor throw from timers or callbacks';
  const mend = blame ? `fix ${blame.activity.module} (${rule})` : rule;
  const next = checking ? `, then ${context.command} again: ${context.files!.map(shellWord).join(' ')}`
    : rec && !changed ? ', then give the same command again'
      : runId !== undefined ? `; then see where run ${runId} stands with countersign status ${runId}${context.store} --allow-tool-modules`
        : startsRun ? `, then ${context.command} the workflow again`
          : `; then find the run with countersign runs${context.store} and see where it stands with countersign status <runId>${context.store} --allow-tool-modules`;
  return {
    message: `the process ended (status ${code}) before the command finished${cause(blame)}${checking ? '' : `: its result was never written${left}`}`,
    fix: `${mend}${next}`,
    ...(blame ? { activity: blame.activity } : {}),
  };
}

/** Who ended the process, as surely as module-activity.ts can say. */
function cause(blame: ModuleBlame | undefined): string {
  const how = 'called process.exit(), or threw where countersign cannot catch it';
  if (!blame) return ` (a tool module's process.exit(), or an error thrown where countersign cannot catch it, such as in a timer)`;
  const code = describe(blame.activity);
  if (blame.how === 'caller') return blame.running ? `: ${code} ${how}` : `: a timer or callback left by ${code} ${how}`;
  return blame.running ? `, while ${code} was running (it may have ${how})` : `, after ${code} last ran (a timer or callback it left may have ${how})`;
}

/** The run as stored now; undefined when it cannot be read (no store, none such, a store that fails). */
function readRun(runId: string): RunRecord | undefined {
  try {
    return runs?.get(runId);
  } catch {
    return undefined;
  }
}

/** `waits at tool node "w" (seq 3): …` — where a stored run stands. */
export function where(rec: RunRecord): string {
  if (rec.status === 'completed') return `is completed${rec.endNodeId ? ` at end node "${rec.endNodeId}"` : ''}`;
  if (rec.status === 'failed') return `failed${rec.error ? ` with ${rec.error.code}` : ''}`;
  if (!rec.pending) return `waits (seq ${rec.seq})`;
  const expires = rec.pending.kind === 'tool' ? claimExpiresAt(rec.pending) : undefined;
  return rec.pending.kind === 'tool'
    ? `waits at tool node "${rec.pending.nodeId}" (seq ${rec.seq}), whose tool may have been cut short${expires ? ` after it may have taken effect: a call is never re-run, so its claim expires at ${expires} and then the node fails with E_TOOL_INTERRUPTED (until then the run shows the tool as running)` : ''}`
    : `waits at node "${rec.pending.nodeId}" for an answer (seq ${rec.seq})`;
}

/** `tool "x"'s call in tool module /p/t.mjs (its /toolModules entry 0 in /p/flow.json)`. */
function describe(a: ModuleActivity): string {
  const entry = `its /toolModules entry ${a.pointer.slice('/toolModules/'.length)}${a.workflow ? ` in ${a.workflow}` : ''}`;
  const part = a.phase === 'run' ? `tool "${a.tool}" of ` : a.phase === 'args' ? `the argument check of tool "${a.tool}" of ` : 'the top-level code of ';
  return `${part}tool module ${a.module} (${entry})`;
}
