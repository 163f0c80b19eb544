/** A one-directive workflow and the error lines a rejected answer to it comes back with (answer-error-lines, keyword-wording). */
import * as assert from 'uvu/assert';
import { createEngine, createMemoryStore, type JsonObject, type RunState, type Workflow } from '../../engine/index.js';

/** start → ask (an agent-directive with `inputSchema`) → end. */
export function askingWith(inputSchema: JsonObject): Workflow {
  return {
    metadata: { name: 'lines', version: '1.0.0', description: 'error lines' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Answer.', completionCondition: 'answered', inputSchema, connections: { success: 'end' } },
      { type: 'end', id: 'end' },
    ],
  } as Workflow;
}

/** The state `answer` to `ask` leaves, asserted still waiting (the answer was rejected). */
export async function answeredWith(inputSchema: JsonObject, answer: JsonObject): Promise<RunState> {
  const engine = createEngine({ store: createMemoryStore() });
  const started = await engine.start(askingWith(inputSchema));
  const answered = await engine.submit(started.runId, answer, { seq: started.seq });
  assert.is(answered.status, 'waiting', JSON.stringify(answered));
  return answered;
}
