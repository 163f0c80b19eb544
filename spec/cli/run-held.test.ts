/**
 * `countersign run` on a run whose next tool node this process cannot run
 * (a library host's tool): it stops with the reason and that reason's next
 * step, and the answer it gave is kept (issue 5).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createSqliteStore, defineTool, type Workflow } from '../../engine/index.js';
import { cli, tempDir } from '../helpers/cli.js';

/** start → directive `ask` → tool node `ship` (the host's `deploy`) → end. */
function hostToolFlow(): Workflow {
  return {
    metadata: { name: 'host-tool', version: '1.0.0', description: 'a host tool after a directive' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Ready?', completionCondition: 'yes', connections: { success: 'ship' } },
      { type: 'tool', id: 'ship', tool: 'deploy', args: {}, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
}

const T = suite('countersign run: a tool node this process cannot run');

T('run stops with E_TOOL_UNKNOWN and says to continue from the host that has the tool, not to answer with step; the answer is kept', async () => {
  const dir = tempDir('countersign-held-');
  const store = join(dir, 'store');
  const deploy = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: async () => 'deployed' });
  const wf = hostToolFlow();
  const host = createEngine({ store: createSqliteStore(store), tools: [deploy] });
  const s = await host.start(wf, { workspace: dir });
  writeFileSync(join(dir, 'answers.yaml'), 'ask:\n  - {}\n');
  const r = await cli(['run', '--resume', s.runId, '--agent', `scripted:${join(dir, 'answers.yaml')}`], { store, cwd: dir });
  assert.is(r.code, 3);
  assert.match(r.stdout, /waits at tool node "ship", which this process did not run \(E_TOOL_UNKNOWN\)/);
  assert.match(r.stdout, /next: continue the run from the host that registers "deploy"/);
  assert.not.match(r.stdout, /answer with countersign step/);
  const done = await host.status(s.runId);
  assert.is(done.status, 'completed', 'the host that has the tool finishes it; the answer was kept');
});

T('status that fails a run through a tool node (a claim whose process died: E_TOOL_INTERRUPTED) exits 1 and says which tool node it ran, as step would', async () => {
  const dir = tempDir('countersign-held-');
  const store = join(dir, 'store');
  const hang = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: () => new Promise(() => undefined) });
  const wf = hostToolFlow();
  // A process, an hour ago, claimed the tool node and never came back.
  const past = createEngine({ store: createSqliteStore(store), tools: [hang], now: () => new Date(Date.now() - 3_600_000), toolHeartbeatMs: 3_600_000 });
  const s = await past.start(wf, { workspace: dir });
  void past.submit(s.runId, {}, { seq: s.seq });
  await new Promise((r) => setTimeout(r, 50));
  const r = await cli(['status', s.runId, '--json'], { store, cwd: dir });
  assert.is(r.code, 1);
  assert.is(r.json.status, 'failed');
  assert.is(r.json.error.code, 'E_TOOL_INTERRUPTED');
  assert.equal(r.json.toolsRun.map((t: { nodeId: string; ok: boolean }) => [t.nodeId, t.ok]), [['ship', false]]);
});

T('run needs no --agent while the workflow reaches only tool nodes; a workflow with agent nodes still needs --agent (usage, exit 2, no run stored)', async () => {
  const dir = tempDir('countersign-noagent-');
  const store = join(dir, 'store');
  writeFileSync(join(dir, 'tools.json'), JSON.stringify({
    metadata: { name: 'tools-only', version: '1.0.0', description: 'a tool node only' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'read' } },
      { type: 'tool', id: 'read', tool: 'pr_status', args: { pr_number: 1 }, connections: { success: 'done', error: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  const ok = await cli(['run', join(dir, 'tools.json'), '--workspace', dir, '--json'], { store, cwd: dir, env: process.env });
  assert.is(ok.code, 0, ok.stderr);
  assert.is(ok.json.status, 'completed');
  writeFileSync(join(dir, 'ask.json'), JSON.stringify({
    metadata: { name: 'asks', version: '1.0.0', description: 'a directive' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Ready?', completionCondition: 'yes', connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  const asks = await cli(['run', join(dir, 'ask.json'), '--workspace', dir, '--json'], { store, cwd: dir });
  assert.is(asks.code, 2);
  assert.is(asks.json.error.code, 'E_USAGE');
  const runs = await cli(['runs', '--json'], { store });
  assert.is(runs.json.runs.length, 1, 'only the tool-only run was stored');
  // A file that is no workflow at all says so (E_WORKFLOW_INVALID), never "run needs --agent".
  writeFileSync(join(dir, 'scalar.yaml'), 'just a string\n');
  const scalar = await cli(['run', join(dir, 'scalar.yaml'), '--json'], { store, cwd: dir });
  assert.is(scalar.json.error.code, 'E_WORKFLOW_INVALID');
  // A run that needs an agent, resumed without one, is a usage error too (exit 2), whose fix names --agent.
  const started = await cli(['start', join(dir, 'ask.json'), '--workspace', dir, '--json'], { store, cwd: dir });
  const resumed = await cli(['run', '--resume', started.json.runId], { store, cwd: dir });
  assert.is(resumed.code, 2);
  assert.match(resumed.stderr, 'E_USAGE');
  assert.match(resumed.stderr, `countersign run --resume ${started.json.runId} --agent <adapter>`);
});

T('a workflow of tool nodes only is resumed without --agent too, and its hints never ask for an adapter it cannot use (E_TOOL_RUNNING while another process holds the claim); a process that cannot run the tool still says it was claimed', async () => {
  const dir = tempDir('countersign-noagent-resume-');
  const store = join(dir, 'store');
  const wf = {
    metadata: { name: 'tool-only', version: '1.0.0', description: 'one host tool' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ship' } },
      { type: 'tool', id: 'ship', tool: 'deploy', args: {}, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  const hang = defineTool({ name: 'deploy', class: 'read', inputSchema: { type: 'object' }, run: () => new Promise(() => undefined) });
  // One process claims the tool node and is still running it.
  void createEngine({ store: createSqliteStore(store), tools: [hang], newRunId: () => 'held-run' }).start(wf, { workspace: dir });
  await new Promise((r) => setTimeout(r, 100));
  const other = createEngine({ store: createSqliteStore(store), tools: [hang] });
  const result = await other.run({ runId: 'held-run' }, { agent: { answer: async () => ({}) } });
  assert.is(result.error?.code, 'E_TOOL_RUNNING');
  assert.match(result.error?.fix ?? '', 'Then continue with countersign run --resume held-run');
  assert.not.match(result.error?.fix ?? '', '--agent');
  // The CLI resumes it without --agent: no usage error; it stops at the tool node it cannot run, saying why.
  const r = await cli(['run', '--resume', 'held-run', '--json'], { store, cwd: dir });
  assert.is(r.code, 3, r.stderr);
  assert.is(r.json.status, 'waiting');
  assert.not.match(r.stderr, 'E_USAGE');
  assert.is(r.json.error.code, 'E_TOOL_RUNNING');
  assert.not.match(r.json.error.fix, '--agent');
  // A process that may not load the workflow's tool modules still says the tool was claimed and may have taken effect.
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'slow.mjs'), 'export const tools = [{ name: "slow", class: "read", inputSchema: { type: "object" }, run: () => new Promise(() => {}) }];\n');
  const file = join(dir, 'slow.json');
  writeFileSync(file, JSON.stringify({ ...wf, toolModules: ['./tools/slow.mjs'], nodes: wf.nodes.map((n) => (n.id === 'ship' ? { ...n, tool: 'slow' } : n)) }));
  void createEngine({ store: createSqliteStore(store), allowToolModules: true, newRunId: () => 'held-module' }).start(file, { workspace: dir });
  await new Promise((r) => setTimeout(r, 300));
  const status = await cli(['status', 'held-module'], { store, cwd: dir });
  assert.match(status.stdout, /this process did not run slow \(E_TOOL_MODULE_BLOCKED\)/);
  assert.match(status.stdout, /\n  note: slow was claimed at \S+ and may already have taken effect: .*the claim expires at \S+/);
  const resumed = await cli(['run', '--resume', 'held-module', '--json'], { store, cwd: dir });
  assert.is(resumed.json.error.code, 'E_TOOL_MODULE_BLOCKED');
  assert.match(resumed.json.error.message, /meanwhile slow was claimed at \S+ and may already have taken effect/);
});

T.run();
