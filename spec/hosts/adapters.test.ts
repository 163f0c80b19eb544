/**
 * `--agent` values: scripted:<file>, jsonl:<command>, exec:<command>,
 * interactive; anything else is E_ADAPTER with the list of adapters.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError } from '../../engine/errors.js';
import { createAgent } from '../../engine/hosts/adapters.js';
import type { AgentRequest } from '../../engine/run/contract.js';
import { thrown } from '../helpers/errors.js';
import { agentRequest } from '../helpers/agent-request.js';
import { cli } from '../helpers/cli.js';

const request = agentRequest;

const opts = { signal: new AbortController().signal, timeoutMs: 5000 };


const test = suite<{ dir: string }>('createAgent', { dir: '' });

test.before.each((c) => {
  c.dir = mkdtempSync(join(tmpdir(), 'countersign-adapters-'));
});
test.after.each((c) => {
  rmSync(c.dir, { recursive: true, force: true });
});

test('scripted:<file> loads the file relative to the working directory', async (c) => {
  writeFileSync(join(c.dir, 'answers.yaml'), 'review:\n  - issues_count: 0\n');
  const agent = createAgent('scripted:answers.yaml', { cwd: c.dir });
  assert.equal(await agent.answer(request('review'), opts), { issues_count: 0 });
  try {
    await agent.answer(request('review'), opts);
    assert.unreachable('the script has one answer');
  } catch (err) {
    assert.is((err as CountersignError).code, 'E_AGENT_SCRIPT_EXHAUSTED');
    assert.match((err as CountersignError).message, 'answers.yaml');
  }
});

test('jsonl:<command> runs the command as a long-lived jsonl agent in the working directory', async (c) => {
  const agent = createAgent(`jsonl:node -e "require('readline').createInterface({input:process.stdin}).on('line',()=>console.log(JSON.stringify({cwd:process.cwd(),pid:process.pid})))"`, { cwd: c.dir });
  const first = (await agent.answer(request('n'), opts)) as { cwd: string; pid: number };
  const second = (await agent.answer(request('m', 2), opts)) as { cwd: string; pid: number };
  assert.equal([first.cwd, second.cwd], [c.dir, c.dir]);
  assert.is(second.pid, first.pid, 'one process answers both requests');
  await agent.close?.();
});

test('exec:<command> runs the command once per request', async (c) => {
  const agent = createAgent(`exec:cat > /dev/null; echo '{"done": true}'`, { cwd: c.dir });
  assert.equal(await agent.answer(request('n'), opts), { done: true });
});

test('interactive gives the prompt agent: it shows the directive and schema on stderr and takes the answer typed on stdin', () => {
  // A process of its own: the prompt agent reads this process's stdin.
  const script = `const { createAgent } = await import(${JSON.stringify(new URL('../../engine/hosts/adapters.ts', import.meta.url).href)});
const agent = createAgent('interactive', { cwd: '/' });
const answer = await agent.answer({ kind: 'directive', runId: 'r', seq: 1, nodeId: 'ask', directive: 'Name a colour', completionCondition: 'named', inputSchema: { type: 'object', properties: { colour: { type: 'string' } } }, attempt: 1, maxRetries: 3 }, { timeoutMs: 10000, signal: new AbortController().signal });
await agent.close();
process.stdout.write(JSON.stringify(answer));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { input: '{"colour": "teal"}\n', encoding: 'utf8', timeout: 30_000 });
  assert.is(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), { colour: 'teal' });
  assert.match(r.stderr, 'Name a colour');
  assert.match(r.stderr, '"colour"');
});

test('an unknown adapter is E_ADAPTER listing the adapters that exist', () => {
  for (const spec of ['openai:gpt', 'scripted', 'interactive:now', '']) {
    const err = thrown(() => createAgent(spec, { cwd: '/' }));
    assert.is(err.code, 'E_ADAPTER', spec);
  }
  const err = thrown(() => createAgent('openai:gpt', { cwd: '/' }));
  assert.is(err.fix, 'use scripted:<file>, jsonl:<command>, exec:<command> or interactive');
});

test('an adapter prefix with nothing after the colon is E_ADAPTER', () => {
  for (const spec of ['scripted:', 'jsonl:', 'exec:  ']) {
    assert.is(thrown(() => createAgent(spec, { cwd: '/' })).code, 'E_ADAPTER', spec);
  }
});

test('interactive with a colon after it ("interactive:", "interactive:x") is E_ADAPTER saying interactive takes nothing after it, never "names no known adapter"', () => {
  for (const spec of ['interactive:', 'interactive:foo']) {
    const e = thrown(() => createAgent(spec, { cwd: '/' })) as { code: string; message: string; fix?: string };
    assert.is(e.code, 'E_ADAPTER', spec);
    assert.match(e.message, 'interactive takes nothing after it');
    assert.not.match(e.message, 'names no known adapter');
    assert.is(e.fix, 'write --agent interactive, with no colon');
  }
});

test('scripted:<file> that does not exist fails at once, before any request', (c) => {
  assert.is(thrown(() => createAgent('scripted:missing.yaml', { cwd: c.dir })).code, 'E_FILE_NOT_FOUND');
});


test('r80 d1: createAgent refuses null (or a value of the wrong type) for an option with E_INPUT naming it, never reading it as left out: env: null never hands the agent this process\'s whole environment, answered: null never replays the script from its start, nodeIds: null never lets a misspelt script key through', (c) => {
  writeFileSync(join(c.dir, 'typo.yaml'), 'ask:\n  - {x: a}\naks:\n  - {x: b}\n');
  const nodeIds = ['start', 'ask', 'done'];
  // The misspelt key is refused when the node ids are given; a null in their place is no way around that.
  assert.is(thrown(() => createAgent('scripted:typo.yaml', { cwd: c.dir, nodeIds })).message, 'the script typo.yaml has answers for node "aks", which is no node of the workflow that takes answers (a directive or a review), at line 3, column 1 — did you mean "ask"?');
  for (const [spec, options, said] of [
    ['exec:node agent.mjs', { env: null }, 'createAgent\'s env must be an object of environment variables (string values), got null'],
    ['jsonl:node agent.mjs', { env: 'PATH=/bin' }, 'createAgent\'s env must be an object of environment variables (string values), got "PATH=/bin"'],
    ['exec:node agent.mjs', { env: { PORT: 8080 } }, 'createAgent\'s env must be an object of environment variables (string values), got an object'],
    ['scripted:typo.yaml', { answered: null }, 'createAgent\'s answered must map node ids to the number of answers the run already took (whole numbers from 0), got null'],
    ['scripted:typo.yaml', { answered: 0 }, 'createAgent\'s answered must map node ids to the number of answers the run already took (whole numbers from 0), got 0'],
    ['jsonl:node agent.mjs', { answered: null }, 'createAgent\'s answered must map node ids to the number of answers the run already took (whole numbers from 0), got null'],
    ['scripted:typo.yaml', { nodeIds: null }, 'createAgent\'s nodeIds must be a list of the workflow\'s node ids (strings), got null'],
    ['scripted:typo.yaml', { nodeIds: 'ask' }, 'createAgent\'s nodeIds must be a list of the workflow\'s node ids (strings), got "ask"'],
    ['scripted:typo.yaml', { flag: null }, 'createAgent\'s flag must be the flag that named the adapter (a non-empty string), got null'],
    ['openai:gpt', { flag: 5 }, 'createAgent\'s flag must be the flag that named the adapter (a non-empty string), got 5'],
  ] as const) {
    const e = thrown(() => createAgent(spec, { cwd: c.dir, ...options } as never));
    assert.is(e.code, 'E_INPUT', `${spec} ${JSON.stringify(options)}`);
    assert.is(e.message, said);
    assert.match(e.fix!, 'or leave it out');
  }
  // Options left out (or undefined) are still left out.
  assert.ok(createAgent('scripted:typo.yaml', { cwd: c.dir, env: undefined, answered: undefined, nodeIds: undefined, flag: undefined }));
});

test('r81 d2: createAgent refuses an empty cwd with E_INPUT naming the option, for every adapter: never silently the process\'s current directory (as openStore and createSqliteStore refuse an empty directory)', (c) => {
  writeFileSync(join(c.dir, 'x.yaml'), 'ask:\n  - {x: 1}\n');
  const before = process.cwd();
  process.chdir(c.dir);
  try {
    for (const spec of ['exec:pwd', 'jsonl:cat', 'scripted:x.yaml', 'interactive']) {
      for (const cwd of ['', '  ']) {
        const e = thrown(() => createAgent(spec, { cwd }));
        assert.is(e.code, 'E_INPUT', `${spec} ${JSON.stringify(cwd)}`);
        assert.is(e.message, `createAgent's cwd must be an existing directory (where agents run and scripts are found), got ${JSON.stringify(cwd)}: an empty one is never taken for the current directory`);
        assert.match(e.fix!, 'cwd: process.cwd()');
      }
    }
  } finally {
    process.chdir(before);
  }
});

test('r81 d3: createAgent refuses a cwd that does not exist, or is a file, with E_INPUT naming it ("must be an existing directory") at creation; an agent whose directory is removed afterwards is E_AGENT_CRASHED naming the missing working directory, never blaming sh', async (c) => {
  const missing = join(c.dir, 'nope', 'dir');
  const file = join(c.dir, 'a-file');
  writeFileSync(file, 'x');
  for (const spec of ['exec:echo {}', 'jsonl:cat', 'scripted:x.yaml', 'interactive']) {
    for (const [cwd, what] of [[missing, 'does not exist'], [file, 'is not a directory']] as const) {
      const e = thrown(() => createAgent(spec, { cwd }));
      assert.is(e.code, 'E_INPUT', `${spec} ${cwd}`);
      assert.is(e.message, `createAgent's cwd must be an existing directory (where agents run and scripts are found): ${cwd} ${what}`);
      assert.is(e.file, cwd);
      // r82 d6: a file cannot be created as the directory: its fix says to pass a directory instead.
      assert.match(e.fix!, what === 'does not exist' ? `create ${cwd} first` : `${cwd} is a file: pass a directory as cwd instead`);
    }
  }
  // Removed after the agent was created: the first request says which directory is gone.
  const gone = join(c.dir, 'gone');
  mkdirSync(gone);
  const exec = createAgent('exec:echo {}', { cwd: gone });
  const jsonl = createAgent('jsonl:cat', { cwd: gone });
  rmSync(gone, { recursive: true });
  for (const [agent, who] of [[exec, 'the exec agent `echo {}`'], [jsonl, 'the jsonl agent `cat`']] as const) {
    const e = await agent.answer(request('ask'), opts).then(() => undefined, (err) => err as CountersignError);
    assert.is(e?.code, 'E_AGENT_CRASHED', who);
    assert.is(e!.message, `${who} could not start for node "ask": its working directory ${gone} no longer exists (or is not a directory)`);
    assert.is(e!.fix, `restore or recreate ${gone} (the agent runs there), then resume the run; it is still waiting`);
    assert.not.match(e!.message + e!.fix, /\bsh\b/);
    await agent.close?.();
  }
});

/** A variable only the caller's environment holds, and a command that answers with what the agent saw of it. */
const INHERITED = 'CS_R80_INHERITED';
const jsonlEcho = `jsonl:node -e "require('readline').createInterface({input:process.stdin}).on('line',()=>console.log(JSON.stringify({msg:String(process.env.${INHERITED})})))"`;
const execEcho = `exec:cat > /dev/null; node -e "process.stdout.write(JSON.stringify({msg:String(process.env.${INHERITED})}))"`;

test('E r80: with no env, jsonl: and exec: agents from createAgent inherit this process\'s environment (README: "with the inherited environment")', async (c) => {
  const value = `from-the-caller-${process.pid}`;
  process.env[INHERITED] = value;
  try {
    for (const spec of [jsonlEcho, execEcho]) {
      const agent = createAgent(spec, { cwd: c.dir });
      try {
        assert.equal(await agent.answer(request('n'), opts), { msg: value }, spec);
      } finally {
        await agent.close?.();
      }
    }
  } finally {
    delete process.env[INHERITED];
  }
  // An env given is the whole environment: nothing of this process's is added to it.
  const agent = createAgent(execEcho, { cwd: c.dir, env: { PATH: process.env.PATH } });
  assert.equal(await agent.answer(request('n'), opts), { msg: 'undefined' });
});

test('E r80: countersign run hands its own environment to jsonl: and exec: agents: a variable set where the command runs reaches the agent', async (c) => {
  const wf = join(c.dir, 'echo.json');
  writeFileSync(wf, JSON.stringify({
    metadata: { name: 'echo', version: '1.0.0', description: 'the agent says what it saw' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Say it', completionCondition: 'said', inputSchema: { type: 'object', properties: { msg: { type: 'string' } }, required: ['msg'] }, connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['ask.msg'] },
    ],
  }));
  assert.is(process.env[INHERITED], undefined, 'only the command\'s environment holds the variable');
  for (const spec of [jsonlEcho, execEcho]) {
    const r = await cli(['run', wf, '--agent', spec, '--json'], { store: join(c.dir, 'store'), cwd: c.dir, env: { PATH: process.env.PATH, [INHERITED]: 'set-for-the-command' } });
    assert.is(r.code, 0, r.stderr);
    assert.equal(r.json.output, { 'ask.msg': 'set-for-the-command' }, spec);
  }
});

test.run();
