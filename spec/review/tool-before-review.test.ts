/**
 * What review r81 found beside its conformance fixtures (56–62): the
 * E_UNCHANGED_REASON_UNDECLARED warning behind a tool node points at the
 * step that can declare the field; the fix of spent retries follows the
 * last rejection's code; a malformed $error lists its own line first, then
 * the other $ keys, then the schema's findings, in that order.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defineTool, validateWorkflow, type Workflow } from '../../engine/index.js';
import { retriesSpentFix } from '../../engine/compile/decisions.js';
import { guardAnswer } from '../../engine/nodes/answer-guard.js';

const fmt = defineTool({ name: 'fmt', class: 'read', inputSchema: { type: 'object' }, run: () => ({}) });

/** write → review → check → fix → format (a tool) → review. */
function loop(fixSchema?: Record<string, unknown>): Workflow {
  return {
    metadata: { name: 'fix-then-tool', version: '1.0.0', description: 'a formatter tool between the fix step and the review' },
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'write' } },
      { type: 'agent-directive', id: 'write', agent: 'author', directive: 'Write notes.md.', completionCondition: 'written', connections: { success: 'review' } },
      { type: 'delegate-review', id: 'review', artifacts: ['notes.md'], criteria: ['Every heading has a body.'], connections: { success: 'check', exhausted: 'done', unchanged: 'done' } },
      { type: 'condition', id: 'check', condition: { operator: 'eq', left: { contextPath: 'issues_count' }, right: 0 }, connections: { true: 'done', false: 'fix' } },
      { type: 'agent-directive', id: 'fix', agent: 'author', directive: 'Fix the issues.', completionCondition: 'fixed', ...(fixSchema ? { inputSchema: fixSchema } : {}), connections: { success: 'format' } },
      { type: 'tool', id: 'format', tool: 'fmt', args: {}, connections: { success: 'review' } },
      { type: 'end', id: 'done' },
    ],
  } as unknown as Workflow;
}

const T = suite('tool nodes before a review, refusal fixes (r81)');

T('r81 c2: behind a tool node, E_UNCHANGED_REASON_UNDECLARED points at the fix step, which can declare unchanged_reason, never at the tool node, which has no inputSchema', () => {
  const undeclared = validateWorkflow(loop(), 'wf.json', { tools: [fmt] });
  const warnings = undeclared.warnings.filter((w) => w.code === 'E_UNCHANGED_REASON_UNDECLARED');
  assert.equal(warnings.map((w) => w.pointer), ['/nodes/4'], JSON.stringify(warnings));
  assert.match(warnings[0].message, /fix step "fix" of review "review" \(its answer reaches the review through tool node "format"/);
  // The fix step declares it: the runtime reads the reason from its answer, so nothing is left to warn about.
  const declared = validateWorkflow(loop({ type: 'object', properties: { unchanged_reason: { type: 'string' } } }), 'wf.json', { tools: [fmt] });
  assert.equal(declared.warnings.filter((w) => w.code === 'E_UNCHANGED_REASON_UNDECLARED'), []);
  assert.equal(declared.errors, []);
});

T('r81 c3: the fix of spent retries follows the last rejection\'s code: the schema for schema errors, the report for a miscount, the artifacts or unchanged_reason for an unchanged fix, a generic one otherwise', () => {
  assert.match(retriesSpentFix('ask', 'E_ANSWER_INVALID', 'maxRetriesExceeded'), /^the answers did not fit node "ask"'s inputSchema \(the last one's errors are listed\); raise its maxRetries, or give it a "maxRetriesExceeded" connection, and start a new run$/);
  assert.match(retriesSpentFix('review', 'E_REPORT_MISMATCH', 'error'), /make issues_count match the report file/);
  assert.match(retriesSpentFix('fix', 'E_UNCHANGED_ARTIFACT', 'maxRetriesExceeded'), /change the artifacts .* or give a non-empty "unchanged_reason"/);
  const other = retriesSpentFix('review', 'E_SOMETHING_ELSE', 'error');
  assert.match(other, /refused its answers with E_SOMETHING_ELSE/);
  assert.not.match(other, /inputSchema/);
  for (const code of ['E_REPORT_MISMATCH', 'E_REPORT_FORMAT', 'E_UNCHANGED_ARTIFACT', 'E_ARTIFACT_MISSING', 'E_ANSWER_TOO_LARGE', 'E_SOMETHING_ELSE']) {
    assert.not.match(retriesSpentFix('n', code, 'error'), /did not fit .*inputSchema/, code);
    assert.match(retriesSpentFix('n', code, 'error'), /raise its maxRetries, or give it a "error" connection, and start a new run$/, code);
  }
});

T('r81 c5: {"$error": <bad>, "$foo": 1, ...rest} is refused with the /$error line first, then each other $ key, then what the schema finds in the rest', () => {
  const answer = { $error: null, $foo: 1, '$a/b': 2, n: 'bad' };
  const outcome = guardAnswer({ answer, bytes: JSON.stringify(answer).length, userId: 'u' }, (rest) => (typeof rest.n === 'number' ? [] : ['/n: must be integer']));
  assert.is(outcome?.kind, 'rejected');
  const errors = outcome?.kind === 'rejected' ? outcome.errors : [];
  assert.is(errors.length, 4, JSON.stringify(errors));
  assert.match(errors[0], /^\/\$error: declares that the agent failed/);
  assert.match(errors[1], /^\/\$foo: keys starting with "\$" are reserved/);
  assert.match(errors[2], /^\/\$a~1b: keys starting with "\$" are reserved/);
  assert.is(errors[3], '/n: must be integer');
  // A declaration meant as one, only malformed, is not judged as an answer: its own line alone.
  const bare = guardAnswer({ answer: { $error: '  ' }, bytes: 15, userId: 'u' }, () => ['(root): missing required property "n"']);
  assert.equal(bare?.kind === 'rejected' ? bare.errors.length : 0, 1);
  // A well-formed declaration is still one.
  assert.equal(guardAnswer({ answer: { $error: 'disk full' }, bytes: 24, userId: 'u' }, () => ['x']), { kind: 'declared-error', message: 'disk full' });
});

T.run();
