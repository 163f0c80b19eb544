/**
 * `validate` checks a workflow's tool declarations (issue 5, ADR-019):
 * - an `access` pattern that matches no known tool claims nothing, which
 *   leaves the tool it was meant for open to every role (H21, H35, H36):
 *   E_TOOL_UNKNOWN at `/access/<role>/<i>` with a did-you-mean, a warning
 *   only while the workflow's toolModules are not loaded;
 * - a role with an empty name is a schema error;
 * - a `toolModules` path that names no file is E_TOOL_MODULE at
 *   `/toolModules/<i>`, found without importing anything.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defineTool, validateFile, validateWorkflow } from '../../engine/index.js';
import { BUILTIN_TOOLS } from '../../engine/tools/builtin/index.js';
import { createToolCatalog } from '../../engine/tools/catalog.js';
import { tempDir } from '../helpers/cli.js';

function workflow(extra: Record<string, unknown>): Record<string, unknown> {
  return {
    metadata: { name: 'declared', version: '1.0.0', description: 'tool declarations only' },
    ...extra,
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'done' } },
      { type: 'end', id: 'done' },
    ],
  };
}

// These workflows have no nodes taking the roles: the unused-role warning has a test of its own.
const found = (report: { errors: { code: string; pointer: string }[]; warnings: { code: string; pointer: string }[] }) => ({
  errors: report.errors.map((f) => [f.code, f.pointer]),
  warnings: report.warnings.filter((f) => f.code !== 'E_ACCESS_ROLE_UNUSED').map((f) => [f.code, f.pointer]),
});

/** The workflow written to a file in a fresh folder (plus any files given, relative to it). */
function onDisk(data: Record<string, unknown>, files: Record<string, string> = {}): string {
  const dir = tempDir('countersign-decl-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const file = join(dir, 'flow.json');
  writeFileSync(file, JSON.stringify(data, null, 2));
  return file;
}

const Access = suite('validate: access entries and toolModules paths');

Access('H21 H36: a misspelt access pattern is E_TOOL_UNKNOWN at /access/<role>/<i> with a did-you-mean, since it would leave the tool open to every role', () => {
  const report = validateWorkflow(workflow({ access: { reviewer: ['post_reveiw'], 'docs-reviewer': ['post_docs_review'] } }));
  assert.equal(found(report), { errors: [['E_TOOL_UNKNOWN', '/access/reviewer/0']], warnings: [] });
  assert.match(report.errors[0].message, 'access pattern "post_reveiw" of role "reviewer" matches no registered tool — did you mean "post_review"?');
  assert.match(report.errors[0].message, 'open to every role');
  assert.is(report.ok, false);
});

Access('H35: exact names and globs that match a known tool pass; a glob matching nothing is flagged at its own index', () => {
  assert.equal(found(validateWorkflow(workflow({ access: { reviewer: ['post_review', 'pr_*'], 'docs-reviewer': ['post_docs_*'] } }))), { errors: [], warnings: [] });
  const report = validateWorkflow(workflow({ access: { ops: ['pr_status', 'deploy_*'] } }));
  assert.equal(found(report), { errors: [['E_TOOL_UNKNOWN', '/access/ops/1']], warnings: [] });
  assert.match(report.errors[0].message, 'known tools: post_review, post_docs_review, pr_status');
});

Access('H35: a host\'s tools (ValidateOptions.tools) and tools a host lends its agents (lentTools) count as known; the built-ins always do', () => {
  const deploy = defineTool({ name: 'deploy', class: 'write', inputSchema: { type: 'object' }, run: () => null });
  const data = workflow({ access: { ops: ['deploy', 'wipe_cache', 'post_review'] } });
  assert.equal(found(validateWorkflow(data)).errors, [['E_TOOL_UNKNOWN', '/access/ops/0'], ['E_TOOL_UNKNOWN', '/access/ops/1']]);
  const tools = createToolCatalog(BUILTIN_TOOLS, [deploy]);
  assert.equal(found(validateWorkflow(data, '<workflow>', { tools })).errors, [['E_TOOL_UNKNOWN', '/access/ops/1']]);
  assert.equal(found(validateWorkflow(data, '<workflow>', { tools: new Map([['deploy', deploy]]), lentTools: ['wipe_cache'] })).errors, []);
});

Access('an access pattern that may name a tool of unloaded toolModules is a warning, as for a tool node; loaded, it is an error', () => {
  const data = workflow({ toolModules: ['/opt/tools/mine.mjs'], access: { ops: ['shout'] } });
  const unloaded = validateWorkflow(data);
  assert.equal(found(unloaded).warnings, [['E_TOOL_UNKNOWN', '/access/ops/0']]);
  assert.equal(found(unloaded).errors.filter(([code]) => code !== 'E_TOOL_MODULE'), [], 'only the (absent) module path itself');
  assert.match(unloaded.warnings[0].message, 'toolModules, which validate loads only with --allow-tool-modules');
  assert.ok(found(validateWorkflow(data, '<workflow>', { modulesLoaded: true })).errors.some(([code, at]) => code === 'E_TOOL_UNKNOWN' && at === '/access/ops/0'));
});

Access('the finding is located at the pattern in the file (line:col), and a role name with "/" is escaped in the pointer', () => {
  const file = onDisk(workflow({ access: { 'team/ops': ['pr_status', 'pr_stauts'] } }));
  const report = validateFile(file);
  assert.equal(found(report).errors, [['E_TOOL_UNKNOWN', '/access/team~1ops/1']]);
  assert.ok(report.errors[0].line > 1, JSON.stringify(report.errors[0]));
  assert.match(report.errors[0].message, 'did you mean "pr_status"?');
});

Access('H36: a role with an empty name is refused by the schema, at that key (not the whole access map), saying which key', () => {
  const report = validateWorkflow(workflow({ access: { '': ['post_review'] } }));
  assert.equal(report.errors.map((f) => [f.code, f.pointer]), [['E_SCHEMA', '/access/']], JSON.stringify(report.errors));
  assert.match(report.errors[0].message, 'access has the key "", which must NOT have fewer than 1 characters');
  assert.equal(found(validateWorkflow(workflow({ access: { reviewer: ['post_review'] } }))).errors, []);
});

Access('a toolModules path naming no file is E_TOOL_MODULE at /toolModules/<i> with the path resolved against the workflow file (a bare name too, as the loader resolves it)', () => {
  const file = onDisk(workflow({ toolModules: ['./tools/ok.mjs', './tools/missing.mjs', 'some-package', './tools'] }), { 'tools/ok.mjs': 'export const tools = [];\n' });
  const report = validateFile(file);
  assert.equal(found(report).errors, [['E_TOOL_MODULE', '/toolModules/1'], ['E_TOOL_MODULE', '/toolModules/2'], ['E_TOOL_MODULE', '/toolModules/3']]);
  assert.match(report.errors[0].message, `tool module "./tools/missing.mjs" does not exist: ${join(file, '..', 'tools', 'missing.mjs')}`);
  assert.match(report.errors[2].message, 'is a directory');
});

Access('checking toolModules paths imports nothing; a workflow that came from no file may not name relative modules', () => {
  const marker = join(tempDir('countersign-marker-'), 'imported');
  const file = onDisk(workflow({ toolModules: ['./side-effect.mjs'] }), {
    'side-effect.mjs': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nexport const tools = [];\n`,
  });
  assert.equal(found(validateFile(file)).errors, []);
  assert.is(existsSync(marker), false);
  assert.equal(found(validateWorkflow(workflow({ toolModules: ['./nowhere.mjs'] }))).errors, [['E_TOOL_MODULE', '/toolModules/0']]);
});

Access('H36: an access role that no node takes is a warning at /access/<role> with a did-you-mean (a misspelt role denies the real one its tools)', () => {
  const data = workflow({ access: { reviewr: ['post_review'] } }) as { nodes: Array<Record<string, unknown>> };
  data.nodes.splice(1, 0, { type: 'agent-directive', id: 'review', agent: 'reviewer', directive: 'Review', completionCondition: 'done', connections: { success: data.nodes[1].id } });
  (data.nodes[0].connections as Record<string, string>).default = 'review';
  const report = validateWorkflow(data);
  const unused = report.warnings.filter((w) => w.code === 'E_ACCESS_ROLE_UNUSED');
  assert.equal(unused.map((w) => w.pointer), ['/access/reviewr']);
  assert.match(unused[0].message, 'did you mean "reviewer"?');
  (data as unknown as { access: Record<string, string[]> }).access = { reviewer: ['post_review'] };
  assert.equal(validateWorkflow(data).warnings.filter((w) => w.code === 'E_ACCESS_ROLE_UNUSED'), []);
});

Access.run();
