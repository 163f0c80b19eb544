/**
 * The review loop's cost in the engine, without the agents (issue 3): one
 * iteration is the review answer (`{issues_count}`; the report is written
 * beforehand) plus the fix answer (`{}`; an artifact file is changed
 * beforehand), on a workspace holding an artifact of realistic size.
 * Only the two submits are timed: they include reading and checking the
 * report, hashing the artifact when the review is answered and again when
 * the fix hands it back, and moving the report aside.
 *
 * The same graph with the delegate-review node replaced by a plain
 * agent-directive (no files at all) is measured the same way, so the
 * ratio shows what the review contract costs on top of two plain steps.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, createMemoryStore, createSqliteStore, type RunState, type Store, type WaitingState } from '../engine/index.js';
import type { Workflow, WorkflowNode } from '../engine/format/model.js';
import { hashArtifacts } from '../engine/review/artifacts.js';

export type BenchRow = [name: string, value: string, target: string, ratio: string];

const FILES = 20;
const FILE_BYTES = 4096;
/** The schema allows at most 100 reviews per node and run; a fresh run is started (untimed) before that. */
const MAX_ITERATIONS = 100;
const ITERATIONS_PER_RUN = MAX_ITERATIONS - 1;
const ISSUES = ['src/file-03.ts: the exported function has no documentation', 'src/file-11.ts: the error case returns undefined instead of throwing'];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const µs = (from: bigint) => Number(process.hrtime.bigint() - from) / 1000;

/** produce → review → check → fix → review, as in workflows/review-fix-loop.json; `plain` swaps the review for a directive. */
export function reviewLoopWorkflow(plain: boolean): Workflow {
  const review: WorkflowNode = plain
    ? {
        type: 'agent-directive',
        id: 'review',
        directive: 'Review src and answer the number of issues.',
        completionCondition: 'reviewed',
        inputSchema: { type: 'object', properties: {}, globalInputs: ['issues_count'], required: ['issues_count'] },
        connections: { success: 'check' },
      }
    : {
        type: 'delegate-review',
        id: 'review',
        artifacts: ['src'],
        criteria: ['Every exported function is documented', 'No errors: every error case throws'],
        context: ['.'],
        maxIterations: MAX_ITERATIONS,
        connections: { success: 'check', exhausted: 'done' },
      };
  return {
    metadata: { name: plain ? 'plain-loop' : 'review-loop', version: '1.0.0', description: 'bench: a review→fix loop answered forever' },
    variableRegistry: { issues_count: { type: 'integer', minimum: 0, description: 'issues in the latest review' } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'produce' } },
      { type: 'agent-directive', id: 'produce', agent: 'producer', directive: 'Write src.', completionCondition: 'written', connections: { success: 'review' } },
      review,
      { type: 'condition', id: 'check', condition: { operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 }, connections: { true: 'done', false: 'fix' } },
      {
        type: 'agent-directive',
        id: 'fix',
        agent: 'producer',
        directive: 'Fix the {{issues_count}} issue(s) in the report.',
        completionCondition: 'fixed',
        inputSchema: { type: 'object', properties: { unchanged_reason: { type: 'string' } } },
        connections: { success: 'review' },
      },
      { type: 'end', id: 'done', finalOutput: ['issues_count'] },
    ],
  };
}

/** A workspace with `src/` holding FILES files of FILE_BYTES each. */
function artifactWorkspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'countersign-bench-review-'));
  mkdirSync(join(ws, 'src'));
  for (let i = 0; i < FILES; i++) writeFileSync(join(ws, 'src', fileName(i)), sourceText(i, 0));
  return ws;
}

const fileName = (i: number) => `file-${String(i).padStart(2, '0')}.ts`;

/** FILE_BYTES of plausible source text whose content depends on `version`. */
function sourceText(i: number, version: number): string {
  const line = `export function f${i}_${version}(value: number): number { return value * ${i + 1} + ${version}; }\n`;
  return line.repeat(Math.ceil(FILE_BYTES / line.length)).slice(0, FILE_BYTES - 1) + '\n';
}

/** Median µs per iteration (review answer + fix answer) over `iterations`, after a tenth as warm-up. */
async function iterationLatency(store: Store, plain: boolean, iterations: number): Promise<number> {
  const ws = artifactWorkspace();
  try {
    const engine = createEngine({ store });
    const workflow = reviewLoopWorkflow(plain);
    const samples: number[] = [];
    let version = 0;
    while (samples.length < iterations) {
      let s = await engine.start(workflow, { workspace: ws, as: 'producer' });
      s = await engine.submit(s.runId, {}, { seq: s.seq, as: 'producer' });
      for (let i = 0; i < ITERATIONS_PER_RUN && samples.length < iterations; i++) {
        const review = waitingAt(s, 'review');
        if (review.pending.kind === 'review' && review.pending.contract === 'issues') writeFileSync(review.pending.report, JSON.stringify({ issues: ISSUES }));
        let t = process.hrtime.bigint();
        s = await engine.submit(review.runId, { issues_count: ISSUES.length }, { seq: review.seq, as: 'reviewer' });
        let spent = µs(t);
        const fix = waitingAt(s, 'fix');
        version++;
        writeFileSync(join(ws, 'src', fileName(version % FILES)), sourceText(version % FILES, version));
        t = process.hrtime.bigint();
        s = await engine.submit(fix.runId, {}, { seq: fix.seq, as: 'producer' });
        spent += µs(t);
        samples.push(spent);
      }
    }
    return median(samples.slice(Math.floor(iterations / 10)));
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

function waitingAt(s: RunState, nodeId: string): WaitingState {
  if (s.status !== 'waiting' || s.pending.nodeId !== nodeId || s.rejected) {
    throw new Error(`bench review loop expected to wait at ${nodeId}: ${JSON.stringify(s)}`);
  }
  return s;
}

/** Median µs of one artifact hash: the engine takes two per iteration. */
function hashLatency(samples: number): number {
  const ws = artifactWorkspace();
  try {
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t = process.hrtime.bigint();
      hashArtifacts([join(ws, 'src')], []);
      times.push(µs(t));
    }
    return median(times.slice(Math.floor(samples / 10)));
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

/** The bench rows for the review loop, in bench/run.ts's four-column format. */
export async function reviewBench(): Promise<BenchRow[]> {
  const size = `${FILES} files × ${FILE_BYTES / 1024} KB`;
  const row = (store: string, review: number, plain: number): BenchRow => [
    `review iteration, ${store}, ${size} (2 answers)`,
    `${review.toFixed(1)} µs`,
    `plain twin ${plain.toFixed(1)} µs`,
    `${(review / plain).toFixed(2)}× the same loop without delegate-review`,
  ];
  const memory = [await iterationLatency(createMemoryStore(), false, 3_000), await iterationLatency(createMemoryStore(), true, 3_000)];
  const onDisk = [await onSqlite(false, 1_000), await onSqlite(true, 1_000)];
  return [
    row('memory', memory[0], memory[1]),
    row('SQLite', onDisk[0], onDisk[1]),
    [`  (one artifact hash, ${size}; two per iteration)`, `${hashLatency(500).toFixed(1)} µs`, '', ''],
  ];
}

/** iterationLatency on a fresh SQLite store outside the workspace, removed afterwards. */
async function onSqlite(plain: boolean, iterations: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-bench-review-store-'));
  const store = createSqliteStore(dir);
  try {
    return await iterationLatency(store, plain, iterations);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
