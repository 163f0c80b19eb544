/**
 * `run --agent interactive` on a real terminal (a pty): what a person
 * types or pastes reaches the answer whole, up to the documented 16 MiB,
 * not cut at the kernel's 4095-byte line; editing keys, Ctrl-C and Ctrl-D
 * do what they do at any prompt; and the terminal is left as it was found.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { createInteractiveAgent } from '../../engine/hosts/interactive.js';
import type { AgentRequest } from '../../engine/run/contract.js';
import { LAUNCHER, tempDir } from '../helpers/cli.js';
import { runInPty, type PtyStep } from '../helpers/pty.js';

const WORKFLOW = {
  metadata: { name: 'one-answer', version: '1.0.0', description: 'one directive' },
  variableRegistry: { x: { type: 'string', description: 'what the person typed' } },
  nodes: [
    { type: 'start', id: 'start', connections: { default: 'a' } },
    { type: 'agent-directive', id: 'a', directive: 'say x', completionCondition: 'done', inputSchema: { type: 'object', properties: {}, globalInputs: ['x'], required: ['x'] }, connections: { success: 'end' } },
    { type: 'end', id: 'end', finalOutput: ['x'] },
  ],
};

/** The prompt's last line, shown when the adapter waits for an answer. */
const PROMPT = 'an empty line submits), or `$error: <why>` to declare failure.\n> ';

/** `run` at a terminal, stdout (--json) into a file; then the terminal's settings as stty prints them. */
async function runAtTerminal(steps: PtyStep[], redirect = '') {
  return interactiveRun('wf.json', WORKFLOW, steps, redirect, '; stty -a');
}

/**
 * `countersign run <file> --agent interactive` at a terminal, its --json
 * document into out.json: what the terminal showed, the exit status, the
 * document and the folder. The shell outlives a Ctrl-C (sent, as the
 * kernel sends it, to the whole foreground process group) to say how the
 * run ended; `after` runs in it next.
 */
async function interactiveRun(file: string, workflow: unknown, steps: PtyStep[], redirect = '', after = '') {
  const dir = tempDir();
  writeFileSync(join(dir, file), JSON.stringify(workflow));
  const run = `node ${LAUNCHER} run ${file} --agent interactive --store st --agent-timeout 60 --json > out.json${redirect}`;
  const r = await runInPty(`trap true INT; ${run}; echo "exit=$?"${after}`, steps, { cwd: dir });
  const exit = /exit=(\d+)/.exec(r.output);
  let json: any;
  try {
    json = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'));
  } catch {
    json = undefined;
  }
  return { ...r, exit: exit ? Number(exit[1]) : undefined, json, dir };
}

/** The terminal is back in its usual (canonical, echoing, signal-raising) mode. */
function assertTerminalRestored(output: string): void {
  const settings = output.slice(output.lastIndexOf('exit='));
  for (const flag of ['icanon', 'echo', 'isig', 'icrnl']) assert.match(settings, new RegExp(`(^|\\s)${flag}(\\s|$)`), `the terminal was left with -${flag}: ${settings}`);
}

/** A terminal stand-in the adapter edits lines on (it can be put in raw mode), recording the modes it is put in. */
function fakeTerminal() {
  const modes: boolean[] = [];
  const input = Object.assign(new PassThrough(), { isTTY: true as const, setRawMode: (on: boolean) => modes.push(on) });
  const output = Object.assign(new PassThrough(), { isTTY: true });
  let shown = '';
  output.on('data', (d) => (shown += String(d)));
  return { input, output, modes, shown: () => shown };
}

const REQUEST: AgentRequest = {
  kind: 'directive', nodeId: 'a', directive: 'say x', completionCondition: 'done', attempt: 1, maxRetries: 0, runId: 'run-1', seq: 1,
  inputSchema: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
};

const test = suite('interactive adapter at a terminal');

test('the terminal is in raw mode while the adapter edits its lines, and back in its own mode once the agent is closed', async () => {
  const t = fakeTerminal();
  const agent = createInteractiveAgent(t);
  const answer = agent.answer(REQUEST, { signal: new AbortController().signal, timeoutMs: 5000 });
  t.input.write('{"x": "ok"}\r');
  assert.equal(await answer, { x: 'ok' });
  assert.equal(t.modes, [true]);
  // Echoed as typed, once: the adapter does what the terminal's own echo did.
  assert.is(t.shown().split('{"x": "ok"}').length - 1, 1);
  await agent.close!();
  assert.equal(t.modes, [true, false]);
});

test('a line past the 16 MiB limit, typed at a terminal, is dropped and re-prompts however it arrives; the next line is read as usual', async () => {
  for (const chunks of [1, 17]) {
    const t = fakeTerminal();
    const agent = createInteractiveAgent(t);
    const answer = agent.answer(REQUEST, { signal: new AbortController().signal, timeoutMs: 20_000 });
    const big = `{"x": "${'y'.repeat(17 * 1024 * 1024)}"}\r`;
    const size = Math.ceil(big.length / chunks);
    for (let i = 0; i < big.length; i += size) t.input.write(big.slice(i, i + size));
    t.input.write('{"x": "after"}\r');
    assert.equal(await answer, { x: 'after' }, `${chunks} chunk(s)`);
    assert.match(t.shown(), /a line longer than 16777216 bytes was dropped/);
    await agent.close!();
  }
});

test('a line past the 16 MiB limit, pasted at a terminal, is refused on a line of its own once it has ended, and none of its rest shows after the prompt that asks again', async () => {
  const t = fakeTerminal();
  const agent = createInteractiveAgent(t);
  const stop = new AbortController();
  const answer = agent.answer(REQUEST, { signal: stop.signal, timeoutMs: 20_000 });
  // A failed check must not leave the answer waiting out its timeout.
  answer.catch(() => {});
  try {
    await pasteOverlongThenAnswer(t, answer);
  } finally {
    stop.abort();
    await agent.close!();
  }
});

async function pasteOverlongThenAnswer(t: ReturnType<typeof fakeTerminal>, answer: Promise<unknown>) {
  const big = `{"x": "${'y'.repeat(17_000_000)}`;
  const size = 1024 * 1024;
  for (let i = 0; i < big.length; i += size) {
    t.input.write(big.slice(i, i + size));
    await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setTimeout(r, 20));
  assert.not.match(t.shown(), /dropped/, 'no refusal while the line is still arriving');
  t.input.write('zz"}\r{"x": "after"}\r');
  assert.equal(await answer, { x: 'after' });
  // The echo stand-in hands on what was written a turn later.
  await new Promise((r) => setImmediate(r));
  const shown = t.shown();
  const at = shown.indexOf('a line longer than 16777216 bytes was dropped');
  assert.ok(at > 0, 'the refusal is shown');
  assert.is(shown[at - 1], '\n', 'the refusal starts on a line of its own');
  assert.is(shown.slice(at).replace(/^[^\n]*\n/, ''), '> {"x": "after"}\n', 'after the new prompt, only the next answer');
  // Counted by a loop: a regular expression over 16 MiB of one letter can overflow the regex engine's stack.
  const from = shown.indexOf('{"x": "y') + '{"x": "'.length;
  let echoed = 0;
  while (shown.charCodeAt(from + echoed) === 0x79) echoed++;
  assert.ok(echoed <= 16_777_216, `the rest of the dropped line is not echoed (${echoed} of it was)`);
}

test('a pasted answer line longer than the kernel\'s 4095-byte terminal line is read whole (the 16 MiB limit applies), not cut and called invalid JSON', async () => {
  const long = 'a'.repeat(20_000);
  const r = await runAtTerminal([{ waitFor: PROMPT, send: `{"x": "${long}"}\r` }]);
  assert.is(r.exit, 0, r.output.slice(-2000));
  assert.not.match(r.output, 'not valid JSON');
  assert.is(r.json?.status, 'completed');
  assert.is(r.json?.output?.x, long);
  assertTerminalRestored(r.output);
});

test('with stderr redirected away from the terminal (the terminal edits lines itself and keeps 4095 bytes of one), a cut line is refused saying the terminal cut it, never called invalid JSON', async () => {
  // Typed ahead: the prompt goes to the file, and the terminal holds the lines until they are read.
  const r = await runAtTerminal([{ waitFor: '', send: `{"x": "${'a'.repeat(5000)}"}\r{"x": "short"}\r` }], ' 2> err.txt');
  const err = readFileSync(join(r.dir, 'err.txt'), 'utf8');
  assert.is(r.exit, 0, err.slice(-2000));
  assert.match(err, 'that line reached 4095 bytes, the most the terminal keeps of one line');
  assert.match(err, 'break the answer across lines');
  assert.not.match(err, 'not valid JSON');
  assert.is(r.json?.output?.x, 'short');
});

test('an answer pasted over several long lines is read whole, each line echoed once', async () => {
  const first = 'b'.repeat(6000);
  const r = await runAtTerminal([{ waitFor: PROMPT, send: `{\r"x":\r"${first}"\r}\r` }]);
  assert.is(r.exit, 0, r.output.slice(-2000));
  assert.is(r.json?.output?.x, first);
  assert.is(r.output.split(first).length - 1, 1, 'the long line is echoed once');
});

test('editing keys work as at any terminal prompt: backspace erases a character (a multi-byte one whole), Ctrl-U the line, Ctrl-W a word; arrow keys insert nothing', async () => {
  // "abX⌫" → "ab", "é⌫" → nothing left of it, Ctrl-U drops a whole false start, Ctrl-W the word "oops ", ← → insert nothing.
  const r = await runAtTerminal([{ waitFor: PROMPT, send: 'wrong start\x15{"x": "abX\x7fé\x7f oops \x17c\x1b[D\x1b[C"}\r' }]);
  assert.is(r.exit, 0, r.output.slice(-2000));
  assert.is(r.json?.output?.x, 'ab c');
});

test('Ctrl-C at the prompt interrupts the run (exit 130, E_INTERRUPTED, resumable) and leaves the terminal as it was', async () => {
  const r = await runAtTerminal([{ waitFor: PROMPT, send: '{"x": \x03' }]);
  assert.is(r.exit, 130, r.output.slice(-2000));
  assert.is(r.json?.error?.code, 'E_INTERRUPTED');
  assert.is(r.json?.status, 'waiting');
  assertTerminalRestored(r.output);
});

test('Ctrl-D on an empty line closes the input: E_AGENT_CRASHED ("input closed"), exit 3, the run still waiting', async () => {
  const r = await runAtTerminal([{ waitFor: PROMPT, send: '\x04' }]);
  assert.is(r.exit, 3, r.output.slice(-2000));
  assert.is(r.json?.error?.code, 'E_AGENT_CRASHED');
  assert.match(r.json?.error?.message ?? '', 'input closed');
  assertTerminalRestored(r.output);
});

test('Ctrl-D twice after a last line without Enter submits that line and closes the input, as at any terminal', async () => {
  const r = await runAtTerminal([{ waitFor: PROMPT, send: '{"x": "typed"}\x04\x04' }]);
  assert.is(r.exit, 0, r.output.slice(-2000));
  assert.is(r.json?.output?.x, 'typed');
});

const LOOP = {
  metadata: { name: 'loop', version: '1.0.0', description: 'asks until n is 0' },
  nodes: [
    { id: 'start', type: 'start', connections: { default: 'ask' } },
    { id: 'ask', type: 'agent-directive', directive: 'n?', completionCondition: 'c', inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, connections: { success: 'chk' } },
    { id: 'chk', type: 'condition', condition: { operator: 'eq', left: { contextPath: 'ask.n' }, right: 0 }, connections: { true: 'done', false: 'ask' } },
    { id: 'done', type: 'end', finalOutput: ['ask.n'] },
  ],
};

/** `run` of the loop workflow at a terminal (stdout, --json, into a file); the transcript is what the terminal showed. */
async function runLoopAtTerminal(steps: PtyStep[]) {
  return interactiveRun('loop.json', LOOP, steps);
}

/** What the terminal showed after each item's prompt, up to the next item's header. */
function afterEachPrompt(output: string): string[] {
  return output.split(PROMPT).slice(1).map((s) => s.split('── node')[0]);
}

test('answers pasted ahead of their prompts are each shown after the prompt that takes them, with the progress on a line of its own', async () => {
  const r = await runLoopAtTerminal([{ waitFor: PROMPT, send: '{"n": 3}\r{"n": 4}\r{"n": 0}\r' }]);
  assert.is(r.exit, 0, r.output.slice(-2000));
  assert.is(r.json?.status, 'completed');
  const shown = afterEachPrompt(r.output);
  assert.is(shown.length, 3, r.output.slice(-2000));
  for (const [i, n] of [3, 4, 0].entries()) {
    assert.match(shown[i], new RegExp(`^\\{"n": ${n}\\}\\n[^\\n]*ask answered`), `item ${i + 1} shows the answer it took, then the progress on its own line: ${JSON.stringify(shown[i])}`);
  }
});

test('Ctrl-C typed ahead of the next prompt interrupts the run at once, and the answers typed ahead of it are not taken', async () => {
  const r = await runLoopAtTerminal([{ waitFor: PROMPT, send: '{"n": 3}\r{"n": 0}\r\x03' }]);
  assert.is(r.exit, 130, r.output.slice(-2000));
  assert.is(r.json?.error?.code, 'E_INTERRUPTED');
  assert.is(r.json?.status, 'waiting');
});

test('a line pasted ahead of its prompt is not shown until that prompt, then shown after it (a continuation line after `… ` too)', async () => {
  const t = fakeTerminal();
  const agent = createInteractiveAgent(t);
  const first = agent.answer(REQUEST, { signal: new AbortController().signal, timeoutMs: 5000 });
  t.input.write('{"x": "one"}\r{\r"x": "two"}\r');
  assert.equal(await first, { x: 'one' });
  await new Promise((r) => setImmediate(r));
  assert.not.match(t.shown(), 'two', 'nothing of the next answer before its prompt');
  const second = agent.answer({ ...REQUEST, seq: 2 }, { signal: new AbortController().signal, timeoutMs: 5000 });
  assert.equal(await second, { x: 'two' });
  await new Promise((r) => setImmediate(r));
  assert.match(t.shown(), /seq 2[\s\S]*\n> \{\n… "x": "two"\}\n$/);
  await agent.close!();
});

test.run();
