/**
 * Embedding countersign in your own TypeScript host: load a workflow, start
 * a run on the in-memory store, and answer each pending directive with your
 * own agent function. Run it: `npx tsx examples/embed.ts`.
 */
import { createEngine, createMemoryStore, type Agent, type AgentRequest } from '../engine/index.js';

// Your agent: here a deterministic stand-in that a real host replaces with a
// model call. It sees the rendered directive and the schema its answer must fit.
const reviews = [2, 0];
const agent: Agent = {
  async answer(item: AgentRequest) {
    switch (item.nodeId) {
      case 'produce':
        return { summary: 'wrote src/greet.ts' };
      case 'review':
        return { issues_count: reviews.shift() ?? 0 };
      case 'fix':
        return { changed: true };
      default:
        return { $error: `this host has no answer for ${item.nodeId}` };
    }
  },
};

const engine = createEngine({ store: createMemoryStore() });
const result = await engine.run(new URL('../workflows/review-fix-loop.json', import.meta.url).pathname, {
  agent,
  input: { task: 'A greet(name) function', artifact_path: 'src/greet.ts' },
  onProgress: (e) => {
    if (e.type === 'pending') console.error(`→ ${e.state.pending.nodeId} (seq ${e.state.seq})`);
  },
});
console.log(JSON.stringify(result, null, 2));
process.exitCode = result.status === 'completed' ? 0 : 1;
