/**
 * `npm run bench`: measures in process and prints medians against the
 * targets. Figures are recorded by hand in bench/RESULTS.md with the
 * machine and date; nothing here is asserted.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, createMemoryStore, createSqliteStore, validateWorkflow, type Store } from '../engine/index.js';
import { ringWorkflow, selfLoopWorkflow } from './generate.js';
import { reviewBench } from './review.js';
import { mcpStepBench } from './mcp.js';
import type { Workflow } from '../engine/format/model.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

if (process.argv[2] === 'rss') {
  // Child mode: 10,000 waiting runs of a 11-node workflow in one memory store.
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().rss;
  const engine = createEngine({ store: createMemoryStore() });
  const wf = ringWorkflow(3);
  for (let i = 0; i < 10_000; i++) await engine.start(wf);
  gc?.();
  const rss = process.memoryUsage().rss;
  console.log(JSON.stringify({ rss: rss / 2 ** 20, runs: (rss - before) / 2 ** 20 }));
  process.exit(0);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows: Array<[string, string, string, string]> = [];

function report(name: string, value: number, unit: string, target: number) {
  const ratio = value / target;
  rows.push([name, `${value.toFixed(unit === 'µs' ? 1 : 2)} ${unit}`, `≤ ${target} ${unit}`, `${ratio.toFixed(2)}× of target ${ratio <= 1 ? '✓' : '✗'}`]);
}

async function stepLatency(store: Store, wf: Workflow, steps: number): Promise<number> {
  const engine = createEngine({ store });
  let state = await engine.start(wf);
  const samples: number[] = [];
  for (let i = 0; i < steps; i++) {
    const answer = { score: i % 100, last_score: i % 100 };
    const t = process.hrtime.bigint();
    state = await engine.submit(state.runId, answer, { seq: state.seq });
    samples.push(Number(process.hrtime.bigint() - t) / 1000);
    if (state.status !== 'waiting') throw new Error(`bench run ended: ${JSON.stringify(state)}`);
  }
  return median(samples.slice(Math.floor(steps / 10))); // drop warm-up
}

const dirs: string[] = [];
function tempStore(): Store {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-bench-'));
  dirs.push(dir);
  return createSqliteStore(dir);
}

// 1. submit → next pending
// The small loop is one directive answered again and again; the rings
// cross a directive, an expression and a condition per step (the machine
// folds the transient nodes into the answer's transition: one microstep).
report('step, memory, small loop (1 node/step)', await stepLatency(createMemoryStore(), selfLoopWorkflow(), 20_000), 'µs', 20);
report('step, memory, 5-node ring (3 nodes/step)', await stepLatency(createMemoryStore(), ringWorkflow(1), 20_000), 'µs', 20);
report('step, memory, 302-node ring (3 nodes/step)', await stepLatency(createMemoryStore(), ringWorkflow(100), 20_000), 'µs', 20);
report('step, SQLite, small loop (1 node/step)', await stepLatency(tempStore(), selfLoopWorkflow(), 5_000), 'µs', 300);
report('step, SQLite, 302-node ring (3 nodes/step)', await stepLatency(tempStore(), ringWorkflow(100), 5_000), 'µs', 300);

// 1b. one review→fix iteration (issue 3): the review answer and the fix
// answer, with the report and the artifact change written beforehand, so
// the agents' own work is not counted.
rows.push(...(await reviewBench()));

// 2. validating the 302-node workflow, warm (fresh object each time, same content)
{
  const samples: number[] = [];
  for (let i = 0; i < 30; i++) {
    const wf = ringWorkflow(100);
    const t = performance.now();
    const r = validateWorkflow(wf);
    samples.push(performance.now() - t);
    if (!r.ok) throw new Error(JSON.stringify(r.errors.slice(0, 3)));
  }
  report('validate 302 nodes, warm', median(samples.slice(5)), 'ms', 50);
}

// 3. one CLI step, wall time (a real process against a SQLite store)
{
  const store = mkdtempSync(join(tmpdir(), 'countersign-bench-cli-'));
  dirs.push(store);
  // A validator cache of its own: the first step compiles the node's answer validator, later ones load it.
  const cache = mkdtempSync(join(tmpdir(), 'countersign-bench-cache-'));
  dirs.push(cache);
  const launcher = join(ROOT, 'engine/cli/countersign.mjs');
  const wf = join(ROOT, 'spec/fixtures/cli/two-step.json');
  const cliStep = (env: NodeJS.ProcessEnv) => {
    const started = spawnSync(process.execPath, [launcher, 'start', wf, '--json'], { env, encoding: 'utf8' });
    const runId = JSON.parse(started.stdout).runId as string;
    const t = performance.now();
    const r = spawnSync(process.execPath, [launcher, 'step', runId, '--response', '{"words":5}', '--json'], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return performance.now() - t;
  };
  const samples: number[] = [];
  for (let i = 0; i < 12; i++) samples.push(cliStep({ ...process.env, COUNTERSIGN_STORE: store, COUNTERSIGN_CACHE: cache }));
  report('one CLI step (process wall time)', median(samples.slice(2)), 'ms', 150);
  const uncached: number[] = [];
  for (let i = 0; i < 8; i++) uncached.push(cliStep({ ...process.env, COUNTERSIGN_STORE: store, COUNTERSIGN_CACHE: 'off' }));
  rows.push(['  (without the validator cache: ajv loaded, schema compiled)', `${median(uncached.slice(2)).toFixed(2)} ms`, '', '']);
  const bare: number[] = [];
  for (let i = 0; i < 8; i++) {
    const t = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    bare.push(performance.now() - t);
  }
  rows.push(['  (node -e 0 on this machine: the floor)', `${median(bare.slice(2)).toFixed(2)} ms`, '', '']);
}

// 3b. one `step` round trip over MCP stdio (issue 6), the server already running
rows.push(...(await mcpStepBench()));

// 4. RSS with 10,000 waiting runs, in a fresh process so earlier figures' garbage does not count
{
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), 'rss'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  const { rss, runs } = JSON.parse(r.stdout) as { rss: number; runs: number };
  report('RSS with 10,000 waiting runs', rss, 'MB', 300);
  rows.push(['  (of which the runs and their store)', `${runs.toFixed(1)} MB`, '', '']);
}

for (const d of dirs) rmSync(d, { recursive: true, force: true });
console.log(`countersign bench — ${new Date().toISOString().slice(0, 10)} — node ${process.version} — ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB\n`);
const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(`${r[0].padEnd(w[0])}  ${r[1].padStart(w[1])}  ${r[2].padEnd(w[2])}  ${r[3]}`);
