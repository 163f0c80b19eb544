/**
 * A TypeScript host that embeds countersign directly — what the MCP server
 * does for a model, done here in code. It starts the shipped review→fix
 * loop, reads each pending item, and answers it with its own functions:
 * directives go to `agent`, review items to `reviewer`, which answers as
 * another identity. Nothing calls a model. Run it from the repository root:
 *
 *   npx tsx examples/host/host.ts          # removes its temporary folders when done
 *   npx tsx examples/host/host.ts --keep   # keeps the workspace (the artifact and the reports) and says where
 *
 * Runs are kept in a SQLite store in a temporary folder, removed at the
 * end; pass `openStore({ cwd: process.cwd() })` instead to share
 * `./.countersign/` with the CLI and the MCP server.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, createSqliteStore, type DirectivePending, type ReviewPending, type RunState } from '../../engine/index.js';

const WORKFLOW = fileURLToPath(new URL('../../workflows/review-fix-loop.json', import.meta.url));
const AGENT_ID = 'host-agent';
const REVIEWER_ID = 'host-reviewer';

// The run's workspace: the artifact, its context and the review report live here.
const workspace = mkdtempSync(join(tmpdir(), 'countersign-host-'));
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(workspace, path)), { recursive: true });
  writeFileSync(join(workspace, path), text);
};
write('lib/math.mjs', '/** Adds two numbers. */\nexport function add(a, b) {\n  return a + b;\n}\n\n/** Multiplies two numbers. */\nexport function multiply(a, b) {\n  return a * b;\n}\n');

/** The agent: a real host would send `item.directive` and `item.inputSchema` to a model here. */
async function agent(item: DirectivePending): Promise<unknown> {
  if (item.nodeId === 'produce') write('docs/api.md', '# API\n\n## add(a, b)\n\nReturns a + b.\n\n## multiply\n\nTODO\n');
  if (item.nodeId === 'fix') {
    const report = /Report file: (.+)/.exec(item.directive)?.[1];
    const issues = report ? (JSON.parse(readFileSync(report, 'utf8')) as { issues: string[] }).issues : [];
    console.error(`  agent fixes ${issues.length} issue(s) from the report`);
    write('docs/api.md', '# API\n\n## add(a, b)\n\nReturns a + b.\n\n## multiply(a, b)\n\nReturns a × b.\n');
  }
  return {};
}

/** The reviewer: another identity that sees only the review item, writes every finding to the report and answers the count. */
async function reviewer(item: ReviewPending): Promise<{ issues_count: number }> {
  const doc = readFileSync(item.artifacts[0], 'utf8');
  const issues: string[] = [];
  if (/TODO|FIXME|TBD/.test(doc)) issues.push('docs/api.md: a section holds placeholder text');
  for (const name of ['add', 'multiply']) {
    if (!doc.includes(`## ${name}(a, b)`)) issues.push(`docs/api.md: ${name} is documented without its signature ${name}(a, b)`);
  }
  writeFileSync(item.report, JSON.stringify({ issues }, null, 2));
  return { issues_count: issues.length };
}

const keep = process.argv.includes('--keep');
const storeDir = mkdtempSync(join(tmpdir(), 'countersign-host-store-'));
const store = createSqliteStore(storeDir);
const engine = createEngine({ store });
try {
  let state: RunState = await engine.start(WORKFLOW, {
    workspace,
    input: { task: 'Document every function exported by lib/math.mjs', artifact_path: 'docs/api.md', context_path: 'lib' },
  });
  while (state.status === 'waiting') {
    const item = state.pending;
    if (state.rejected) console.error(`  rejected (${state.rejected.code}): ${state.rejected.errors.join('; ')}`);
    console.error(`→ ${item.nodeId} (seq ${state.seq}, ${item.kind})`);
    // Review items go to the reviewer, as another identity; everything else to the agent.
    if (item.kind === 'tool' || (item.kind === 'review' && item.contract === 'decision')) throw new Error('this host answers directives and report-file reviews only');
    const review = item.kind === 'review';
    const answer = item.kind === 'review' ? await reviewer(item) : await agent(item);
    state = await engine.submit(state.runId, answer, { seq: state.seq, as: review ? REVIEWER_ID : AGENT_ID });
  }
  console.log(JSON.stringify(state, null, 2));
  process.exitCode = state.status === 'completed' ? 0 : 1;
} finally {
  store.close();
  // Both folders are temporary: nothing is left behind unless --keep asks for the workspace.
  rmSync(storeDir, { recursive: true, force: true });
  if (keep) console.error(`workspace kept at ${workspace} (docs/api.md and the review reports); delete it when done`);
  else rmSync(workspace, { recursive: true, force: true });
}
