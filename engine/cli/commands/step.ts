import { printJson, readJsonArg, reportFailure, usage } from '../io.js';
import type { RunState } from '../../run/contract.js';
import { noStore } from '../../store/open.js';
import { checkRunId } from '../../run/engine-checks.js';
import { renderState, storeArg, withStore, withToolModules } from '../render.js';
import { journalMark, printToolsRun, toolsRunSince } from '../tools-run.js';
import { STORE_OPTIONS, TOOL_MODULE_OPTIONS, withEngine, type Command } from './command.js';
import { shellWord } from '../../format/shell-word.js';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Io } from '../io.js';
import { answerHint } from '../../run/step-hint.js';
import type { Pending } from '../../nodes/pending.js';

export const command: Command = {
  usage: 'countersign step <runId> --response JSON|@file|- [--seq N] [--as ID] [--allow-tool-modules] [--store DIR] [--json]\n  exit 0 advanced, completed or replayed; 5 answer rejected, or too late (its deadline fired first: the answer was not taken), while the run waits; 0 too when the timeout route completed the run (`late` in the output); 1 run failed; 2 usage, unknown run, E_SEQ, E_RUN_NOT_WAITING (the run has ended), E_IDENTITY_REQUIRED or E_IDENTITY_RESERVED',
  options: { ...STORE_OPTIONS, ...TOOL_MODULE_OPTIONS, response: { type: 'string' }, seq: { type: 'string' }, as: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw usage('step takes exactly one run id', 'countersign step <runId> --response <answer> (`countersign runs` lists the runs)');
    // Refused here, in the CLI's words (the fix is `countersign runs`), before any store is looked for.
    checkRunId(positionals[0]);
    // Fixes name the run and the store as given, so each runs as printed.
    const id = shellWord(positionals[0]);
    const store = storeArg(values.store as string | undefined);
    if (values.response === undefined) throw usage('step needs --response with the answer (JSON, @file or - for stdin)', `countersign step ${id}${store} --response '{"field": "value"}' (\`countersign status ${id}${store}\` shows the schema the answer must fit)`);
    let seq: number | undefined;
    if (values.seq !== undefined) {
      seq = /^\s*-?\d+\s*$/.test(String(values.seq)) ? Number(values.seq) : Number.NaN;
      // A whole number that was never issued (0, negative, ahead) is the engine's E_SEQ.
      if (!Number.isInteger(seq)) throw usage(`--seq must be a whole number, got "${String(values.seq)}"`, `pass the seq the run shows (\`countersign status ${id}${store}\`), or leave --seq out`);
      // Past 2^53 a number is no longer the one typed: said as typed, never as another seq.
      if (!Number.isSafeInteger(seq)) throw usage(`--seq ${String(values.seq).trim()} is larger than any seq (the largest is ${Number.MAX_SAFE_INTEGER})`, `pass the seq the run shows: \`countersign status ${id}${store}\``);
    }
    const answer = await readJsonArg(values.response as string, '--response', io);
    // Without --seq the answer is for the item pending when it was made. An
    // item issued after that (another process answered first) is not the one it meant.
    const madeAt = answerMadeAt(values.response as string, io);
    const { state, toolsRun, toolModules } = await withEngine(values, io, async (engine, store) => {
      const mark = journalMark(store, positionals[0]);
      const next = await engine.submit(positionals[0], answer, { seq, as: values.as as string | undefined, ...(seq === undefined ? { madeAt } : {}) });
      return { state: next, toolsRun: toolsRunSince(store, positionals[0], mark), toolModules: (await engine.info(positionals[0])).toolModules };
    }, (dir) => {
      throw noStore(positionals[0], dir);
    });
    // The commands suggested below, run as printed, find the run and may load its tool modules.
    const hint = (text: string) => withStore(toolModules ? withToolModules(text) : text, values.store as string | undefined);
    printToolsRun(io, toolsRun);
    if (values.json) printJson(io, toolsRun.length > 0 ? { ...state, toolsRun } : state);
    else io.stdout.write(renderState(state, values.store as string | undefined, { seqGiven: seq !== undefined, toolModules }));
    // The identity a suggested step needs: a review (or a loop's node) takes none other, and the one given is kept.
    const asFor = (p: Extract<RunState, { status: 'waiting' }>['pending'], selfReview = false): string => selfReview ? ' --as <reviewer identity>'
      : typeof values.as === 'string' ? ` --as ${shellWord(values.as)}`
      : p.kind === 'review' && p.contract !== 'decision' ? ' --as <reviewer identity>'
      : p.kind === 'directive' && p.requiresIdentity ? ' --as <your identity>' : '';
    // Without --seq a replay means another answer reached the run first (accepted, or rejected and the node asked again): said, never silent.
    if (seq === undefined && state.replayed && !state.late) {
      io.stderr.write(hint(state.status === 'waiting'
        ? `countersign: warning: another answer reached run ${state.runId} first, so this one was not used; the run now waits at node "${state.pending.nodeId}", seq ${state.seq}: ${isPinned(state.pending) ? answerHint(state.runId, state.seq, state.pending) : `answer it with \`countersign step ${state.runId} --seq ${state.seq}${asFor(state.pending)} --response …\``}\n`
        : `countersign: warning: another answer reached run ${state.runId} first and the run ${state.status === 'completed' ? 'completed' : 'failed'}, so this answer was not used\n`));
    }
    // Said on stderr whatever the output: the answer given was not used.
    if (state.late) io.stderr.write(`countersign: ${state.late.code}: ${state.late.errors.join('; ')}\n`);
    // A rejected answer is an error of this command too (exit 5): said the same way, with what to do next.
    if (state.status === 'waiting' && state.rejected && !state.replayed) {
      // The command answers as this one did: a review (or a loop's node) needs an identity, and the one given is kept.
      // Refused for who answered (the producer reviewing its own work): the fix needs another identity, never the same one again.
      const as = asFor(state.pending, state.rejected.code === 'E_SELF_REVIEW');
      reportFailure(io, {
        code: state.rejected.code,
        message: `the answer was rejected: ${state.rejected.errors.join('; ')}`,
        nodeId: state.pending.nodeId,
        fix: hint(isPinned(state.pending)
          ? answerHint(state.runId, state.seq, state.pending)
          : `answer node "${state.pending.nodeId}" again, fixing what is listed: \`countersign step ${state.runId} --seq ${state.seq}${as} --response …\``),
      });
    }
    // Rejected with no retries left: the run moved on by the node's own route
    // (exit 0, or 1 if it then failed), but the answer was not taken — said so.
    if (state.retriesSpent && !state.replayed) {
      const r = state.retriesSpent;
      io.stderr.write(`countersign: ${r.code}: the answer was rejected: ${r.errors.join('; ')}; node "${r.nodeId}" had no retries left, so the run took its ${r.via} route to "${r.to}"\n`);
    }
    // A replay changed nothing: exit 0, as for every replay (a host retrying after a crash
    // must not read the run's old failure as its retry's); the state printed says how the run stands.
    if (state.status === 'failed' && !state.replayed) {
      reportFailure(io, state.error);
      return 1;
    }
    // The exit code follows the run, as the issue's table has it: too late while the run still waits (where the
    // timeout route led) is 5, as for a rejection; a run the timeout route completed is 0, as a replay is, the
    // answer's fate said by `late` in the output and the E_TIMEOUT line on stderr.
    return state.status === 'waiting' && (state.rejected || state.late) && !state.replayed ? 5 : 0;
  },
};

/**
 * When a --response answer was made. Written on the command line, or in a
 * file that was there already, it was made when the command was launched:
 * two `step`s launched together answer the same item, whichever starts
 * faster (one applies, the other replays). Read from standard input (a
 * pipeline whose commands all start together), or from a file written
 * after the launch, it was made once it was read.
 */
function answerMadeAt(response: string, io: Io): Date {
  const now = (io.now ?? (() => new Date()))();
  const launched = io.startedAt ?? now;
  if (response === '-') return now;
  if (!response.startsWith('@')) return launched;
  try {
    const info = statSync(resolve(io.cwd, response.slice(1)));
    if (!info.isFile()) return now; // a FIFO or /dev/stdin: its writer may answer after the launch
    return new Date(Math.min(now.getTime(), Math.max(launched.getTime(), Math.floor(info.mtimeMs))));
  } catch {
    return now;
  }
}

/** A review only the review gate's reviewer may answer: no suggested step can. */
function isPinned(p: Pending): boolean {
  return p.kind === 'review' && p.contract === 'decision' && p.answererPinned === true;
}
