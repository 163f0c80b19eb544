/** README is part of the product: its promises are checked here. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODES, WARNING_CODES } from '../../engine/codes.js';
import { COMMANDS } from '../../engine/cli/commands/index.js';
import { ROOT } from '../helpers/cli.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const Readme = suite('README');

Readme('every stable error code is documented in the error-code table', () => {
  const missing = Object.keys(CODES).filter((code) => !readme.includes(`| \`${code}\` |`));
  assert.equal(missing, []);
});

Readme('each code\'s meaning in the table is the one the engine exports (CODES), warnings marked (warning): one text, not two drifting apart', () => {
  const section = readme.slice(readme.indexOf('## Error codes'));
  const rows = new Map([...section.matchAll(/^\| `([A-Za-z_]+)` \| (.*) \|$/gm)].map((m) => [m[1], m[2].replace(/`/g, '').replace(/\\\|/g, '|')]));
  const differing = Object.entries(CODES).filter(([code, text]) => rows.get(code) !== text).map(([code]) => code);
  assert.equal(differing, []);
  for (const code of WARNING_CODES) assert.ok(CODES[code as keyof typeof CODES].startsWith('(warning) '), `${code} is marked as a warning`);
});

Readme('the Development source map lists every folder under engine/, so a reader finds any behaviour from the folder names', () => {
  const tree = readme.slice(readme.indexOf('## Development'));
  const map = tree.slice(0, tree.indexOf('```', tree.indexOf('```') + 3));
  const folders = readdirSync(join(ROOT, 'engine'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  assert.ok(folders.length > 5);
  assert.equal(folders.filter((f) => !new RegExp(`^  ${f}/ +\\S`, 'm').test(map)), []);
});

Readme('the jsonLogic operations README lists are exactly those the validator accepts', async () => {
  const { JSON_LOGIC_OPERATIONS } = await import('../../engine/nodes/json-logic.js');
  const listed = readme.slice(readme.indexOf('The operations a rule may use are'), readme.indexOf('; any other (`missing`'));
  const ops = [...listed.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  assert.equal(ops.sort(), [...JSON_LOGIC_OPERATIONS].sort());
});

Readme('the quick start is exactly two commands, and they are the package scripts that exist', () => {
  const block = /## Quick start\n\n```sh\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'quick start block');
  const commands = block![1].trim().split('\n').map((l) => l.replace(/\s+#.*$/, '').trim());
  assert.equal(commands, ['npm install && npm start', 'npm test']);
  assert.ok(pkg.scripts.start && pkg.scripts.test);
});

Readme('every CLI command is in the command table with its exit codes', () => {
  for (const name of Object.keys(COMMANDS)) {
    const row = readme.split('\n').find((l) => l.startsWith(`| \`${name} `) || l.startsWith(`| \`${name}\``));
    assert.ok(row, `README lacks ${name}`);
    // The second column lists exit codes: `0 …`, each after the first behind ` · `.
    const codes = row!.split(' | ')[1] ?? '';
    assert.match(codes, /^0\b/, `${name}: its row names exit code 0 first`);
    assert.ok(codes.split(' · ').every((part) => /^\d+\b/.test(part.trim())), `${name}: every entry of its exit codes starts with a code: ${codes}`);
  }
});

Readme('G10, §4.12: what README says a zero-issue report is holds: {"issues": []}, an empty (or comments-only) Markdown file; headings alone and an empty .json report are E_REPORT_FORMAT', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { readReport } = await import('../../engine/review/report.js');
  const promise = /A report of zero issues is ([\s\S]*?)\n\n/.exec(readme)?.[1].replace(/\s+/g, ' ');
  assert.ok(promise, 'README says what a report of zero issues is');
  assert.match(promise!, 'An empty `.json` report is not JSON, so it is `E_REPORT_FORMAT`');
  const dir = mkdtempSync(join(tmpdir(), 'countersign-readme-report-'));
  const count = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    try {
      return readReport(join(dir, name)).issues.length;
    } catch (e) {
      return (e as { code: string }).code;
    }
  };
  assert.is(count('a.json', '{"issues": []}'), 0);
  assert.is(count('b.md', ''), 0);
  assert.match(promise!, 'an empty file (or one holding only comments) in Markdown');
  assert.is(count('c.md', '<!-- nothing found -->\n'), 0);
  assert.is(count('e.md', '# Findings\n\n## None\n'), 'E_REPORT_FORMAT');
  assert.is(count('d.json', ''), 'E_REPORT_FORMAT');
});

Readme('the README example workflow validates and runs to its documented output with the README scripted answers', async () => {
  const { writeFileSync, mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { cli } = await import('../helpers/cli.js');
  const workflow = /## Writing workflows[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)![1];
  const script = /- \*\*`scripted:<file>`\*\*[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)![1].replace(/^ {2}/gm, '');
  const dir = mkdtempSync(join(tmpdir(), 'countersign-readme-'));
  const wf = JSON.parse(workflow);
  delete wf.$schema; // the README's relative $schema points into a repository checkout
  writeFileSync(join(dir, 'review.json'), JSON.stringify(wf));
  writeFileSync(join(dir, 'answers.yaml'), script);
  const r = await cli(['run', join(dir, 'review.json'), '--agent', `scripted:${join(dir, 'answers.yaml')}`, '--json'], { store: join(dir, 'store') });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.endNodeId, 'done');
  assert.equal(r.json.output, { issues_count: 0 });
});

Readme('the shipped workflows the MCP server searches last are every file in workflows/, named by stem', () => {
  const list = /The shipped workflows\s+\(([^)]*)\) are always searched/.exec(readme)?.[1] ?? '';
  const named = [...list.matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort();
  const shipped = readdirSync(join(ROOT, 'workflows')).map((f) => f.replace(/\.(json|ya?ml)$/, '')).sort();
  assert.equal(named, shipped);
});

Readme('the layout section lists every shipped workflow file', () => {
  const listed = /^workflows\/\s+shipped workflows \(([^)]*)\)$/m.exec(readme)?.[1].split(/,\s*/).sort() ?? [];
  assert.equal(listed, readdirSync(join(ROOT, 'workflows')).sort());
});

Readme('r79 d3: the option keys each library call takes (an unknown one is E_INPUT) are the ones the Library API section lists for it, no more and no fewer', async () => {
  const engine = await import('../../engine/run/engine-api.js');
  const { CREATE_AGENT_OPTION_KEYS } = await import('../../engine/hosts/adapters.js');
  const { SCRIPTED_OPTION_KEYS } = await import('../../engine/hosts/scripted.js');
  const { STORE_LOCATION_KEYS } = await import('../../engine/store/open.js');
  const section = readme.slice(readme.indexOf('## Library API'), readme.indexOf('## Limits')).replace(/\s+/g, ' ');
  const documented = (call: string) => {
    const at = section.indexOf(`\`${call}`);
    assert.ok(at >= 0, `README's Library API shows ${call}`);
    const list = /\{([^{}]*)\}\)`/.exec(section.slice(at))?.[1] ?? '';
    return list.split(',').map((k) => k.trim().replace(/\?$/, '')).filter(Boolean).sort();
  };
  for (const [call, keys] of [
    ['createEngine({ store', engine.ENGINE_OPTION_KEYS],
    ['start(source,', engine.START_OPTION_KEYS],
    ['submit(runId, answer,', engine.SUBMIT_OPTION_KEYS],
    ['trace(runId,', engine.TRACE_OPTION_KEYS],
    ['runs({', engine.RUNS_FILTER_KEYS],
    ['recordToolCalls(runId,', engine.RECORD_TOOL_CALLS_KEYS],
    ['run(source |', engine.RUN_OPTION_KEYS],
    ['createAgent(spec,', CREATE_AGENT_OPTION_KEYS],
    ['createScriptedAgent(script,', SCRIPTED_OPTION_KEYS],
    ['openStore({', STORE_LOCATION_KEYS],
  ] as const) {
    assert.equal(documented(call), [...keys].sort(), call);
  }
});

Readme('r81 c6: the record node section says what the code does: of the gate\'s tables a workflow writes only chat_mutating_proposals (every field, its optional ones aside); a record node naming tool_executions, user_confirmations or review_gate_runs is refused whatever fields it gives', async () => {
  const { RUN_FORBIDDEN_TABLES, TABLE_SHAPES, optionalKind } = await import('../../engine/format/table-shapes.js');
  const { validateWorkflow } = await import('../../engine/index.js');
  const section = readme.slice(readme.indexOf('### The `record` node'), readme.indexOf('### Tool calls by agents')).replace(/\s+/g, ' ');
  const writable = Object.keys(TABLE_SHAPES).filter((t) => !RUN_FORBIDDEN_TABLES.has(t));
  assert.equal(writable, ['chat_mutating_proposals']);
  assert.match(section, 'Of the gate\'s tables a workflow may write only `chat_mutating_proposals`');
  const optional = Object.entries(TABLE_SHAPES.chat_mutating_proposals).filter(([, kind]) => optionalKind(kind)).map(([name]) => `\`${name}\``);
  assert.match(section, `(${optional.slice(0, -1).join(', ')} and ${optional[optional.length - 1]} may be left out)`);
  const never = /`([a-z_]+)`, `([a-z_]+)` and `([a-z_]+)` are never written by a workflow/.exec(section);
  assert.ok(never, 'the section names the tables no workflow writes');
  assert.equal(never!.slice(1).sort(), [...RUN_FORBIDDEN_TABLES].sort());
  // The claim the section made before: "a record node writing to one [tool_executions, user_confirmations] must give every field".
  assert.not.match(section, /`tool_executions` and `user_confirmations`, see \[ledger rows\]\(#ledger-rows\)\): a record node writing to one must give every field/);
  for (const table of RUN_FORBIDDEN_TABLES) {
    const fields = Object.fromEntries(Object.entries(TABLE_SHAPES[table]).map(([name, kind]) => [name, kind === 'object' ? { contextPath: 'x' } : kind === 'boolean' ? true : 'v']));
    const report = validateWorkflow({
      metadata: { name: 'rec', version: '1.0.0', description: 'a record node' },
      variableRegistry: { x: { type: 'object', description: 'a target', default: {} } },
      nodes: [
        { type: 'start', id: 'start', connections: { default: 'rec' } },
        { type: 'record', id: 'rec', table, fields, connections: { default: 'done' } },
        { type: 'end', id: 'done' },
      ],
    });
    assert.equal(report.errors.map((e) => `${e.code} ${e.pointer}`), ['E_LEDGER_ROW /nodes/1/table'], table);
  }
});

Readme.run();

const GateSnippet = suite('README: the gate workflow snippet');

GateSnippet('the decision contract\'s example node routes as the shipped gate workflow\'s review node does', async () => {
  const { readFileSync } = await import('node:fs');
  const snippet = /### The decision contract of `delegate-review`[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)![1];
  const shown = JSON.parse(snippet) as { id: string; connections: Record<string, string> };
  const shipped = JSON.parse(readFileSync(join(ROOT, 'workflows/ongrid-review-gate.json'), 'utf8')) as { nodes: Array<{ id: string; connections?: Record<string, string> }> };
  assert.equal(shown.connections, shipped.nodes.find((n) => n.id === shown.id)!.connections);
});

GateSnippet.run();
