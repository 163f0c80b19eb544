/**
 * Data-driven CLI conformance: every fixture under fixtures/cli/ is a list
 * of `countersign` invocations and what each must do — its exact exit code,
 * the error code of its --json document, parts of that document, the run's
 * journal, words on stdout/stderr. It reaches the exit codes the workflow
 * fixtures (conformance.test.ts) cannot: validate and graph, status and
 * trace, unknown runs, `run` stopped by --max-steps or by an adapter fault,
 * an invalid workflow given to `run`, and node deadlines on the wall clock
 * across separate commands and inside a driving `run`.
 *
 * A fixture:
 *
 *   name: the behaviour (cited by the issue section it checks)
 *   files: { path: text | object }   written into a fresh working directory
 *                                    (objects as JSON); the CLI runs there,
 *                                    with a store of the fixture's own
 *   calls:
 *     - sleepMs: 400                 a real wait before the call (deadlines
 *                                    run on the wall clock); alone, just a wait
 *       args: [step, $RUN, --response, '{}', --json]
 *                                    $RUN: the runId of the latest --json
 *                                    document that had one; $ROOT/… a file
 *                                    of this repository (workflows/…)
 *       stdin: text | object         objects are sent as JSON; { $repeat, times }
 *                                    is expanded as in the workflow fixtures
 *       code: 5                      the exit code (required with args)
 *       error: E_TIMEOUT             the --json document's error.code
 *       json: { … }                  a deep subset of the --json document
 *                                    (arrays: same length, each item a subset)
 *       journal: [ … ]               a trace --json document's events as
 *                                    journal.ts writes them, every ISO time
 *                                    written <time>
 *       stdoutIncludes / stdoutExcludes / stderrIncludes / stderrExcludes: [ … ]
 *       exists / absent: [ path … ]   files in the working directory after the call
 *       maxMs: 5000                  the call returns within this many ms
 *
 * Agents given as `jsonl:`/`exec:` commands run under `sh` with this
 * process's PATH; a silent agent is `jsonl:cat >/dev/null`, which answers
 * nothing and exits as soon as the run closes its input.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { cli, ROOT } from '../helpers/cli.js';
import { describeEvent } from './journal.js';
import { expandRepeats } from './repeat.js';
import type { JournalEvent } from '../../engine/run/contract.js';

interface Call {
  sleepMs?: number;
  args?: string[];
  stdin?: string | object;
  code?: number;
  error?: string;
  json?: unknown;
  journal?: string[];
  stdoutIncludes?: string[];
  stderrIncludes?: string[];
  stderrExcludes?: string[];
  stdoutExcludes?: string[];
  exists?: string[];
  absent?: string[];
  maxMs?: number;
}

interface CliFixture {
  name: string;
  files?: Record<string, string | object>;
  calls: Call[];
}

const dir = join(fileURLToPath(new URL('.', import.meta.url)), 'fixtures', 'cli');
const CliExitCodes = suite('conformance: CLI invocations and exit codes (fixtures/cli)');

const KNOWN_KEYS = new Set(['sleepMs', 'args', 'stdin', 'code', 'error', 'json', 'journal', 'stdoutIncludes', 'stderrIncludes', 'stderrExcludes', 'stdoutExcludes', 'exists', 'absent', 'maxMs']);
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;

for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
  const fixture = parse(readFileSync(join(dir, file), 'utf8')) as CliFixture;
  CliExitCodes(`cli/${file.replace(/\.ya?ml$/, '')}: ${fixture.name}`, async () => {
    const work = mkdtempSync(join(tmpdir(), 'countersign-cli-conf-'));
    for (const [path, content] of Object.entries(fixture.files ?? {})) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), typeof content === 'string' ? content : JSON.stringify(content));
    }
    const store = join(work, 'store');
    let runId: string | undefined;
    assert.ok(fixture.calls?.length, `${file}: a fixture lists calls`);
    for (const [i, call] of fixture.calls.entries()) {
      // A misspelt expectation would otherwise check nothing and pass.
      for (const key of Object.keys(call)) assert.ok(KNOWN_KEYS.has(key), `${file} call ${i}: unknown key "${key}"`);
      if (call.sleepMs) await new Promise((done) => setTimeout(done, call.sleepMs));
      if (!call.args) continue;
      assert.type(call.code, 'number', `${file} call ${i}: every call states its exit code`);
      const args = call.args.map((a) => {
        if (a.startsWith('$ROOT/')) return join(ROOT, a.slice('$ROOT/'.length));
        if (a !== '$RUN') return a;
        assert.ok(runId, `${file} call ${i}: $RUN before any --json document named a run`);
        return runId!;
      });
      const where = `${file} call ${i} (${args.join(' ').slice(0, 120)})`;
      const json = args.includes('--json');
      if ((call.error ?? call.json ?? call.journal) !== undefined) assert.ok(json, `${where}: error/json/journal checks need --json`);
      const stdin = call.stdin === undefined ? undefined : typeof call.stdin === 'string' ? call.stdin : JSON.stringify(expandRepeats(call.stdin));
      const began = Date.now();
      const r = await cli(args, { store, cwd: work, env: { PATH: process.env.PATH }, ...(stdin !== undefined ? { stdin } : {}) });
      const took = Date.now() - began;
      const said = `\nstdout: ${r.stdout.slice(0, 1500)}\nstderr: ${r.stderr.slice(0, 1500)}`;
      assert.is(r.code, call.code, `${where}: exit code${said}`);
      if (call.maxMs !== undefined) assert.ok(took <= call.maxMs, `${where}: took ${took} ms, more than ${call.maxMs}`);
      if (call.error !== undefined) assert.is(r.json?.error?.code, call.error, `${where}: error code${said}`);
      if (call.json !== undefined) assertSubset(r.json, call.json, `${where}: json`);
      if (call.journal !== undefined) {
        const events = (r.json?.events ?? []) as JournalEvent[];
        assert.equal(events.map((e) => describeEvent(e).replace(ISO_TIME, '<time>')), call.journal, `${where}: journal`);
      }
      for (const s of call.stdoutIncludes ?? []) assert.ok(r.stdout.includes(s), `${where}: stdout lacks ${JSON.stringify(s)}${said}`);
      for (const s of call.stderrIncludes ?? []) assert.ok(r.stderr.includes(s), `${where}: stderr lacks ${JSON.stringify(s)}${said}`);
      for (const s of call.stderrExcludes ?? []) assert.not.ok(r.stderr.includes(s), `${where}: stderr has ${JSON.stringify(s)}${said}`);
      for (const s of call.stdoutExcludes ?? []) assert.not.ok(r.stdout.includes(s), `${where}: stdout has ${JSON.stringify(s)}${said}`);
      for (const p of call.exists ?? []) assert.ok(existsSync(join(work, p)), `${where}: ${p} should exist`);
      for (const p of call.absent ?? []) assert.not.ok(existsSync(join(work, p)), `${where}: ${p} should not exist`);
      if (typeof r.json?.runId === 'string') runId = r.json.runId;
    }
  });
}

/** `want` is a deep subset of `got`: every key it names matches; arrays match item by item, with the same length. */
function assertSubset(got: unknown, want: unknown, path: string): void {
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), `${path}: expected a list, got ${JSON.stringify(got)?.slice(0, 300)}`);
    const list = got as unknown[];
    assert.is(list.length, want.length, `${path}: length of ${JSON.stringify(list).slice(0, 300)}`);
    want.forEach((w, k) => assertSubset(list[k], w, `${path}[${k}]`));
  } else if (want !== null && typeof want === 'object') {
    assert.ok(got !== null && typeof got === 'object' && !Array.isArray(got), `${path}: expected an object, got ${JSON.stringify(got)?.slice(0, 300)}`);
    for (const [k, w] of Object.entries(want)) {
      // null in a fixture: the key is absent (or null).
      if (w === null) assert.ok((got as Record<string, unknown>)[k] == null, `${path}.${k}: expected absent, got ${JSON.stringify((got as Record<string, unknown>)[k])?.slice(0, 300)}`);
      else assertSubset((got as Record<string, unknown>)[k], w, `${path}.${k}`);
    }
  } else {
    assert.is(got, want, path);
  }
}

CliExitCodes.run();
