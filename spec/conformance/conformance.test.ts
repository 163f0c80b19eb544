/**
 * Data-driven conformance: every fixture under fixtures/ is a workflow,
 * the answers fed to it step by step, and the expected final state and
 * journal (required of every fixture that answers). The engine runs in process on the memory store with a
 * controllable clock.
 *
 * An answer too large to write out (over the 1 MiB limit) is written
 * `{ $repeat: "<text>", times: N }`: the string `<text>` N times (repeat.ts).
 * CLI invocations and their exit codes, beyond what these fixtures reach,
 * are fixtures of their own under fixtures/cli/ (cli-exit-codes.test.ts).
 *
 * A fixture with `tool` nodes names its tools under `tools`: each is a
 * host tool (createEngine({ tools })) that takes any object, writes its
 * `files` into the run's workspace and returns its `result` ({} unless
 * given), or throws an Error with its `throws` message. A host's tools
 * exist only in process, so such fixtures skip the
 * CLI and `countersign run` passes below.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { createEngine } from '../../engine/run/engine.js';
import { defineTool } from '../../engine/tools/tool.js';
import { createMemoryStore } from '../../engine/store/memory.js';
import { createSqliteStore } from '../../engine/store/sqlite.js';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cli } from '../helpers/cli.js';
import { describeEvent } from './journal.js';
import { withRepeatsExpanded } from './repeat.js';
import { tmpdir } from 'node:os';
import type { RunState } from '../../engine/run/contract.js';
import type { Workflow } from '../../engine/format/model.js';

/** Workspace files: path → text (objects are written as JSON); null deletes. */
type Files = Record<string, string | object | null>;

interface Step {
  /** Written into the run's workspace before the answer is given. */
  files?: Files;
  answer?: unknown;
  seq?: number | 'current';
  as?: string;
  advanceMs?: number;
  status?: boolean;
  expect?: Partial<Expectation>;
}

interface Expectation {
  status: string;
  nodeId: string;
  endNodeId: string;
  output: unknown;
  error: string;
  rejected: string;
  replayed: boolean;
  seq: number;
  attempt: number;
  directive: string;
  directiveIncludes: string[];
  errorsInclude: string[];
  throws: string;
  deadline: string;
  /** Workspace files after the step: path → exact text, or null for absent. */
  files: Record<string, string | null>;
  /** Texts a failed run's error.fix must hold. */
  fixIncludes: string[];
  /** The state's retriesSpent (an answer refused on the node's last retry, the run gone on): these fields. */
  retriesSpent: { nodeId?: string; code?: string; via?: string; to?: string };
}

/** A host tool a fixture's tool nodes run: it writes `files` into the workspace and returns `result`. */
interface FixtureTool {
  files?: Files;
  result?: unknown;
  /** The tool throws an Error with this message (after writing its files): the node's tool fails. */
  throws?: string;
}

interface Fixture {
  name: string;
  workflow: Workflow;
  input?: Record<string, unknown>;
  /** The run's workspace starts with these files (a fresh temp directory per run). */
  files?: Files;
  startThrows?: string;
  steps?: Step[];
  /** Host tools by name, for the workflow's tool nodes (in process only). */
  tools?: Record<string, FixtureTool>;
  /**
   * `journalIncludes`: events the journal must hold, each given by some of
   * its fields (a string field's text must contain the given text, as for
   * a `fix`; other values are compared as they are).
   */
  expect: Partial<Expectation> & { journal?: string[]; journalIncludes?: Array<Record<string, unknown>> };
}

function toolsOf(fixture: Fixture) {
  return Object.entries(fixture.tools ?? {}).map(([name, tool]) => defineTool({
    name,
    class: 'read',
    inputSchema: { type: 'object' },
    run: (_args, ctx) => {
      writeFiles(ctx.workspace!, tool.files);
      if (tool.throws !== undefined) throw new Error(tool.throws);
      return (tool.result ?? {}) as never;
    },
  }));
}

const dir = join(fileURLToPath(new URL('.', import.meta.url)), 'fixtures');
const Conformance = suite('conformance');

// Every fixture runs on both shipped stores: SQLite round-trips every
// snapshot through JSON, the memory store keeps objects.
const STORES = {
  memory: () => createMemoryStore(),
  sqlite: () => createSqliteStore(mkdtempSync(join(tmpdir(), 'countersign-conf-'))),
};

for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
  const fixture = withRepeatsExpanded(parse(readFileSync(join(dir, file), 'utf8')) as Fixture);
  for (const [storeName, makeStore] of Object.entries(STORES)) {
  Conformance(`${file.replace(/\.ya?ml$/, '')} [${storeName}]: ${fixture.name}`, async () => {
    let clock = Date.parse('2026-01-01T00:00:00.000Z');
    let ids = 0;
    const store = makeStore();
    const engine = createEngine({ store, now: () => new Date(clock), newRunId: () => `run-${++ids}`, tools: toolsOf(fixture) });
    const workspace = makeWorkspace(fixture.files);
    let state: RunState;
    try {
      state = await engine.start(fixture.workflow, { input: fixture.input as never, workspace });
    } catch (e) {
      if (fixture.startThrows) {
        assert.is((e as { code?: string }).code, fixture.startThrows);
        return;
      }
      throw e;
    }
    assert.not.ok(fixture.startThrows, `expected start to throw ${fixture.startThrows}`);
    for (const [i, step] of (fixture.steps ?? []).entries()) {
      if (step.advanceMs !== undefined) clock += step.advanceMs;
      writeFiles(workspace, step.files);
      try {
        if (step.answer !== undefined) {
          const seq = step.seq === 'current' ? state.seq : step.seq;
          state = await engine.submit(state.runId, step.answer, { seq, as: step.as });
        } else if (step.status) {
          state = await engine.status(state.runId);
        }
      } catch (e) {
        if (step.expect?.throws) {
          assert.is((e as { code?: string }).code, step.expect.throws, `step ${i}`);
          continue;
        }
        throw e;
      }
      assert.not.ok(step.expect?.throws, `step ${i}: expected ${step.expect?.throws}`);
      if (step.expect) check(state, step.expect, `step ${i}`, workspace);
    }
    check(state, fixture.expect, 'final', workspace);
    // Every fixture that answers gives its journal whole (issue §8: the expected final state and journal), so a
    // wrong, missing or extra event fails it; the journal it got is shown, to be checked by eye and pasted in.
    if ((fixture.steps ?? []).length > 0 && !fixture.expect.journal) {
      const { events } = await engine.trace(state.runId);
      assert.unreachable(`${file} answers but gives no expect.journal; its journal is:\n${events.map((e) => `    - ${JSON.stringify(describeEvent(e))}`).join('\n')}`);
    }
    if (fixture.expect.journal) {
      const { events } = await engine.trace(state.runId);
      const seen = events.map(describeEvent);
      assert.equal(seen, fixture.expect.journal, 'journal');
    }
    if (fixture.expect.journalIncludes) {
      const { events } = await engine.trace(state.runId);
      for (const want of fixture.expect.journalIncludes) {
        const fits = (e: Record<string, unknown>) => Object.entries(want).every(([k, v]) => (typeof v === 'string' && typeof e[k] === 'string' ? (e[k] as string).includes(v) : JSON.stringify(e[k]) === JSON.stringify(v)));
        assert.ok(events.some((e) => fits(e as Record<string, unknown>)), `journal lacks ${JSON.stringify(want)}: ${JSON.stringify(events)}`);
      }
    }
    store.close();
  });
  }
}

function makeWorkspace(files: Files | undefined): string {
  const workspace = mkdtempSync(join(tmpdir(), 'countersign-ws-'));
  writeFiles(workspace, files);
  return workspace;
}

function writeFiles(workspace: string, files: Files | undefined): void {
  for (const [path, content] of Object.entries(files ?? {})) {
    const at = join(workspace, path);
    if (content === null) rmSync(at, { force: true });
    else {
      mkdirSync(dirname(at), { recursive: true });
      writeFileSync(at, typeof content === 'string' ? content : JSON.stringify(content));
    }
  }
}

function check(state: RunState, want: Partial<Expectation>, where: string, workspace?: string): void {
  for (const [path, content] of Object.entries(want.files ?? {})) {
    const at = join(workspace!, path);
    if (content === null) assert.not.ok(existsSync(at), `${where}: ${path} should not exist`);
    else assert.is(existsSync(at) ? readFileSync(at, 'utf8') : null, typeof content === 'string' ? content : JSON.stringify(content), `${where}: ${path}`);
  }
  if (want.status !== undefined) assert.is(state.status, want.status, `${where}: status ${JSON.stringify(state)}`);
  if (want.seq !== undefined) assert.is(state.seq, want.seq, `${where}: seq`);
  if (want.replayed !== undefined) assert.is(Boolean(state.replayed), want.replayed, `${where}: replayed`);
  if (state.status === 'waiting') {
    const text = state.pending.kind === 'review' ? state.pending.prompt : state.pending.kind === 'tool' ? state.pending.tool : state.pending.directive;
    if (want.nodeId !== undefined) assert.is(state.pending.nodeId, want.nodeId, `${where}: pending node`);
    if (want.attempt !== undefined) assert.is(state.pending.attempt, want.attempt, `${where}: attempt`);
    if (want.deadline !== undefined) assert.is(state.pending.deadline, want.deadline, `${where}: deadline`);
    if (want.directive !== undefined) assert.is(text, want.directive, `${where}: directive`);
    for (const s of want.directiveIncludes ?? []) assert.ok(text.includes(s), `${where}: directive lacks ${s}: ${text}`);
    if (want.rejected !== undefined) assert.is(state.rejected?.code, want.rejected, `${where}: rejected`);
    for (const s of want.errorsInclude ?? []) {
      assert.ok((state.pending.errors ?? []).some((e) => e.includes(s)), `${where}: errors lack "${s}": ${JSON.stringify(state.pending.errors)}`);
    }
  } else {
    assert.not.ok(want.nodeId, `${where}: expected waiting at ${want.nodeId}, got ${state.status}`);
  }
  if (want.endNodeId !== undefined) assert.is(state.status === 'completed' ? state.endNodeId : undefined, want.endNodeId, `${where}: endNodeId`);
  if (want.output !== undefined) assert.equal(state.status === 'completed' ? state.output : undefined, want.output, `${where}: output`);
  if (want.error !== undefined) assert.is(state.status === 'failed' ? state.error.code : undefined, want.error, `${where}: error ${JSON.stringify(state)}`);
  for (const [k, v] of Object.entries(want.retriesSpent ?? {})) {
    assert.is((state.retriesSpent as Record<string, unknown> | undefined)?.[k], v, `${where}: retriesSpent.${k} ${JSON.stringify(state.retriesSpent)}`);
  }
  for (const s of want.fixIncludes ?? []) {
    const fix = state.status === 'failed' ? state.error.fix ?? '' : '';
    assert.ok(fix.includes(s), `${where}: error.fix lacks "${s}": ${JSON.stringify(state.status === 'failed' ? state.error : state)}`);
  }
}

Conformance.run();

/**
 * The same fixtures through the CLI: each step's exit code follows from the
 * state the in-process engine reaches on the same answers, run beside it
 * (0 advanced/completed/replayed, 5 rejected, 1 failed, 2 for E_SEQ /
 * unknown or finished runs / an invalid workflow), and the CLI's state
 * must be that one. Fixtures that move the clock need the in-process
 * engine and are skipped here: deadlines through the CLI, on the wall
 * clock, are fixtures/cli/deadline-*.yaml and run-deadline.yaml. So are
 * fixtures with host tools (`tools`), which no CLI process has.
 */
const ExitCodes = suite('conformance through the CLI (exit codes)');

for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
  const fixture = withRepeatsExpanded(parse(readFileSync(join(dir, file), 'utf8')) as Fixture);
  if (fixture.tools || (fixture.steps ?? []).some((s) => s.advanceMs !== undefined || s.status)) continue;
  ExitCodes(`${file.replace(/\.ya?ml$/, '')}: exit codes`, async () => {
    const work = mkdtempSync(join(tmpdir(), 'countersign-exit-'));
    const wfFile = join(work, 'workflow.json');
    writeFileSync(wfFile, JSON.stringify(fixture.workflow));
    const store = join(work, 'store');
    const workspace = makeWorkspace(fixture.files);
    const startArgs = ['start', wfFile, '--json', '--workspace', workspace, ...(fixture.input ? ['--input', JSON.stringify(fixture.input)] : [])];
    const started = await cli(startArgs, { store });
    if (fixture.startThrows) {
      assert.is(started.code, 2);
      assert.is(started.json.error.code, fixture.startThrows);
      return;
    }
    let state = started.json as RunState;
    // The reference: the in-process engine on a workspace of its own, given the same answers.
    const refWorkspace = makeWorkspace(fixture.files);
    const reference = createEngine({ store: createMemoryStore() });
    let ref = await reference.start(fixture.workflow, { input: fixture.input as never, workspace: refWorkspace });
    const exitFor = (st: RunState) => (st.status === 'failed' ? 1 : st.status === 'waiting' && st.rejected && !st.replayed ? 5 : 0);
    const shape = (st: RunState) => ({
      status: st.status,
      seq: st.seq,
      node: st.status === 'waiting' ? st.pending.nodeId : st.status === 'completed' ? st.endNodeId : st.error.code,
      rejected: st.status === 'waiting' ? st.rejected?.code : undefined,
      replayed: st.replayed,
    });
    assert.equal(shape(state), shape(ref), 'start');
    assert.is(started.code, exitFor(ref));
    for (const [i, step] of (fixture.steps ?? []).entries()) {
      writeFiles(workspace, step.files);
      writeFiles(refWorkspace, step.files);
      const seq = step.seq === 'current' ? state.seq : step.seq;
      let refThrew: string | undefined;
      try {
        ref = await reference.submit(ref.runId, step.answer, { seq, as: step.as });
      } catch (e) {
        refThrew = (e as { code?: string }).code;
      }
      const args = ['step', state.runId, '--response', JSON.stringify(step.answer), '--json'];
      if (seq !== undefined) args.push('--seq', String(seq));
      if (step.as) args.push('--as', step.as);
      const r = await cli(args, { store });
      if (refThrew !== undefined || step.expect?.throws) {
        assert.is(r.code, 2, `step ${i}`);
        assert.is(r.json.error.code, refThrew, `step ${i}`);
        if (step.expect?.throws) assert.is(refThrew, step.expect.throws, `step ${i}`);
        continue;
      }
      state = r.json as RunState;
      assert.equal(shape(state), shape(ref), `step ${i}: the CLI's state is the engine's`);
      assert.is(r.code, exitFor(ref), `step ${i}: ${r.stdout}`);
      if (step.expect) check(state, step.expect, `cli step ${i}`, workspace);
    }
    // Run ids are random outside the in-process engine's injected generator.
    const expect = JSON.parse(JSON.stringify(fixture.expect).replaceAll('"run-1"', JSON.stringify(state.runId)));
    check(state, expect, 'cli final', workspace);
  });
}

ExitCodes.run();

/**
 * The same fixtures driven by `countersign run` with a scripted agent: the
 * answers the engine processed, keyed by the node that was waiting, become
 * the script. Exit codes follow from the expected state: 0 completed,
 * 1 failed, 3 stopped while still waiting (the script runs out). Fixtures
 * that move the clock, replay seqs or switch identities need `step`. The
 * other ways `run` ends — 2 for an invalid workflow or usage, 3 for
 * --max-steps and adapter faults, deadlines bounding the agent's wait —
 * are fixtures/cli/run-*.yaml (cli-exit-codes.test.ts).
 */
const ThroughRun = suite('conformance through countersign run (exit codes 0, 1, 3)');

for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
  const fixture = withRepeatsExpanded(parse(readFileSync(join(dir, file), 'utf8')) as Fixture);
  const steps = fixture.steps ?? [];
  // Review fixtures write files between answers and need a reviewer identity: spec/review covers `run` with a reviewer.
  // A script entry that is no JSON object is the script's fault (E_AGENT_OUTPUT, no attempt spent), not an answer: spec/hosts covers it.
  // Host tools (`tools`) exist only in process.
  const notAnObject = (a: unknown) => a !== null && (typeof a !== 'object' || Array.isArray(a));
  if (fixture.startThrows || fixture.files || fixture.tools || steps.some((s) => s.files || s.advanceMs !== undefined || s.status || s.seq !== undefined || s.as || s.expect?.throws || notAnObject(s.answer))) continue;
  ThroughRun(`${file.replace(/\.ya?ml$/, '')}: run`, async () => {
    const engine = createEngine({ store: createMemoryStore() });
    let state = await engine.start(fixture.workflow, { input: fixture.input as never });
    const script: Record<string, unknown[]> = {};
    for (const step of steps) {
      if (state.status !== 'waiting') break;
      (script[state.pending.nodeId] ??= []).push(step.answer);
      state = await engine.submit(state.runId, step.answer);
    }
    const work = mkdtempSync(join(tmpdir(), 'countersign-run-'));
    writeFileSync(join(work, 'workflow.json'), JSON.stringify(fixture.workflow));
    writeFileSync(join(work, 'script.json'), JSON.stringify(script));
    const args = ['run', join(work, 'workflow.json'), '--agent', `scripted:${join(work, 'script.json')}`, '--json'];
    if (fixture.input) args.push('--input', JSON.stringify(fixture.input));
    const r = await cli(args, { store: join(work, 'store') });
    const want = fixture.expect.status === 'completed' ? 0 : fixture.expect.status === 'failed' ? 1 : 3;
    assert.is(r.code, want, r.stderr);
    assert.is(r.json.status, fixture.expect.status);
    if (want === 3) assert.is(r.json.error.code, 'E_AGENT_SCRIPT_EXHAUSTED');
    if (fixture.expect.endNodeId) assert.is(r.json.endNodeId, fixture.expect.endNodeId);
    if (fixture.expect.error) assert.is(r.json.error.code, fixture.expect.error);
    if (fixture.expect.output !== undefined) {
      const expected = JSON.parse(JSON.stringify(fixture.expect.output).replaceAll('"run-1"', JSON.stringify(r.json.runId)));
      assert.equal(r.json.output, expected);
    }
  });
}

ThroughRun.run();
