// @ts-check
/**
 * A deterministic, rule-based reviewer for the Ongrid example, run by the
 * review gate as `jsonl:node examples/ongrid/reviewer.mjs`. It speaks the
 * same protocol a model-backed CLI would: one request line per review on
 * stdin (the decision item: persona, prompt, proposal); for each look-up a
 * `{"$tool": {"name", "args"}}` line out and one `$toolResult` /
 * `$toolError` line back; then `{"reply": "<text>"}`. It calls only the
 * tools the item lists (the persona's effective tools) and never more than
 * max_turns messages, the reply included.
 */
import { createInterface } from 'node:readline';
import { lookUps, reply } from './reviewer-steps.mjs';

const input = createInterface({ input: process.stdin });
/** @type {string[]} */
const queued = [];
/** @type {((line: string | null) => void) | undefined} */
let waiting;
let ended = false;
input.on('line', (line) => {
  if (line.trim() === '') return;
  if (waiting) {
    const w = waiting;
    waiting = undefined;
    w(line);
  } else queued.push(line);
});
input.on('close', () => {
  ended = true;
  waiting?.(null);
});

/** @returns {Promise<string | null>} the next line, or null at end of input */
function next() {
  if (queued.length > 0) return Promise.resolve(/** @type {string} */ (queued.shift()));
  if (ended) return Promise.resolve(null);
  return new Promise((resolve) => (waiting = resolve));
}

/** @param {unknown} message */
function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/**
 * One review: steps 1–4 as look-ups, step 5 as the reply.
 * @param {any} request the decision item, as the gate sent it
 */
async function review(request) {
  if (request?.kind !== 'review' || request?.contract !== 'decision') {
    return { $error: `this reviewer answers decision reviews only, not ${JSON.stringify(request?.kind)}` };
  }
  const allowed = new Set(request.persona.tools);
  // Every look-up is a turn and the reply is one more.
  let turnsLeft = request.persona.max_turns - 1;
  /** @type {Record<string, any>} */
  const looked = {};
  for (const lookUp of lookUps(request.proposal)) {
    if ('unavailable' in lookUp) {
      looked[lookUp.step] = { unavailable: lookUp.unavailable };
    } else if (!allowed.has(lookUp.tool)) {
      looked[lookUp.step] = { unavailable: `${lookUp.tool} is not among my tools` };
    } else if (turnsLeft <= 0) {
      looked[lookUp.step] = { unavailable: 'no turn left to look it up' };
    } else {
      turnsLeft--;
      send({ $tool: { name: lookUp.tool, args: lookUp.args } });
      const line = await next();
      if (line === null) return undefined;
      const answer = JSON.parse(line);
      looked[lookUp.step] = '$toolResult' in answer ? { result: answer.$toolResult } : { error: answer.$toolError };
    }
  }
  return { reply: reply(request.proposal, looked) };
}

for (;;) {
  const line = await next();
  if (line === null) break;
  let answer;
  try {
    answer = await review(JSON.parse(line));
  } catch (e) {
    // Fail closed, and say why: the gate records it as a reject.
    answer = { $error: `the rule-based reviewer failed: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (answer === undefined) break;
  send(answer);
}
