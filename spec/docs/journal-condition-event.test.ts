/**
 * README's journal table is what a trace consumer reads `condition.evaluated`
 * by (review r85): the event carries `result` when the condition was
 * evaluated, and `error` (no `result`) when the run's values could not be
 * evaluated — `run.failed E_CONDITION` follows. Every field the event
 * carries is one the table names for it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT, cli, tempDir } from '../helpers/cli.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The fields README's journal table lists for an event type (the backticked names in its row). */
function documentedFields(type: string): string[] {
  const row = readme.split('\n').find((l) => l.startsWith(`| \`${type}\` |`));
  assert.ok(row, `README's journal table has a row for ${type}`);
  return [...row!.slice(`| \`${type}\` |`.length).matchAll(/`([A-Za-z_]+)\??`/g)].map((m) => m[1]);
}

const WORKFLOW = {
  metadata: { name: 'cond-event', version: '1.0.0', description: 'a JSON Logic condition over an answer' },
  nodes: [
    { type: 'start', id: 'start', connections: { default: 'ask' } },
    { type: 'agent-directive', id: 'ask', directive: 'Give v.', completionCondition: 'given', inputSchema: { type: 'object', properties: { v: {} }, required: ['v'] }, connections: { success: 'c' } },
    { type: 'condition', id: 'c', condition: { jsonLogic: { in: ['x', { var: 'ask.v' }] } }, connections: { true: 'done', false: 'done' } },
    { type: 'end', id: 'done' },
  ],
};

/** The condition.evaluated event `trace --json` prints after answering `ask` with `v`, and the run's last event. */
async function traced(v: unknown) {
  const dir = tempDir('countersign-cond-event-');
  const file = join(dir, 'wf.json');
  writeFileSync(file, JSON.stringify(WORKFLOW));
  const store = join(dir, 'store');
  const s = await cli(['start', file, '--json'], { store });
  await cli(['step', s.json.runId, '--response', JSON.stringify({ v }), '--json'], { store });
  const t = await cli(['trace', s.json.runId, '--json'], { store });
  const events = t.json.events as Array<Record<string, unknown>>;
  return { event: events.find((e) => e.type === 'condition.evaluated')!, last: events.at(-1)! };
}

const own = (e: Record<string, unknown>) => Object.keys(e).filter((k) => !['seq', 'at', 'type', 'nodeId'].includes(k));

const C = suite('README: the condition.evaluated journal event');

C('an evaluated condition carries `result`, a field README lists for it', async () => {
  const { event } = await traced(['x']);
  assert.is(event.result, true);
  assert.equal(own(event).filter((k) => !documentedFields('condition.evaluated').includes(k)), []);
});

C('r85: a condition the run\'s values cannot be evaluated on carries `error` (naming the node and why), no `result`, and README lists `error` for it; run.failed E_CONDITION follows', async () => {
  const { event, last } = await traced({ indexOf: 1 });
  assert.not.ok('result' in event);
  assert.match(String(event.error), /condition of node "c" cannot be evaluated on this run's values: /);
  assert.equal([last.type, last.code], ['run.failed', 'E_CONDITION']);
  assert.equal(own(event).filter((k) => !documentedFields('condition.evaluated').includes(k)), []);
});

C.run();
