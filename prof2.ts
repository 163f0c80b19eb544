import { createEngine, createMemoryStore } from './engine/index.ts';
import { ringWorkflow } from './bench/generate.ts';
const engine = createEngine({ store: createMemoryStore() });
let s: any = await engine.start(ringWorkflow(1));
const N = 20000; const t = performance.now();
for (let i = 0; i < N; i++) s = await engine.submit(s.runId, { score: 1, last_score: 1 }, { seq: s.seq });
console.log('submit', ((performance.now() - t) / N * 1000).toFixed(1), 'us');
