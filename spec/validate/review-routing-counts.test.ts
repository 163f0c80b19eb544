/**
 * The routing analysis behind E_REVIEW_LOOP (issue 3 §7; seed 003 G7, G11,
 * G16): a routing condition is judged at every issue count that matters,
 * not only at 1, and where the issues go is followed through later
 * conditions (a fix budget), with globals that expressions change sampled
 * rather than fixed at their start value.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { graphModel } from '../../engine/validate/graph-model.js';
import { reviewGraphFindings } from '../../engine/validate/review-graph.js';

type Node = Record<string, unknown>;
const withReason = { inputSchema: { type: 'object', properties: { unchanged_reason: { type: 'string' } } } };
const count = (operator: string, right: number) => ({ operator, left: { contextPath: 'issues_count' }, right });

/** write → review → check (`cond`: true → whenTrue, false → whenFalse) → … ; fix → review; `more` nodes added. */
function loop(cond: unknown, whenTrue: string, whenFalse: string, more: Node[] = [], registry: Node = {}) {
  return {
    metadata: { name: 't', version: '1.0.0', description: 't' },
    variableRegistry: registry,
    nodes: [
      { id: 'start', type: 'start', connections: { default: 'write' } },
      { id: 'write', type: 'agent-directive', agent: 'author', directive: 'Write.', completionCondition: 'written', connections: { success: 'review' } },
      { id: 'review', type: 'delegate-review', artifacts: ['notes.md'], criteria: ['Every heading has a body.'], connections: { success: 'check', exhausted: 'needs-a-person' } },
      { id: 'check', type: 'condition', condition: cond, connections: { true: whenTrue, false: whenFalse } },
      { id: 'fix', type: 'agent-directive', agent: 'author', directive: 'Fix.', completionCondition: 'fixed', ...withReason, connections: { success: 'review' } },
      { id: 'done', type: 'end' },
      { id: 'needs-a-person', type: 'end' },
      ...more,
    ],
  };
}

const findings = (doc: ReturnType<typeof loop>) => reviewGraphFindings(graphModel(doc)!, doc);
const summary = (doc: ReturnType<typeof loop>) => findings(doc).map((f) => `${f.code} ${f.pointer}`);

const counts = suite('review graph: routing judged at 0 / 1 / n issues');

counts('G16: "issues_count eq 1" sends 2 issues to the end: E_REVIEW_LOOP at its false branch, naming the count', () => {
  const doc = loop(count('eq', 1), 'fix', 'done');
  assert.equal(summary(doc), ['E_REVIEW_LOOP /nodes/3/connections/false']);
  assert.match(findings(doc)[0].message, 'when review "review" reports 2 issues, condition "check" takes "false", which ends the run at "done"');
});

counts('G16: "issues_count lt 5" lets 5 issues through; "gt 0", "neq 0" and "gte 1" send every count to the fix', () => {
  // lt 5 is wrong twice: 5 issues end the run, and 0 issues go back to the fix.
  assert.equal(summary(loop(count('lt', 5), 'fix', 'done')), ['E_REVIEW_LOOP /nodes/3/connections/true', 'E_REVIEW_LOOP /nodes/3/connections/false']);
  assert.match(findings(loop(count('lt', 5), 'fix', 'done'))[1].message, 'reports 5 issues');
  assert.match(findings(loop(count('lt', 5), 'fix', 'done'))[0].message, 'reports 0 issues');
  for (const [operator, right] of [['gt', 0], ['neq', 0], ['gte', 1]] as const) assert.equal(summary(loop(count(operator, right), 'fix', 'done')), [], operator);
  assert.equal(summary(loop(count('eq', 0), 'done', 'fix')), []);
});

counts('G16: a jsonLogic rule is judged at several counts too ({"==": [{"var": "issues_count"}, 1]} → fix)', () => {
  assert.equal(summary(loop({ jsonLogic: { '==': [{ var: 'issues_count' }, 1] } }, 'fix', 'done')), ['E_REVIEW_LOOP /nodes/3/connections/false']);
});

counts.run();

const budget = suite('review graph: a fix budget after the count condition');

const rounds = { fix_rounds: { type: 'integer', description: 'fixes so far', default: 0 } };
const increment = { id: 'count', type: 'expression', expressions: ['fix_rounds = fix_rounds + 1'], connections: { default: 'fix' } };

budget('G7, G11: check → budget (fix_rounds < 3) → fix, else a person: the issues do reach the fix step, so no E_REVIEW_LOOP', () => {
  const gate = { id: 'budget', type: 'condition', condition: { operator: 'lt', left: { contextPath: 'fix_rounds' }, right: 3 }, connections: { true: 'count', false: 'needs-a-person' } };
  assert.equal(summary(loop(count('eq', 0), 'done', 'budget', [gate, increment], rounds)), []);
});

budget('G7, G11: a later condition that can only end the run still leaves the issues unfixed: E_REVIEW_LOOP at the count condition\'s branch', () => {
  const gate = { id: 'budget', type: 'condition', condition: { operator: 'eq', left: { contextPath: 'fix_rounds' }, right: 99 }, connections: { true: 'count', false: 'needs-a-person' } };
  // fix_rounds is never written here, so its start value 0 holds: the budget always says no.
  const noWrites = loop(count('eq', 0), 'done', 'budget', [gate, { ...increment, expressions: [] }], rounds);
  assert.equal(summary(noWrites), ['E_REVIEW_LOOP /nodes/3/connections/false']);
  assert.match(findings(noWrites)[0].message, 'ends the run at "needs-a-person"');
});

budget('G7: a global with a start value that an expression changes is sampled, not held at its start value', () => {
  // armed starts false, the producer's expression arms it: issues reach the fix once armed.
  const arm = { id: 'arm', type: 'expression', expressions: ['armed = true'], connections: { default: 'review' } };
  const cond = { operator: 'and', conditions: [count('gt', 0), { operator: 'eq', left: { contextPath: 'armed' }, right: true }] };
  const doc = loop(cond, 'fix', 'done', [arm], { armed: { type: 'boolean', description: 'gate armed', default: false } });
  (doc.nodes[1] as { connections: Record<string, string> }).connections.success = 'arm';
  assert.equal(summary(doc), []);
  const neverArmed = loop(cond, 'fix', 'done', [], { armed: { type: 'boolean', description: 'gate armed', default: false } });
  assert.equal(summary(neverArmed), ['E_REVIEW_LOOP /nodes/3/connections/false'], 'never written, false holds and the issues always end at done');
});

budget.run();

const copy = suite('review graph: a check step between producer and review');

copy('G7, G11, §4.9: fix → a test step that also runs before the review is the producer\'s way in (E_REVIEW_LOOP); the message says to give the loop its own copy, and that copy passes', () => {
  const tests = (id: string) => ({ id, type: 'agent-directive', agent: 'ci', directive: 'Run npm test.', completionCondition: 'ran', ...withReason, connections: { success: 'review' } });
  const shared = loop(count('eq', 0), 'done', 'fix', [tests('run-tests')]);
  (shared.nodes[1] as { connections: Record<string, string> }).connections.success = 'run-tests';
  (shared.nodes[4] as { connections: Record<string, string> }).connections.success = 'run-tests';
  assert.equal(summary(shared), ['E_REVIEW_LOOP /nodes/4/connections/success']);
  assert.match(findings(shared)[0].message, 'if "run-tests" only checks the work (e.g. runs the tests), give the loop its own copy of that step after the fix');
  const own = loop(count('eq', 0), 'done', 'fix', [tests('run-tests'), tests('rerun-tests')]);
  (own.nodes[1] as { connections: Record<string, string> }).connections.success = 'run-tests';
  (own.nodes[4] as { connections: Record<string, string> }).connections.success = 'rerun-tests';
  assert.equal(summary(own), []);
});

copy.run();
