/**
 * Embedding countersign in your own TypeScript host: start the shipped
 * review→fix loop on the in-memory store and answer its items with your own
 * functions — one agent that writes the artifact, and an independent
 * reviewer that writes the report file and returns only the count. Run it:
 * `npx tsx examples/embed.ts`.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, createMemoryStore, type Agent, type AgentRequest } from '../engine/index.js';

// The run's workspace: review paths resolve inside it.
const workspace = mkdtempSync(join(tmpdir(), 'countersign-embed-'));
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(workspace, path)), { recursive: true });
  writeFileSync(join(workspace, path), text);
};
write('lib/greet.mjs', '/** Greets someone by name. */\nexport function greet(name) {\n  return `Hello, ${name}!`;\n}\n');

// Your agent: a deterministic stand-in that a real host replaces with a
// model call. It sees the rendered directive and the schema its answer must fit.
const agent: Agent = {
  async answer(item: AgentRequest) {
    if (item.kind !== 'directive') throw new Error('the agent never reviews');
    if (item.nodeId === 'produce') write('docs/api.md', '# API\n\n## greet\n\nTODO\n');
    if (item.nodeId === 'fix') write('docs/api.md', '# API\n\n## greet(name)\n\nReturns a greeting for `name`.\n');
    return {};
  },
};

// Your reviewer: another identity. It gets only the review item (prompt,
// paths, criteria), writes every finding to the report file and answers the count.
const reviewer: Agent = {
  async answer(item: AgentRequest) {
    if (item.kind !== 'review' || item.contract !== 'issues') throw new Error('the reviewer only reviews report-file reviews');
    const doc = readFileSync(item.artifacts[0], 'utf8');
    const issues: string[] = [];
    if (/TODO/.test(doc)) issues.push('docs/api.md: the greet section is a placeholder (TODO)');
    if (!doc.includes('greet(name)')) issues.push('docs/api.md: greet is documented without its signature greet(name)');
    writeFileSync(item.report, JSON.stringify({ issues }, null, 2));
    return { issues_count: issues.length };
  },
};

const engine = createEngine({ store: createMemoryStore() });
const result = await engine.run(fileURLToPath(new URL('../workflows/review-fix-loop.json', import.meta.url)), {
  agent,
  reviewer,
  as: 'embedded-producer',
  reviewerAs: 'embedded-reviewer',
  workspace,
  input: { task: 'Document every exported function', artifact_path: 'docs/api.md', context_path: 'lib' },
  onProgress: (e) => {
    if (e.type === 'pending') console.error(`→ ${e.state.pending.nodeId} (seq ${e.state.seq})`);
  },
});
console.log(JSON.stringify(result, null, 2));
process.exitCode = result.status === 'completed' ? 0 : 1;
