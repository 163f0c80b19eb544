import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { cli, LAUNCHER, ROOT, tempDir } from '../helpers/cli.js';

const WF = 'spec/fixtures/cli/two-step.json';
const Run = suite('cli run');

function script(content: string): string {
  const file = join(tempDir(), 'script.yaml');
  writeFileSync(file, content);
  return file;
}

Run('run with a scripted agent completes, exit 0, and --json prints {runId, status, steps, endNodeId, output}', async () => {
  const r = await cli(['run', WF, '--agent', `scripted:${script('write:\n  - { words: 0 }\n  - { words: 150 }\n')}`, '--json'], { store: tempDir() });
  assert.is(r.code, 0, r.stderr);
  assert.equal(Object.keys(r.json).sort(), ['endNodeId', 'output', 'runId', 'status', 'steps']);
  assert.is(r.json.status, 'completed');
  assert.is(r.json.steps, 2);
  assert.is(r.json.endNodeId, 'long');
  assert.equal(r.json.output, { topic: 'tests', 'write.words': 150 });
  assert.match(r.stderr, /▸ write/);
  assert.match(r.stderr, /answer rejected: \/words: must be >= 1/);
});

Run('the shipped bugfix workflow runs end to end with its example script (review-fix-loop: spec/docs/examples)', async () => {
  const bug = await cli(['run', 'workflows/bugfix.yaml', '--agent', 'scripted:examples/scripts/bugfix.yaml', '--json'], { store: tempDir() });
  assert.is(bug.code, 0, bug.stderr);
  assert.is(bug.json.endNodeId, 'done');
  assert.equal(bug.json.output, { severity: 'medium', fix_attempts: 3, review_rounds: 2, issues_count: 0, report_path: '.countersign/reviews/bugfix.md' });
  // Code changed for the review ran the suite again before the next review.
  assert.match(bug.stderr, /  · fix-review-changed: true → run-tests\n▸ run-tests: /);
  // Progress is node by node: the condition and expression nodes passed, and where each led.
  assert.match(bug.stderr, /  ✓ run-tests answered\n  · count-attempt → tests-pass\n  · tests-pass: false → attempts-left\n  · attempts-left: true → fix\n▸ fix: /);
  assert.match(bug.stderr, /  · review-clean: true → done\n$/);
});

Run('the bugfix workflow\'s review loop is bounded: a reviewer that always finds an issue ends the run at review-unresolved after max_review_rounds reviews, never reviewing forever', async () => {
  const dir = tempDir();
  const script = join(dir, 'always-one.yaml');
  writeFileSync(script, [
    'triage: [{files: [a.ts], severity: low}]',
    'reproduce: [{reproduced: true, test_file: a.test.ts}]',
    'fix: [{changed_files: [a.ts]}]',
    `run-tests: [${Array(4).fill('{failures: 0}').join(', ')}]`,
    `review: [${Array(4).fill('{issues_count: 1}').join(', ')}]`,
    `fix-review: [${Array(4).fill('{changed: true}').join(', ')}]`,
  ].join('\n'));
  const r = await cli(['run', 'workflows/bugfix.yaml', '--agent', `scripted:${script}`, '--json'], { store: join(dir, 'store') });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.endNodeId, 'review-unresolved');
  assert.equal(r.json.output, { severity: 'low', review_rounds: 3, issues_count: 1, report_path: '.countersign/reviews/bugfix.md' });
});

Run('an exhausted script stops the run while it still waits: exit 3, E_AGENT_SCRIPT_EXHAUSTED, resumable with step', async () => {
  const store = tempDir();
  const r = await cli(['run', WF, '--agent', `scripted:${script('write: []\n')}`, '--json'], { store });
  assert.is(r.code, 3);
  assert.is(r.json.status, 'waiting');
  assert.is(r.json.error.code, 'E_AGENT_SCRIPT_EXHAUSTED');
  const st = await cli(['status', r.json.runId, '--json'], { store });
  assert.is(st.json.status, 'waiting');
  assert.is(st.json.seq, 1);
  // step resumes it too: the run waits at the item the script could not answer.
  const stepped = await cli(['step', r.json.runId, '--seq', '1', '--response', '{"words":2}', '--json'], { store });
  assert.is(stepped.code, 0, stepped.stderr);
  assert.is(stepped.json.endNodeId, 'short');
  const again = await cli(['run', WF, '--agent', `scripted:${script('write: []\n')}`, '--json'], { store });
  const done = await cli(['run', '--resume', again.json.runId, '--agent', `scripted:${script('write: [{ words: 2 }]\n')}`, '--json'], { store });
  assert.is(done.code, 0);
  assert.is(done.json.endNodeId, 'short');
});

Run('run --resume without --agent, on a run whose workflow asks an agent, is a usage error (exit 2) before anything runs, never an agent fault (exit 3)', async () => {
  const store = tempDir();
  const r = await cli(['run', WF, '--agent', `scripted:${script('write: []\n')}`, '--json'], { store });
  assert.is(r.code, 3);
  const resumed = await cli(['run', '--resume', r.json.runId, '--json'], { store });
  assert.is(resumed.code, 2, resumed.stdout);
  assert.is(resumed.json.error.code, 'E_USAGE');
  assert.match(resumed.json.error.message, `run ${r.json.runId} needs --agent`);
  assert.match(resumed.json.error.fix, `countersign run --resume ${r.json.runId} --agent <adapter>`);
  assert.is((await cli(['status', r.json.runId, '--json'], { store })).json.seq, 1, 'nothing ran');
});

Run('run --resume with a scripted agent continues each node\'s list after the answers the run already took: following the exhausted script\'s fix (add an answer) completes the run', async () => {
  const store = tempDir();
  const file = script('write:\n  - { words: 0 }\n');
  const first = await cli(['run', WF, '--agent', `scripted:${file}`, '--json'], { store });
  assert.is(first.code, 3, first.stderr);
  assert.is(first.json.error.code, 'E_AGENT_SCRIPT_EXHAUSTED');
  assert.match(first.json.error.fix, 'add another answer to the list under "write"');
  writeFileSync(file, 'write:\n  - { words: 0 }\n  - { words: 150 }\n');
  const resumed = await cli(['run', '--resume', first.json.runId, '--agent', `scripted:${file}`, '--json'], { store });
  assert.is(resumed.code, 0, resumed.stderr);
  assert.is(resumed.json.endNodeId, 'long', 'the new answer, not the rejected first one again');
  assert.equal(resumed.json.output, { topic: 'tests', 'write.words': 150 });
  const trace = await cli(['trace', first.json.runId, '--json'], { store });
  assert.is(trace.json.events.filter((e: { type: string }) => e.type === 'answer.rejected').length, 1, 'the bad answer was given once, not replayed on resume');
});

Run('the bugfix workflow stopped by --max-steps and resumed with the same script ends exactly as an uninterrupted run', async () => {
  const store = tempDir();
  const args = ['--agent', 'scripted:examples/scripts/bugfix.yaml', '--json'];
  let r = await cli(['run', 'workflows/bugfix.yaml', ...args, '--max-steps', '2'], { store });
  assert.is(r.code, 3, r.stderr);
  const runId = r.json.runId;
  for (let i = 0; i < 10 && r.code === 3; i++) r = await cli(['run', '--resume', runId, ...args, '--max-steps', '2'], { store });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.output, { severity: 'medium', fix_attempts: 3, review_rounds: 2, issues_count: 0, report_path: '.countersign/reviews/bugfix.md' });
});

Run('a node deadline that passes while the agent is silent shows in run\'s progress: ⏱ and the timeout route taken, or ✗ with E_TIMEOUT when there is none', async () => {
  const wf = JSON.parse(readFileSync(WF, 'utf8'));
  wf.nodes[1].timeoutMs = 300;
  const failing = join(tempDir(), 'deadline.json');
  writeFileSync(failing, JSON.stringify(wf));
  wf.nodes[1].connections.timeout = 'short';
  const routed = join(tempDir(), 'deadline-routed.json');
  writeFileSync(routed, JSON.stringify(wf));
  const r = await cli(['run', routed, '--agent', 'exec:sleep 20', '--json'], { store: tempDir() });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.endNodeId, 'short');
  assert.match(r.stderr, /▸ write: Write about tests\.\n  ⏱ write: deadline passed → short\n/);
  const f = await cli(['run', failing, '--agent', 'exec:sleep 20', '--json'], { store: tempDir() });
  assert.is(f.code, 1, f.stderr);
  assert.is(f.json.error.code, 'E_TIMEOUT');
  assert.match(f.stderr, /  ✗ write: deadline passed: the run failed: E_TIMEOUT\n/);
});

Run('a run that fails at a node its timeout, maxRetriesExceeded or error route led to: progress shows the route, then the failure at that node (never the deadline or the answer blamed)', async () => {
  const flow = (write: Record<string, unknown>) => {
    const file = join(tempDir(), 'tofail.json');
    writeFileSync(file, JSON.stringify({
      metadata: { name: 'tofail', version: '1.0.0', description: 'a route to a failing node' },
      variableRegistry: { n: { type: 'number', description: 'never set' } },
      nodes: [
        { type: 'start', id: 'start', connections: { default: 'write' } },
        { type: 'agent-directive', id: 'write', directive: 'w', completionCondition: 'c', inputSchema: { type: 'object', properties: { words: { type: 'integer' } }, required: ['words'] }, ...write },
        { type: 'expression', id: 'calc', expressions: ['n = n + 1'], connections: { default: 'done' } },
        { type: 'end', id: 'done' },
      ],
    }));
    return file;
  };
  const timed = await cli(['run', flow({ timeoutMs: 300, connections: { success: 'done', timeout: 'calc' } }), '--agent', 'exec:sleep 20', '--json'], { store: tempDir() });
  assert.is(timed.code, 1, timed.stderr);
  assert.match(timed.stderr, /  ⏱ write: deadline passed → calc\n  ✗ calc: the run failed: E_EXPRESSION\n/);
  const rejected = await cli(['run', flow({ maxRetries: 0, connections: { success: 'done', maxRetriesExceeded: 'calc' } }), '--agent', 'exec:echo {}', '--json'], { store: tempDir() });
  assert.match(rejected.stderr, /  · write: maxRetriesExceeded → calc\n  ✗ calc: the run failed: E_EXPRESSION\n/);
  const declared = await cli(['run', flow({ connections: { success: 'done', error: 'calc' } }), '--agent', 'exec:echo \'{"$error": "nope"}\'', '--json'], { store: tempDir() });
  assert.match(declared.stderr, /  ✗ write: the agent declared failure: nope\n  · write: error → calc\n  ✗ calc: the run failed: E_EXPRESSION\n/);
});

Run('a script naming a node the workflow does not have is E_INPUT at its key with a "did you mean", before any run or store is created (exit 2)', async () => {
  const store = join(tempDir(), 'store');
  const r = await cli(['run', WF, '--agent', `scripted:${script('wirte:\n  - { words: 5 }\n')}`, '--json'], { store });
  assert.is(r.code, 2, r.stderr);
  assert.equal([r.json.error.code, r.json.error.pointer], ['E_INPUT', '/wirte']);
  assert.match(r.json.error.message, 'has answers for node "wirte", which is no node of the workflow that takes answers (a directive or a review), at line 1, column 1 — did you mean "write"?');
  assert.equal([r.json.error.line, r.json.error.col], [1, 1]);
  assert.is(r.json.error.fix, 'rename "wirte" to "write"');
  assert.not.ok(existsSync(store), 'no store, no run');
  // On resume the keys are checked against the run's own stored copy, before any answer is given.
  const started = await cli(['start', WF, '--json'], { store });
  const resumed = await cli(['run', '--resume', started.json.runId, '--agent', `scripted:${script('write:\n  - { words: 5 }\nzzz:\n  - {}\n')}`, '--json'], { store });
  assert.is(resumed.code, 2, resumed.stderr);
  assert.equal([resumed.json.error.code, resumed.json.error.pointer], ['E_INPUT', '/zzz']);
  const status = await cli(['status', started.json.runId, '--json'], { store });
  assert.equal([status.json.status, status.json.seq], ['waiting', 1], 'the run did not move');
});

Run('progress never shows a rejected or declared-failed answer as ✓: it shows ✗ with the errors and the failure route taken; a deadline that fires as a run is resumed shows ⏱', async () => {
  const wf = JSON.parse(readFileSync(WF, 'utf8'));
  wf.nodes[1].maxRetries = 0;
  Object.assign(wf.nodes[1].connections, { maxRetriesExceeded: 'long', error: 'short' });
  const file = join(tempDir(), 'routes.json');
  writeFileSync(file, JSON.stringify(wf));
  const rejected = await cli(['run', file, '--agent', `scripted:${script('write:\n  - { words: 0 }\n')}`], { store: tempDir() });
  assert.is(rejected.code, 0, rejected.stderr);
  assert.match(rejected.stderr, /  ✗ answer rejected: \/words: must be >= 1\n  · write: maxRetriesExceeded → long\n/);
  assert.not.match(rejected.stderr, /✓ write answered/);
  const declared = await cli(['run', file, '--agent', `exec:echo '{"$error": "no disk"}'`], { store: tempDir() });
  assert.is(declared.code, 0, declared.stderr);
  assert.match(declared.stderr, /  ✗ write: the agent declared failure: no disk\n  · write: error → short\n/);

  const store = tempDir();
  wf.nodes[1].timeoutMs = 200;
  wf.nodes[1].connections.timeout = 'short';
  writeFileSync(file, JSON.stringify(wf));
  const started = await cli(['start', file, '--json'], { store });
  await new Promise((r) => setTimeout(r, 400));
  const resumed = await cli(['run', '--resume', started.json.runId, '--agent', `exec:echo '{"words": 3}'`], { store });
  assert.is(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /^  ⏱ write: deadline passed → short\n/);
});

Run('run --agent interactive returns once the run ends, while its standard input is still open (a terminal never closes it)', async () => {
  const child = spawn(process.execPath, [LAUNCHER, 'run', WF, '--agent', 'interactive', '--store', tempDir()], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stdin.write('{"words": 150}\n');
  // stdin is left open, as a person's terminal is.
  const exited = await new Promise<number | string>((resolve) => {
    const guard = setTimeout(() => resolve('still running 30 s after the answer'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve(code ?? -1);
    });
  });
  child.kill('SIGKILL');
  assert.is(exited, 0, out);
  assert.match(out, 'completed at "long"');
});

Run('a malformed script is E_PARSE naming the file and position once on its line (exit 2)', async () => {
  const file = join(tempDir(), 'broken.yaml');
  writeFileSync(file, 'write:\n  - words: [\n');
  const r = await cli(['run', WF, '--agent', `scripted:${file}`], { store: tempDir() });
  assert.is(r.code, 2, r.stderr);
  const [line] = r.stderr.split('\n');
  assert.match(line, `countersign: E_PARSE: the script ${file} is not valid YAML at 2:`);
  assert.is(line.split(file).length, 2, 'the file is named once');
});

Run('--input - with an interactive adapter is a usage error (both would read standard input): exit 2, no store, no run', async () => {
  const store = join(tempDir(), 'store');
  const r = await cli(['run', WF, '--agent', 'interactive', '--input', '-', '--json'], { store });
  assert.is(r.code, 2, r.stderr);
  assert.is(r.json.error.code, 'E_USAGE');
  assert.not.ok(existsSync(store));
});

Run('the commands a stopped run suggests name the --store it lives in, so they work as printed', async () => {
  const store = join(tempDir(), 'my store');
  const r = await cli(['run', WF, '--store', store, '--agent', `scripted:${script('write: [{ words: 0 }, { words: 0 }]\n')}`, '--max-steps', '1', '--json']);
  assert.is(r.code, 3, r.stderr);
  assert.match(r.json.error.fix, `countersign run --resume ${r.json.runId} --store '${store}'`);
  const human = await cli(['run', '--resume', r.json.runId, '--store', store, '--agent', `scripted:${script('write: [{ words: 0 }, { words: 0 }]\n')}`, '--max-steps', '1']);
  assert.match(human.stdout, `resume with: countersign run --resume ${r.json.runId} --store '${store}' --agent <adapter>`);
});

Run('--max-steps stops a waiting run with exit 3 (E_MAX_STEPS)', async () => {
  const r = await cli(['run', WF, '--agent', `scripted:${script('write: [{ words: 0 }, { words: 0 }]\n')}`, '--max-steps', '1', '--json'], { store: tempDir() });
  assert.is(r.code, 3);
  assert.is(r.json.error.code, 'E_MAX_STEPS');
  assert.is(r.json.steps, 1);
});

Run('a run that fails exits 1 with the failure code', async () => {
  const r = await cli(['run', WF, '--agent', `scripted:${script('write:\n  - { $error: "no disk" }\n')}`, '--json'], { store: tempDir() });
  assert.is(r.code, 1);
  assert.is(r.json.status, 'failed');
  assert.is(r.json.error.code, 'E_AGENT_ERROR');
});

Run('jsonl agent: one process answers every item; a crashing agent stops with exit 3 (E_AGENT_CRASHED) and the run waits', async () => {
  const agent = join(tempDir(), 'agent.mjs');
  const pids = join(tempDir(), 'pids.txt');
  writeFileSync(agent, `
    import { appendFileSync } from 'node:fs';
    import { createInterface } from 'node:readline';
    const rl = createInterface({ input: process.stdin });
    rl.on('line', (line) => {
      const req = JSON.parse(line);
      if (!req.runId || !req.seq || req.kind !== 'directive') process.exit(9);
      // Each answer records which process gave it: one pid for every item.
      appendFileSync(${JSON.stringify('PIDS')}, process.pid + '\\n');
      process.stdout.write(JSON.stringify({ words: req.attempt === 1 ? 0 : 42 }) + '\\n');
    });
  `.replace('"PIDS"', JSON.stringify(pids)));
  const ok = await cli(['run', WF, '--agent', `jsonl:node ${agent}`, '--json'], { store: tempDir() });
  assert.is(ok.code, 0, ok.stderr);
  assert.equal(ok.json.output, { topic: 'tests', 'write.words': 42 });
  const answeredBy = readFileSync(pids, 'utf8').trim().split('\n');
  assert.is(answeredBy.length, 2, 'two items were answered (a rejected answer, then the accepted one)');
  assert.is(new Set(answeredBy).size, 1, 'by one process');
  const store = tempDir();
  const crash = await cli(['run', WF, '--agent', 'jsonl:exit 4', '--json'], { store });
  assert.is(crash.code, 3);
  assert.is(crash.json.error.code, 'E_AGENT_CRASHED');
  assert.is((await cli(['status', crash.json.runId, '--json'], { store })).json.status, 'waiting');
});

Run('§6: a jsonl agent that dies in the middle of a line (killed, or a non-zero exit) is E_AGENT_CRASHED naming how it ended, never E_AGENT_OUTPUT, and that half line is never taken as an answer; one that ends its last line without a newline and exits 0 has answered', async () => {
  for (const [agent, how] of [[`read l; printf '{"words":'; kill -9 $$`, 'was killed by SIGKILL'], [`read l; printf '{"words":42}'; exit 1`, 'exited with code 1']] as const) {
    const store = tempDir();
    const r = await cli(['run', WF, '--agent', `jsonl:${agent}`, '--json'], { store });
    assert.is(r.code, 3, r.stderr);
    assert.is(r.json.error.code, 'E_AGENT_CRASHED');
    assert.match(r.json.error.message, `${how} before answering node "write" (it stopped in the middle of a line, which was never taken as an answer`);
    const status = (await cli(['status', r.json.runId, '--json'], { store })).json;
    assert.equal([status.status, status.seq], ['waiting', 1], 'nothing was answered');
  }
  const clean = await cli(['run', WF, '--agent', `jsonl:read l; printf '{"words":42}'`, '--json'], { store: tempDir() });
  assert.is(clean.code, 0, clean.stderr);
  assert.equal(clean.json.output, { topic: 'tests', 'write.words': 42 });
});

Run('§6: a jsonl agent that exits while a process it started still holds its stdout is E_AGENT_CRASHED at once (exit 3), never a wait until --agent-timeout', async () => {
  const started = Date.now();
  const r = await cli(['run', WF, '--agent', 'jsonl:sleep 30 & read l; exit 1', '--agent-timeout', '60', '--json'], { store: tempDir() });
  assert.is(r.code, 3, r.stderr);
  assert.is(r.json.error.code, 'E_AGENT_CRASHED');
  assert.match(r.json.error.message, 'exited with code 1 before answering node "write"');
  assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
  // Its last line without a newline, then exit 0, while a child still holds stdout: its answer, as without the child.
  const answered = await cli(['run', WF, '--agent', `jsonl:read l; printf '{"words": 3}'; sleep 30 & exit 0`, '--agent-timeout', '60', '--json'], { store: tempDir() });
  assert.is(answered.code, 0, answered.stderr);
  assert.equal(answered.json.output, { topic: 'tests', 'write.words': 3 });
});

Run('§6: an agent whose output is not UTF-8 (jsonl, exec) stops the run with E_AGENT_OUTPUT (exit 3, still waiting), never an answer with U+FFFD in it; output over 16 MiB is measured in bytes, whatever its characters', async () => {
  const latin1 = join(tempDir(), 'latin1.mjs');
  writeFileSync(latin1, `process.stdin.once('data', () => { process.stdout.write(Buffer.from('{"words": 3, "note": "caf\\xe9"}\\n', 'latin1')); });`);
  for (const agent of [`jsonl:node ${latin1}`, `exec:node ${latin1}`]) {
    const store = tempDir();
    const r = await cli(['run', WF, '--agent', agent, '--json'], { store });
    assert.is(r.code, 3, r.stderr);
    assert.is(r.json.error.code, 'E_AGENT_OUTPUT', agent);
    assert.match(r.json.error.message, 'not UTF-8 text');
    const status = (await cli(['status', r.json.runId, '--json'], { store })).json;
    assert.equal([status.status, status.seq], ['waiting', 1], agent);
  }
  // 9 Mi euro signs: 27 MiB of UTF-8 in fewer than 16 Mi characters. A fault of the output (exit 3), not an answer that spends a retry.
  const big = join(tempDir(), 'big.mjs');
  writeFileSync(big, `process.stdin.once('data', () => { process.stdout.write(JSON.stringify({ words: 3, note: '€'.repeat(9 * 1024 * 1024) }) + '\\n'); });`);
  const huge = await cli(['run', WF, '--agent', `exec:node ${big}`, '--json'], { store: tempDir() });
  assert.is(huge.code, 3, huge.stderr);
  assert.match(huge.json.error.message, 'bytes (16 MiB)');
});

Run('r77: a scripted entry that is no JSON object stops the run (exit 3) saying its pointer, with the file and pointer in the --json error', async () => {
  const script = join(tempDir(), 'nonobj.yaml');
  writeFileSync(script, 'write:\n  - words:3\n');
  const r = await cli(['run', WF, '--agent', `scripted:${script}`, '--json'], { store: tempDir() });
  assert.is(r.code, 3, r.stderr);
  assert.equal([r.json.error.code, r.json.error.pointer, r.json.error.file], ['E_AGENT_OUTPUT', '/write/0', script]);
  assert.match(r.json.error.message, '(answer 1, at /write/0, line 2, column 5), not a JSON object');
});

Run('r90 e1: an adapter stop under --json (a script that ran out, a non-JSON line) says in its fix that the run still waits and how to resume it, as the human output does', async () => {
  const dir = tempDir();
  const script = join(dir, 'script.yaml');
  writeFileSync(script, 'write: []\n');
  for (const agent of [`scripted:${script}`, `jsonl:read l; echo not-json; sleep 5`]) {
    const r = await cli(['run', WF, '--agent', agent, '--json'], { store: join(dir, 'store') });
    assert.is(r.code, 3, r.stderr);
    assert.ok(['E_AGENT_SCRIPT_EXHAUSTED', 'E_AGENT_OUTPUT'].includes(r.json.error.code), r.json.error.code);
    assert.match(r.json.error.fix, `the run still waits at node "write": continue it with countersign run --resume ${r.json.runId}`);
  }
});

Run('r89 e2: --agent-timeout past a year (1e308, which no number of milliseconds can hold) is E_USAGE naming the flag and the value given, as 0 or abc are', async () => {
  for (const value of ['1e308', '31536001', '0', 'abc']) {
    const r = await cli(['run', WF, '--agent', 'exec:true', '--agent-timeout', value, '--json'], { store: tempDir() });
    assert.is(r.code, 2, value);
    assert.is(r.json.error.code, 'E_USAGE', value);
    assert.match(r.json.error.message, `--agent-timeout must be`);
    assert.match(r.json.error.message, `"${value}"`);
  }
  const year = await cli(['run', WF, '--agent', `exec:echo '{"words": 3}'`, '--agent-timeout', '31536000', '--json'], { store: tempDir() });
  assert.is(year.json.error?.code === 'E_USAGE', false, 'a year is allowed');
});

Run('an agent that prints a non-JSON line stops with E_AGENT_OUTPUT (exit 3); silence past --agent-timeout is E_AGENT_TIMEOUT', async () => {
  const garbage = await cli(['run', WF, '--agent', 'jsonl:echo hello', '--json'], { store: tempDir() });
  assert.is(garbage.code, 3);
  assert.is(garbage.json.error.code, 'E_AGENT_OUTPUT');
  const silent = await cli(['run', WF, '--agent', 'jsonl:sleep 5', '--agent-timeout', '0.3', '--json'], { store: tempDir() });
  assert.is(silent.code, 3);
  assert.is(silent.json.error.code, 'E_AGENT_TIMEOUT');
});

Run('run refuses an unknown adapter and a missing --agent with exit 2 (E_ADAPTER, E_USAGE)', async () => {
  const adapter = await cli(['run', WF, '--agent', 'telepathy', '--json'], { store: tempDir() });
  assert.is(adapter.code, 2);
  assert.is(adapter.json.error.code, 'E_ADAPTER');
  const noAgent = await cli(['run', WF, '--json'], { store: tempDir() });
  assert.is(noAgent.code, 2);
  assert.is(noAgent.json.error.code, 'E_USAGE');
});

Run('r108 e1: a jsonl agent\'s stderr line written before its answer shows under the item it worked on, before that item\'s ✓ line, never under the next one', async () => {
  const wf = join(tempDir(), 'two.json');
  writeFileSync(wf, JSON.stringify({
    metadata: { name: 'two', version: '1.0.0', description: 'two questions' },
    nodes: [
      { id: 'start', type: 'start', connections: { default: 'a' } },
      { id: 'a', type: 'agent-directive', directive: 'Give n', completionCondition: 'done', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, connections: { success: 'b' } },
      { id: 'b', type: 'agent-directive', directive: 'Give m', completionCondition: 'done', inputSchema: { type: 'object', properties: { m: { type: 'integer' } }, required: ['m'] }, connections: { success: 'end' } },
      { id: 'end', type: 'end' },
    ],
  }));
  const agent = 'jsonl:while read l; do case "$l" in *\\"nodeId\\":\\"a\\"*) echo "working on a" >&2; echo \'{"n": 1}\';; *) echo "working on b" >&2; echo \'{"m": 1}\';; esac; done';
  for (let i = 0; i < 3; i++) {
    const r = await cli(['run', wf, '--agent', agent], { store: tempDir() });
    assert.is(r.code, 0, r.stderr);
    const at = (text: string) => r.stderr.indexOf(text);
    assert.ok(at('working on a') > at('▸ a') && at('working on a') < at('✓ a answered'), r.stderr);
    assert.ok(at('working on b') > at('▸ b') && at('working on b') < at('✓ b answered'), r.stderr);
  }
});

Run('r110 a1: run of a workflow that does not validate, with a script naming nodes it lacks, is E_WORKFLOW_INVALID with validate as the fix, never the script refused against a workflow that cannot run', async () => {
  const dir = tempDir();
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ nodes: [{ id: 'a.b', type: 'start', connections: { default: 'x' } }] }));
  writeFileSync(join(dir, 's.yaml'), 'do-work:\n  - {changed_files: [a]}\n');
  const r = await cli(['run', bad, '--agent', `scripted:${join(dir, 's.yaml')}`, '--json'], { store: tempDir() });
  assert.is(r.code, 2, r.stderr);
  assert.is(r.json.error.code, 'E_WORKFLOW_INVALID');
  assert.match(r.json.error.fix, 'countersign validate');
  assert.not.match(r.stderr, 'the script');
});

Run.run();
