/**
 * A run's values are its own and stay JSON: a workflow differing from
 * another only in key order renders and returns its own order; ids and
 * names that are Object.prototype members (`constructor`, `toString`) are
 * plain names; what a host receives cannot change what is stored or what
 * other runs receive; and every store reads back the value a step wrote.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, createMemoryStore, createSqliteStore, validateWorkflow, type Workflow } from '../../engine/index.js';
import { DECISION_ANSWER_SCHEMA } from '../../engine/nodes/review-decision.js';
import { deepFreeze } from '../../engine/format/freeze.js';
import { shapeProblems } from '../../engine/format/table-shapes.js';
import { canonicalJson } from '../../engine/run/hash.js';
import { toDot } from '../../engine/cli/commands/graph.js';
import { CHAIN_ORDER, CODES, DOCS_VERDICTS, REVIEW_VERDICTS, WARNING_CODES, defineTool } from '../../engine/index.js';

const Own = suite('a run\'s own values');
const tmp = () => mkdtempSync(join(tmpdir(), 'countersign-own-'));

function ordered(cfg: Record<string, number>): Workflow {
  return {
    metadata: { name: 'order', version: '1.0.0', description: 'an object rendered and returned' },
    nodes: [
      { type: 'start', id: 'start', initialData: { variables: { cfg: { value: cfg, description: 'settings' } } }, connections: { default: 'show' } },
      { type: 'agent-directive', id: 'show', directive: 'cfg={{cfg}}', completionCondition: 'seen', connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['cfg'] },
    ],
  } as Workflow;
}

Own('§4: an expression doubling text past any limit takes the node\'s error route (E_EXPRESSION), or fails the run with it: never E_INTERNAL, and a waiting run reaching it moves on', async () => {
  const doubling = (connections: Record<string, string>): Workflow => ({
    metadata: { name: 'grow', version: '1.0.0', description: 'text doubling in a loop' },
    variableRegistry: { s: { type: 'string', description: 'text', default: 'sixteen chars!!!' } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'go', completionCondition: 'done', connections: { success: 'grow' } },
      { type: 'expression', id: 'grow', expressions: Array.from({ length: 30 }, () => 's = s + s'), connections },
      { type: 'end', id: 'done' },
      { type: 'end', id: 'bad' },
    ],
  } as Workflow);
  const engine = createEngine({ store: createMemoryStore() });
  const routed = await engine.start(doubling({ default: 'done', error: 'bad' }));
  const end = await engine.submit(routed.runId, {});
  assert.is(end.status === 'completed' && end.endNodeId, 'bad');
  const failing = await engine.start(doubling({ default: 'done' }));
  const failed = await engine.submit(failing.runId, {});
  assert.is(failed.status === 'failed' && failed.error.code, 'E_EXPRESSION');
  assert.match(failed.status === 'failed' ? failed.error.message : '', 'is limited to 1048576 characters');
  // The failure carries its fix, as every error with a known fix does.
  assert.is(failed.status === 'failed' && failed.error.fix, 'keep large text in files and pass their paths, or route the node\'s "error" connection');
  const unset = await engine.start({ ...doubling({ default: 'done' }), variableRegistry: { s: { type: 'string', description: 'text' } } } as Workflow);
  const noValue = await engine.submit(unset.runId, {});
  assert.is(noValue.status === 'failed' && noValue.error.fix, 'give each variable a value before this node runs — a global by a registry default, initialData or the start input; a node-id.field by that node\'s answer (make the field required in its inputSchema if this node always reads it) — or route the node\'s "error" connection');
});

Own('two workflows that differ only in key order each render and return their own order, whichever ran first in the process', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const ab = await engine.start(ordered({ a: 1, b: 2 }));
  const ba = await engine.start(ordered({ b: 2, a: 1 }));
  assert.is(ab.status === 'waiting' && ab.pending.kind === 'directive' && ab.pending.directive, 'cfg={"a":1,"b":2}');
  assert.is(ba.status === 'waiting' && ba.pending.kind === 'directive' && ba.pending.directive, 'cfg={"b":2,"a":1}');
  const done = await engine.submit(ba.runId, {});
  assert.is(JSON.stringify(done.status === 'completed' && done.output), '{"cfg":{"b":2,"a":1}}');
});

function reviewLoop(reviewId: string): Workflow {
  return {
    metadata: { name: 'rl', version: '1.0.0', description: 'a review loop' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'write' } },
      { type: 'agent-directive', id: 'write', agent: 'author', directive: 'Write notes.md.', completionCondition: 'written', connections: { success: reviewId } },
      { type: 'delegate-review', id: reviewId, artifacts: ['notes.md'], criteria: ['Every heading has a body.'], report: 'review.json', connections: { success: 'check', exhausted: 'done' } },
      { type: 'condition', id: 'check', condition: { operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 }, connections: { true: 'done', false: 'write' } },
      { type: 'end', id: 'done', finalOutput: ['issues_count'] },
    ],
  } as Workflow;
}

function workspace(): string {
  const ws = tmp();
  writeFileSync(join(ws, 'notes.md'), '# A\n');
  return ws;
}

Own('a review node named like an Object.prototype member (constructor, toString) runs like any other id', async () => {
  for (const id of ['constructor', 'toString', 'valueOf']) {
    assert.ok(validateWorkflow(reviewLoop(id)).ok, id);
    const engine = createEngine({ store: createMemoryStore() });
    const started = await engine.start(reviewLoop(id), { workspace: workspace() });
    const reviewing = await engine.submit(started.runId, {}, { as: 'author' });
    assert.is(reviewing.status, 'waiting', id);
    assert.is(reviewing.status === 'waiting' && reviewing.pending.nodeId, id);
    // The author may not review: the refusal still counts per review id.
    const refused = await engine.submit(reviewing.runId, { issues_count: 0 }, { as: 'author' });
    assert.is(refused.status === 'waiting' && refused.rejected?.code, 'E_SELF_REVIEW', id);
  }
});

Own('a refused answer\'s errors are read-only: a host edit cannot reach the journal', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const started = await engine.start(reviewLoop('review'), { workspace: workspace() });
  const reviewing = await engine.submit(started.runId, {}, { as: 'author' });
  const refused = await engine.submit(reviewing.runId, { issues_count: 0 }, { as: 'author' });
  if (refused.status !== 'waiting' || !refused.rejected) throw new Error(`not refused: ${JSON.stringify(refused)}`);
  assert.is(refused.rejected.code, 'E_SELF_REVIEW');
  const errors = refused.rejected.errors as string[];
  assert.throws(() => errors.push('HOST EXTRA'), TypeError);
  assert.throws(() => ((errors as string[])[0] = 'HOST EDIT'), TypeError);
  const journal = (await engine.trace(started.runId)).events.filter((e) => e.type === 'answer.rejected');
  assert.equal(journal.map((e) => (e as unknown as { errors: string[] }).errors), [errors]);
});

Own('every object in a decision review\'s answer schema is frozen, the shared constant included', () => {
  const schema = DECISION_ANSWER_SCHEMA as { required: string[]; properties: { reply: { description: string } } };
  assert.throws(() => schema.required.push('hacked'), TypeError);
  assert.throws(() => (schema.properties.reply.description = 'edited'), TypeError);
  assert.equal(schema.required, ['reply']);
});

Own('deepFreeze freezes the children of an object that was only frozen at the top', () => {
  const shallow = Object.freeze({ list: [1], inner: { x: 1 } });
  deepFreeze(shallow);
  assert.ok(Object.isFrozen(shallow.list) && Object.isFrozen(shallow.inner));
  const cyclic: Record<string, unknown> = { name: 'loop' };
  cyclic.self = cyclic;
  assert.is(deepFreeze(cyclic), cyclic, 'a cycle ends');
  assert.ok(Object.isFrozen(cyclic));
});

Own('an expression result is a JSON value: `0 * -1` is stored and returned as 0 by both stores, before and after a restart', async () => {
  const wf = {
    metadata: { name: 'neg', version: '1.0.0', description: 'an expression giving -0' },
    variableRegistry: { n: { type: 'number', description: 'the value', default: 0 } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'negate' } },
      { type: 'expression', id: 'negate', expressions: ['n = n * -1'], connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'n is {{n}}', completionCondition: 'seen', connections: { success: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['n'] },
    ],
  } as Workflow;
  for (const store of [createMemoryStore(), createSqliteStore(tmp())]) {
    const engine = createEngine({ store });
    const started = await engine.start(wf);
    const journal = (await engine.trace(started.runId)).events.find((e) => e.type === 'expression.evaluated') as unknown as { assigned: { n: number } };
    assert.ok(Object.is(journal.assigned.n, 0), 'the journal holds 0');
    const done = await engine.submit(started.runId, {});
    const output = done.status === 'completed' ? (done.output as { n: number }).n : undefined;
    assert.ok(Object.is(output, 0), 'the output is 0, not -0');
    const again = await createEngine({ store }).status(started.runId);
    assert.ok(Object.is(again.status === 'completed' && (again.output as { n: number }).n, 0), 'read back the same');
  }
});

Own('an expression whose result is not a finite number is E_EXPRESSION on both stores, never Infinity in one and null in the other; a literal too large for a double is refused before the run starts', async () => {
  const big = '1e308 * 10';
  const wf = {
    metadata: { name: 'big', version: '1.0.0', description: 'a literal beyond a double' },
    variableRegistry: { n: { type: 'number', description: 'the value', default: 0 } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'grow' } },
      { type: 'expression', id: 'grow', expressions: [`n = ${big}`], connections: { default: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['n'] },
    ],
  } as Workflow;
  for (const store of [createMemoryStore(), createSqliteStore(tmp())]) {
    const failed = await createEngine({ store }).start(wf);
    assert.is(failed.status === 'failed' && failed.error.code, 'E_EXPRESSION');
    assert.match((failed.status === 'failed' && failed.error.message) || '', /1e308 \* 10 is not a finite number/);
  }
  const literal = { ...wf, nodes: wf.nodes.map((n) => (n.id === 'grow' ? { ...n, expressions: [`n = 1${'0'.repeat(400)}`] } : n)) } as Workflow;
  const refused = await createEngine({ store: createMemoryStore() }).start(literal).catch((e: { code?: string; message?: string }) => e);
  assert.is((refused as { code?: string }).code, 'E_WORKFLOW_INVALID');
  assert.match((refused as { message?: string }).message ?? '', 'E_EXPRESSION_SYNTAX');
});

Own('r77: an answer holding an object with keys such as indexOf or toString never crashes a step: a JSON Logic condition that cannot use it fails the run with E_CONDITION; {{#eq}} compares its JSON text', async () => {
  const engine = createEngine({ store: createMemoryStore() });
  const jl = {
    metadata: { name: 'jl', version: '1.0.0', description: 'json logic over an answer object' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'tags', completionCondition: 'done', inputSchema: { type: 'object', properties: { tags: { type: 'object' } }, required: ['tags'] }, connections: { success: 'c' } },
      { type: 'condition', id: 'c', condition: { jsonLogic: { in: ['urgent', { var: 'a.tags' }] } }, connections: { true: 'done', false: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  const s = await engine.start(jl);
  const failed = await engine.submit(s.runId, { tags: { indexOf: 'x' } });
  assert.equal([failed.status, failed.status === 'failed' && failed.error.code, failed.status === 'failed' && failed.error.nodeId], ['failed', 'E_CONDITION', 'c']);
  const eq = {
    metadata: { name: 'eq', version: '1.0.0', description: 'eq over an answer object' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'a' } },
      { type: 'agent-directive', id: 'a', directive: 'meta', completionCondition: 'done', inputSchema: { type: 'object', properties: { meta: { type: 'object' } }, required: ['meta'] }, connections: { success: 'b' } },
      { type: 'agent-directive', id: 'b', directive: "{{#eq a.meta '{\"k\":1}'}}same{{else}}differs{{/eq}}", completionCondition: 'done', connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  const e = await engine.start(eq);
  const odd = await engine.submit(e.runId, { meta: { toString: 'a', valueOf: 'b' } });
  assert.is(odd.status === 'waiting' && odd.pending.kind === 'directive' && odd.pending.directive, 'differs');
  const e2 = await engine.start(eq);
  const json = await engine.submit(e2.runId, { meta: { k: 1 } });
  assert.is(json.status === 'waiting' && json.pending.kind === 'directive' && json.pending.directive, 'same');
});

Own('a missing required input named like an Object.prototype member gets the requiredInputs message and its fix', async () => {
  const wf = {
    metadata: { name: 'req', version: '1.0.0', description: 'a required input' },
    variableRegistry: { toString: { type: 'string', description: 'a name' } },
    requiredInputs: ['toString'],
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
  const engine = createEngine({ store: createMemoryStore() });
  try {
    await engine.start(wf);
    assert.unreachable('started without its required input');
  } catch (e) {
    assert.is((e as { code: string }).code, 'E_INPUT');
    assert.match((e as Error).message, /must give "toString" \(the workflow's requiredInputs\)/);
  }
});

Own('a ledger row field named `constructor` is not one of a fixed table\'s fields', () => {
  const problems = shapeProblems('tool_executions', { constructor: 'x' } as never);
  assert.ok(problems.some((p) => p.field === 'constructor' && /has no field "constructor"/.test(p.message)), JSON.stringify(problems));
});

Own('graph --format dot draws a node whose type is an Object.prototype member as a box', () => {
  const dot = toDot([{ id: 'a', label: 'a', type: 'constructor', connections: [] }]);
  assert.match(dot, /shape=box\]/);
  assert.not.match(dot, /native code/);
});

Own('graph draws a connection named `__proto__` as any other: its edge, and its missing target as a dashed (missing) node, as validate reports it', async () => {
  const { cli } = await import('../helpers/cli.js');
  const file = join(tmp(), 'proto.json');
  writeFileSync(file, '{"nodes":[{"id":"a","connections":{"__proto__":"b","constructor":"a"}}]}');
  const mermaid = await cli(['graph', file]);
  assert.is(mermaid.code, 0, mermaid.stderr);
  assert.match(mermaid.stdout, 'n0 -->|"__proto__"| missing_0');
  assert.match(mermaid.stdout, 'missing_0["b<br/><small>(missing)</small>"]');
  const dot = await cli(['graph', file, '--format', 'dot']);
  assert.match(dot.stdout, 'n0 -> missing_0 [label="__proto__"];');
});

function answered(properties: Record<string, unknown>, required: string[] = []): Workflow {
  return {
    metadata: { name: 'proto-fields', version: '1.0.0', description: 'answer fields named like Object.prototype members' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'ask' } },
      { type: 'agent-directive', id: 'ask', directive: 'Answer.', completionCondition: 'answered', inputSchema: { type: 'object', properties, required }, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  } as Workflow;
}

Own('answer fields named constructor / toString / valueOf are optional or required like any other: absent is absent, never Object.prototype\'s', async () => {
  for (const name of ['constructor', 'toString', 'valueOf']) {
    const engine = createEngine({ store: createMemoryStore() });
    const optional = await engine.start(answered({ [name]: { type: 'string' }, n: { type: 'integer' } }));
    const done = await engine.submit(optional.runId, { n: 1 });
    assert.is(done.status, 'completed', `${name}: ${JSON.stringify(done)}`);
    const required = await engine.start(answered({ [name]: { type: 'string' } }, [name]));
    const refused = await engine.submit(required.runId, {});
    assert.is(refused.status === 'waiting' && refused.rejected?.code, 'E_ANSWER_INVALID');
    assert.equal(refused.status === 'waiting' && refused.rejected?.errors, [`(root): missing required property "${name}"`]);
  }
});

Own('a workflow with an optional registry variable named toString starts, and its input is judged like any other', async () => {
  const wf = {
    metadata: { name: 'proto-registry', version: '1.0.0', description: 'a registry name like an Object.prototype member' },
    variableRegistry: { toString: { type: 'string', description: 'a name' }, n: { type: 'integer', description: 'a count', default: 1 } },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'done' } },
      { type: 'end', id: 'done', finalOutput: ['n'] },
    ],
  } as unknown as Workflow;
  const engine = createEngine({ store: createMemoryStore() });
  const done = await engine.start(wf, { input: { n: 2 } });
  assert.equal(done.status === 'completed' && done.output, { n: 2 });
});

Own('tool arguments named constructor / toString are judged from the arguments alone', () => {
  const tool = defineTool({
    name: 'probe',
    class: 'read',
    inputSchema: { type: 'object', properties: { constructor: { type: 'string' }, toString: { type: 'string' }, n: { type: 'integer' } }, required: ['n'] },
    run: async () => ({}),
  });
  assert.equal(tool.argProblems({ n: 1 }), []);
  const strict = defineTool({ name: 'probe2', class: 'read', inputSchema: { type: 'object', properties: { toString: { type: 'string' } }, required: ['toString'] }, run: async () => ({}) });
  const [missing] = strict.argProblems({});
  assert.is(missing?.keyword, 'required');
  assert.is(missing?.missing, 'toString');
});

Own('E_RESERVED_NAME: a record field or an answer field (at any depth) named __proto__ is refused where it is written', () => {
  const record = {
    metadata: { name: 'proto-record', version: '1.0.0', description: 'a record field named __proto__' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'keep' } },
      { type: 'record', id: 'keep', table: 'audit', fields: JSON.parse('{"__proto__": "x", "note": "y"}'), connections: { default: 'done' } },
      { type: 'end', id: 'done' },
    ],
  };
  const r = validateWorkflow(record as unknown as Workflow);
  assert.ok(r.errors.some((e) => e.code === 'E_RESERVED_NAME' && e.pointer === '/nodes/1/fields/__proto__'), JSON.stringify(r.errors));
  const deep = answered(JSON.parse('{"outer": {"type": "object", "properties": {"__proto__": {"type": "string"}}}}'));
  const d = validateWorkflow(deep);
  assert.ok(d.errors.some((e) => e.code === 'E_RESERVED_NAME' && e.pointer === '/nodes/1/inputSchema/properties/outer/properties/__proto__'), JSON.stringify(d.errors));
});

Own('exported constants cannot be changed by a host (one edit would change every later caller in the process)', () => {
  assert.throws(() => (REVIEW_VERDICTS as unknown as string[]).push('MERGE_NOW'), TypeError);
  assert.throws(() => (DOCS_VERDICTS as unknown as string[]).pop(), TypeError);
  assert.throws(() => (CHAIN_ORDER as unknown as string[]).reverse(), TypeError);
  assert.throws(() => ((CODES as Record<string, string>).E_NEW = 'x'), TypeError);
  assert.throws(() => (WARNING_CODES as Set<string>).add('E_PARSE'), TypeError);
  assert.throws(() => (WARNING_CODES as Set<string>).delete('E_UNREACHABLE'), TypeError);
  // Not even through Set's own methods, whatever the object's say.
  assert.throws(() => Set.prototype.add.call(WARNING_CODES, 'E_PARSE'), TypeError);
  assert.throws(() => Set.prototype.delete.call(WARNING_CODES, 'E_UNREACHABLE'), TypeError);
  assert.throws(() => Set.prototype.clear.call(WARNING_CODES), TypeError);
  assert.ok([...WARNING_CODES].includes('E_UNREACHABLE') && WARNING_CODES.size > 1);
  assert.ok(WARNING_CODES.has('E_UNREACHABLE') && !WARNING_CODES.has('E_PARSE'));
});

Own('canonicalJson (the review gate\'s call-target identity) is the value\'s JSON with sorted keys: a Date is its ISO text, a function member is left out', () => {
  const when = (ms: number) => ({ b: 2, when: new Date(ms), skip: () => 1, a: 1 });
  assert.is(canonicalJson(when(0)), '{"a":1,"b":2,"when":"1970-01-01T00:00:00.000Z"}');
  assert.is.not(canonicalJson(when(0)), canonicalJson(when(1000)), 'two targets that differ in a Date are two targets');
});

Own.run();
