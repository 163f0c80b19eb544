/**
 * A workflow's own tools (issue 5): `toolModules` are resolved against the
 * workflow file and loaded only when the host allows it, because loading
 * runs their code. Refused otherwise (E_TOOL_MODULE_BLOCKED); validate,
 * which never runs them, warns rather than fails about their tools.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, validateFile } from '../../engine/index.js';
import { cli, spawnCli } from '../helpers/cli.js';
import { shoutProject } from '../fixtures/shout-module.js';

const project = () => shoutProject('countersign-modules-');

const Modules = suite('tool modules');

Modules('a workflow naming toolModules is refused with E_TOOL_MODULE_BLOCKED unless the host allows them; nothing runs', async () => {
  const { file } = project();
  const store = createMemoryStore();
  const code = await createEngine({ store }).start(file).then(() => 'started', (e: { code?: string }) => e.code);
  assert.is(code, 'E_TOOL_MODULE_BLOCKED');
  assert.equal(store.list(), []);
});

Modules('allowed, the module\'s tools are loaded relative to the workflow file and run', async () => {
  const { file } = project();
  const s = await createEngine({ store: createMemoryStore(), allowToolModules: true }).start(file);
  assert.equal(s.status === 'completed' && s.output, { 'shout.result': { loud: 'HI' } });
});

Modules('validate does not run modules: their tools are a warning (E_TOOL_UNKNOWN), not an error', () => {
  const { file } = project();
  const report = validateFile(file);
  assert.is(report.ok, true);
  assert.equal(report.warnings.map((w) => w.code), ['E_TOOL_UNKNOWN']);
});

Modules('the CLI loads them only with --allow-tool-modules', async () => {
  const { dir, file } = project();
  const store = join(dir, 'store');
  const refused = await cli(['start', file, '--json'], { store });
  assert.is(refused.code, 2);
  assert.is(refused.json.error.code, 'E_TOOL_MODULE_BLOCKED');
  const ok = await cli(['start', file, '--allow-tool-modules', '--json'], { store });
  assert.is(ok.code, 0, ok.stderr);
  assert.equal(ok.json.output, { 'shout.result': { loud: 'HI' } });
});

Modules('a module with a syntax error is E_TOOL_MODULE naming the module\'s own line:column, from the library and the CLI alike', async () => {
  const { dir, file } = project();
  const module = join(dir, 'tools', 'shout.mjs');
  writeFileSync(module, 'export const a = 1;\nconst b = ;\n');
  const e = await createEngine({ store: createMemoryStore(), allowToolModules: true }).start(file).then(() => undefined, (err: { code?: string; message?: string; fix?: string }) => err);
  assert.is(e?.code, 'E_TOOL_MODULE');
  assert.match(e?.message ?? '', `${module}:2:11 has a syntax error: Unexpected token ';'`);
  assert.match(e?.fix ?? '', 'correct the module\'s syntax');
  const viaCli = await cli(['validate', file, '--allow-tool-modules']);
  assert.is(viaCli.code, 1);
  assert.match(viaCli.stdout, `${module}:2:11 has a syntax error`);
  // A syntax error in a file the module imports, or a SyntaxError thrown while it runs, is never pinned on the module.
  for (const [source, extra] of [["import { x } from './dep.mjs';\nexport const tools = [];\n", 'export const x = ;\n'], ["JSON.parse('{\"a\": 1,}');\nexport const tools = [];\n", undefined]] as const) {
    writeFileSync(module, source);
    if (extra) writeFileSync(join(dir, 'tools', 'dep.mjs'), extra);
    const err = await createEngine({ store: createMemoryStore(), allowToolModules: true }).start(file).then(() => undefined, (x: { code?: string; message?: string; fix?: string }) => x);
    assert.is(err?.code, 'E_TOOL_MODULE');
    assert.match(err?.message ?? '', `tool module ${module} could not be loaded: SyntaxError:`);
    assert.match(err?.message ?? '', 'the module itself parses');
    assert.not.match(err?.message ?? '', 'has a syntax error');
    assert.match(err?.fix ?? '', `node ${module}`);
  }
});

Modules('r85: a syntax error at the end of the module (an unclosed bracket) is named at the module\'s own line:column too: where the input ends, from the library and the CLI', async () => {
  const { dir, file } = project();
  const module = join(dir, 'tools', 'shout.mjs');
  for (const [source, at] of [['export const tools = [ {\n', '2:1'], ['export const tools = [ {', '1:25'], ['export const tools = [ {\n\n\n', '4:1']] as const) {
    writeFileSync(module, source);
    const e = await createEngine({ store: createMemoryStore(), allowToolModules: true }).start(file).then(() => undefined, (err: { code?: string; message?: string; fix?: string }) => err);
    assert.is(e?.code, 'E_TOOL_MODULE', JSON.stringify(source));
    assert.match(e?.message ?? '', `${module}:${at} has a syntax error: Unexpected end of input`, JSON.stringify(source));
    assert.match(e?.fix ?? '', 'at that line and column');
  }
  writeFileSync(module, 'export const tools = [ {\n');
  const viaCli = await cli(['start', file, '--allow-tool-modules', '--json'], { store: join(dir, 'store') });
  assert.is(viaCli.code, 2, viaCli.stderr);
  assert.match(viaCli.json.error.message, `tool module ${module}:2:1 has a syntax error: Unexpected end of input`);
});

Modules('a module that is found but throws while it loads says so, with `node <module>` as the fix; a missing one says it does not exist, with the path fix', async () => {
  const { dir, file } = project();
  const module = join(dir, 'tools', 'shout.mjs');
  writeFileSync(module, 'throw "boom";\n');
  const threw = await createEngine({ store: createMemoryStore(), allowToolModules: true }).start(file).then(() => undefined, (x: { code?: string; message?: string; fix?: string }) => x);
  assert.equal([threw?.code, threw?.fix], ['E_TOOL_MODULE', `run \`node ${module}\` to see where it fails`]);
  assert.match(threw?.message ?? '', `tool module ${module} threw while it was loaded (its own code or a module it imports): boom`);
  rmSync(module);
  const missing = await createEngine({ store: createMemoryStore(), allowToolModules: true }).start(file).then(() => undefined, (x: { code?: string; message?: string; fix?: string }) => x);
  assert.equal([missing?.code, missing?.message], ['E_TOOL_MODULE', `tool module ${module} does not exist`]);
  assert.match(missing?.fix ?? '', 'check the path');
});

Modules('a folder, a JSON file or (under plain node) a .ts file named as a module never ran: it is "not a JavaScript module Node can load", with a fix to name a .mjs or .js file, never `node <module>`', async () => {
  const { dir, file } = project();
  const flow = JSON.parse(readFileSync(file, 'utf8'));
  const named = (entry: string) => writeFileSync(file, JSON.stringify({ ...flow, toolModules: [entry] }));
  mkdirSync(join(dir, 'tools', 'folder'));
  writeFileSync(join(dir, 'tools', 'data.json'), '{"tools": []}\n');
  named('./tools/folder');
  const e = await createEngine({ store: createMemoryStore(), allowToolModules: true }).start(file).then(() => undefined, (x: { code?: string; message?: string; fix?: string }) => x);
  assert.is(e?.code, 'E_TOOL_MODULE');
  assert.match(e?.message ?? '', `tool module ${join(dir, 'tools', 'folder')} is not a JavaScript module Node can load`);
  assert.is(e?.fix, 'name a .mjs or .js file that exports a tools array');
  // JSON and TypeScript load under tsx (this suite's loader), not under the CLI's plain node.
  writeFileSync(join(dir, 'tools', 'shout.ts'), 'export const tools = [];\n');
  for (const entry of ['./tools/data.json', './tools/shout.ts']) {
    named(entry);
    const viaCli = spawnCli(['start', file, '--allow-tool-modules', '--json', '--store', join(dir, 'store')]);
    const error = JSON.parse(viaCli.stdout).error;
    assert.is(error.code, 'E_TOOL_MODULE', entry);
    assert.match(error.message, `${join(dir, entry)} is not a JavaScript module Node can load`, entry);
    assert.is(error.fix, 'name a .mjs or .js file that exports a tools array', entry);
  }
});

Modules('start and run place a module fault at the workflow\'s toolModules entry (file:line:col), as validate does; a blocked one at the toolModules key', async () => {
  const { dir, file } = project();
  writeFileSync(join(dir, 'tools', 'shout.mjs'), 'export const tools = { name: "shout" };\n');
  const fromValidate = (await cli(['validate', file, '--allow-tool-modules'])).stdout;
  const at = /:(\d+):(\d+) error E_TOOL_MODULE/.exec(fromValidate);
  assert.ok(at, fromValidate);
  for (const command of ['start', 'run']) {
    const r = await cli([command, file, '--allow-tool-modules', '--json'], { store: join(dir, 'store') });
    assert.equal([r.json.error.code, r.json.error.pointer, r.json.error.line, r.json.error.col], ['E_TOOL_MODULE', '/toolModules/0', Number(at![1]), Number(at![2])], command);
    assert.match(r.stderr, `countersign: E_TOOL_MODULE: ${file}:${at![1]}:${at![2]}: tool module`);
  }
  const blocked = await cli(['start', file, '--json'], { store: join(dir, 'store') });
  assert.equal([blocked.json.error.code, blocked.json.error.pointer, typeof blocked.json.error.line], ['E_TOOL_MODULE_BLOCKED', '/toolModules', 'number']);
});

Modules('a run that already exists is refused for its stored workflow\'s modules: the message says so, and the fix never points at the file, which the run no longer reads', async () => {
  const { dir, file } = project();
  // The tool first, then a directive the run waits at.
  const flow = JSON.parse(readFileSync(file, 'utf8'));
  flow.nodes[1].connections = { success: 'ask' };
  flow.nodes.splice(2, 0, { type: 'agent-directive', id: 'ask', directive: 'say x', completionCondition: 'said', inputSchema: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] }, connections: { success: 'done' } });
  writeFileSync(file, JSON.stringify(flow));
  const store = join(dir, 's q');
  const started = await cli(['start', file, '--allow-tool-modules', '--json'], { store });
  assert.is(started.code, 0, started.stderr);
  const runId = started.json.runId as string;
  // The user follows "remove toolModules" on the file: the run keeps its stored copy, which still names them.
  writeFileSync(file, JSON.stringify({ ...flow, toolModules: undefined }));
  const script = join(dir, 'answers.json');
  writeFileSync(script, JSON.stringify({ ask: [{ x: 'a' }] }));
  for (const args of [['run', '--resume', runId, '--agent', `scripted:${script}`], ['step', runId, '--seq', '2', '--response', '{"x":"a"}']]) {
    const r = await cli([...args, '--json'], { store });
    const error = r.json.error;
    assert.is(r.code, 2, args[0]);
    assert.is(error.code, 'E_TOOL_MODULE_BLOCKED', args[0]);
    assert.match(error.message, `run ${runId}'s stored workflow (started from ${file}) names tool modules (./tools/shout.mjs)`, args[0]);
    assert.not.ok(error.file, `${args[0]}: the file on disk is not where the modules are named`);
    assert.match(error.fix, 'pass --allow-tool-modules', args[0]);
    assert.match(error.fix, 'start a new run', args[0]);
    assert.not.match(error.fix, /otherwise remove toolModules/, args[0]);
    assert.match(r.stderr, `countersign: E_TOOL_MODULE_BLOCKED: run ${runId}'s stored workflow`, args[0]);
  }
  // Both steps the fix offers work: the flag resumes the run; a new run from the edited file has no modules.
  const allowed = await cli(['step', runId, '--seq', '2', '--response', '{"x":"a"}', '--allow-tool-modules', '--json'], { store });
  assert.is(allowed.code, 0, allowed.stderr);
  assert.is(allowed.json.status, 'completed');
});

Modules.run();

const Full = suite('validate --allow-tool-modules');

Full('validate --allow-tool-modules loads the modules and checks their tools as start will: a mistyped tool name is an error with a did-you-mean; without the flag it is a warning naming the flag', async () => {
  const { dir } = project();
  const typo = join(dir, 'typo.json');
  writeFileSync(typo, JSON.stringify({
    metadata: { name: 'typo', version: '1.0.0', description: 'a mistyped module tool' },
    toolModules: ['./tools/shout.mjs'],
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'shout' } },
      { type: 'tool', id: 'shout', tool: 'shuot', args: { text: 'hi' }, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  const loose = await cli(['validate', typo]);
  assert.is(loose.code, 0);
  assert.match(loose.stdout, /warning E_TOOL_UNKNOWN .*--allow-tool-modules/);
  const full = await cli(['validate', typo, '--allow-tool-modules', '--json']);
  assert.is(full.code, 1);
  assert.equal(full.json.files[0].errors.map((e: { code: string; pointer: string }) => [e.code, e.pointer]), [['E_TOOL_UNKNOWN', '/nodes/1/tool']]);
  assert.match(full.json.files[0].errors[0].message, /did you mean "shout"/);
  const ok = await cli(['validate', join(dir, 'flow.json'), '--allow-tool-modules']);
  assert.is(ok.code, 0, ok.stdout + ok.stderr);
});

Full('validate --allow-tool-modules: a module that does not load is E_TOOL_MODULE located at its entry (line:col), without the "may come from toolModules" warnings', async () => {
  const { dir } = project();
  writeFileSync(join(dir, 'tools', 'shout.mjs'), 'export const nothing = 1;\n');
  const r = await cli(['validate', join(dir, 'flow.json'), '--allow-tool-modules', '--json']);
  assert.is(r.code, 1);
  const [error] = r.json.files[0].errors;
  assert.equal([error.code, error.pointer], ['E_TOOL_MODULE', '/toolModules/0']);
  assert.ok(error.line > 0 && error.col > 0, JSON.stringify(error));
  assert.equal(r.json.files[0].warnings, []);
});

Full.run();
