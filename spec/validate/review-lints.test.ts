/**
 * The delegate-review lints (issue 3 §3, §5, §7), called directly on
 * in-memory workflows: wording of `reviewer` and `criteria`, self-review,
 * routing on issues_count, the fix step's way back, and unchanged_reason.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSource } from '../../engine/format/source.js';
import { wordingFindings } from '../../engine/review/wording.js';
import { validateDocument } from '../../engine/validate/index.js';
import { graphModel, type GraphModel } from '../../engine/validate/graph-model.js';
import { reviewGraphFindings } from '../../engine/validate/review-graph.js';
import type { Finding } from '../../engine/nodes/node-type.js';

type Node = Record<string, unknown>;

const doc = (nodes: unknown[], more: Node = {}) => ({ metadata: { name: 't', version: '1.0.0', description: 'test' }, ...more, nodes });

const model = (nodes: unknown[]): GraphModel => {
  const m = graphModel(doc(nodes));
  if (!m) throw new Error('graphModel gave nothing');
  return m;
};

const ask = (id: string, success: string | undefined, more: Node = {}): Node => ({
  id,
  type: 'agent-directive',
  directive: `Do ${id}.`,
  completionCondition: 'Done',
  ...more,
  ...(success === undefined ? {} : { connections: { success } }),
});

const review = (id: string, success: string | undefined, more: Node = {}): Node => ({
  id,
  type: 'delegate-review',
  artifacts: ['out/report.md'],
  criteria: ['every section meets the template in docs/template.md'],
  ...more,
  connections: { ...(success === undefined ? {} : { success }), exhausted: 'done' },
});

const countIsZero = (path = 'issues_count') => ({ operator: 'eq', left: { contextPath: path }, right: 0 });

const gate = (id: string, cond: unknown, whenTrue: string, whenFalse: string): Node => ({
  id,
  type: 'condition',
  condition: cond,
  connections: { true: whenTrue, false: whenFalse },
});

const withReason = { inputSchema: { type: 'object', properties: { unchanged_reason: { type: 'string' } } } };

/**
 * The contract of seed 003, built on delegate-review:
 * 0 start → 1 produce → 2 review → 3 check: true → 5 done, false → 4 fix → 2 review.
 */
function goodLoop(): Node[] {
  return [
    { id: 'start', type: 'start', connections: { default: 'produce' } },
    ask('produce', 'review', { agent: 'writer' }),
    review('review', 'check'),
    gate('check', countIsZero(), 'done', 'fix'),
    ask('fix', 'review', { agent: 'writer', ...withReason }),
    { id: 'done', type: 'end' },
  ];
}

const summary = (findings: Finding[]) => findings.map((f) => `${f.code} ${f.pointer}`);

// ---------------------------------------------------------------------------
const wording = suite('review wording lints');

wording('G37: "improvements" and "we made" are each flagged with their offset in the criterion', () => {
  const found = wordingFindings({ criteria: ['Verify the improvements we made'] }, '/nodes/2');
  assert.equal(found.map((f) => [f.code, f.pointer, f.offset, f.severity]), [
    ['E_BIASED_REVIEW', '/nodes/2/criteria/0', 11, 'error'],
    ['E_BIASED_REVIEW', '/nodes/2/criteria/0', 24, 'error'],
  ]);
  assert.match(found[0].message, '"improvements"');
  assert.match(found[0].message, 'meets');
  assert.match(found[1].message, '"we made"');
});

wording('G15: a tier as the head of a phrase ("the minor ones") or said of findings ("issues that are blocking.") is E_SEVERITY_TIER at the tier word; a version that "is minor" is not', () => {
  const at = (c: string) => wordingFindings({ criteria: [c] }, '/nodes/0').map((f) => [f.code, f.offset]);
  assert.equal(at('List the minor ones last'), [['E_SEVERITY_TIER', 9]]);
  assert.equal(at('Report only the major ones'), [['E_SEVERITY_TIER', 16]]);
  assert.equal(at('Report issues that are blocking.'), [['E_SEVERITY_TIER', 23]]);
  assert.equal(at('The version bump is minor'), []);
  assert.equal(at('Check that the major version is bumped'), []);
});

wording('G36: "your work" is flagged (self-review anti-pattern wording)', () => {
  const found = wordingFindings({ criteria: ['the style guide holds', 'Check if your work meets quality standards'] }, '/nodes/0');
  assert.equal(found.map((f) => [f.code, f.pointer, f.offset]), [['E_BIASED_REVIEW', '/nodes/0/criteria/1', 9]]);
  assert.match(found[0].message, '"your work"');
});

wording('G37: "we made" is flagged in any tense or contraction: "we have made", "we\'ve made", "We had made", "we’ve made"', () => {
  for (const [criterion, phrase] of [
    ['Check the changes we have made', 'we have made'],
    ["Check the changes we've made", "we've made"],
    ['Check the changes we’ve made', 'we’ve made'],
    ['We had made the parser faster', 'We had made'],
  ] as const) {
    const found = wordingFindings({ criteria: [criterion] }, '/nodes/1');
    assert.equal(found.map((f) => f.code), ['E_BIASED_REVIEW'], criterion);
    assert.match(found[0].message, `"${phrase}"`);
  }
  assert.equal(wordingFindings({ criteria: ['the web made of links resolves'] }, '/nodes/1'), []);
});

wording('G38: "hard work" is flagged (excess context anti-pattern wording)', () => {
  const found = wordingFindings({ criteria: ['Consider all the hard work done'] }, '/nodes/1');
  assert.equal(found.map((f) => [f.code, f.offset]), [['E_BIASED_REVIEW', 17]]);
});

wording('G37: loaded words match in any case and phrases across any whitespace, one finding per occurrence', () => {
  const text = 'Improved parsing, FIXED bugs, Added tests, our\n   work and an Improvement';
  const found = wordingFindings({ criteria: [text] }, '/nodes/3');
  assert.equal(found.map((f) => f.offset), [0, 18, 30, 43, 62]);
  assert.ok(found.every((f) => f.code === 'E_BIASED_REVIEW'));
  assert.match(found[3].message, '"our work"');
});

wording('G37: neutral criteria and words that merely contain a loaded word pass', () => {
  const found = wordingFindings({
    reviewer: 'plan reviewer',
    criteria: ['prefixed names are unique', 'the fixedWidth option is honoured', 'our workspace layout meets docs/layout.md', 'the workflow meets G7'],
  }, '/nodes/2');
  assert.equal(found, []);
});

wording('G37: the reviewer role label is scanned and located at /reviewer', () => {
  const found = wordingFindings({ reviewer: 'checker of our work' }, '/nodes/4');
  assert.equal(found.map((f) => [f.code, f.pointer, f.offset]), [['E_BIASED_REVIEW', '/nodes/4/reviewer', 11]]);
});

wording('G37, G38: only reviewer and criteria are scanned; other fields and non-strings are left alone', () => {
  const node = {
    reviewer: 7,
    criteria: [1, null, { text: 'improvements we made' }, 'the parser meets the grammar'],
    artifacts: ['improvements.md'],
    context: ['docs/hard work/'],
    directive: 'verify the improvements we made',
  };
  assert.equal(wordingFindings(node, '/nodes/0'), []);
  assert.equal(wordingFindings({ criteria: 'MAJOR improvements' }, '/nodes/0'), []);
  assert.equal(wordingFindings({}, '/nodes/0'), []);
});

wording('G15: "MAJOR" in capitals, "minor issues" and "Severity:" are severity tiers, with offsets', () => {
  const found = wordingFindings({ criteria: ['No MAJOR gaps remain', 'minor issues are listed too', 'Severity: high'] }, '/nodes/2');
  assert.equal(found.map((f) => [f.code, f.pointer, f.offset]), [
    ['E_SEVERITY_TIER', '/nodes/2/criteria/0', 3],
    ['E_SEVERITY_TIER', '/nodes/2/criteria/1', 0],
    ['E_SEVERITY_TIER', '/nodes/2/criteria/2', 0],
  ]);
  assert.match(found[0].message, '"MAJOR"');
  assert.match(found[0].message, 'flat list');
  assert.match(found[2].message, '"Severity"');
});

wording('G15: each tier form is recognised: BLOCKING, "blocking:", "Major findings", tiers, severities', () => {
  const texts = ['BLOCKING first', 'list blocking: items', 'no Major findings', 'minor\ndefects', 'no major tiers', 'all severities', 'a MINOR one'];
  const found = wordingFindings({ criteria: texts }, '/nodes/1');
  assert.equal(found.map((f) => [f.pointer, f.offset]), [
    ['/nodes/1/criteria/0', 0],
    ['/nodes/1/criteria/1', 5],
    ['/nodes/1/criteria/2', 3],
    ['/nodes/1/criteria/3', 0],
    ['/nodes/1/criteria/4', 3],
    ['/nodes/1/criteria/5', 4],
    ['/nodes/1/criteria/6', 2],
  ]);
  assert.ok(found.every((f) => f.code === 'E_SEVERITY_TIER'));
});

wording('G15: ordinary prose such as "handles minor versions" is not a tier', () => {
  const found = wordingFindings({
    criteria: ['the resolver handles minor versions', 'major version bumps are documented', 'a Minor release note exists', 'non-blocking I/O is used'],
  }, '/nodes/2');
  assert.equal(found, []);
});

wording('G15: a word matched by two tier rules ("MAJOR issues") is reported once', () => {
  const found = wordingFindings({ criteria: ['no MAJOR issues'] }, '/nodes/2');
  assert.equal(summary(found), ['E_SEVERITY_TIER /nodes/2/criteria/0']);
  assert.is(found[0].offset, 3);
});

wording('G15: a lowercase tier word paired with another ("major or minor", "blocking or non-blocking", "major/minor") is a tier', () => {
  const texts = [
    'Classify every finding as major or minor',
    'Label each issue blocking or non-blocking',
    'tag each one major/minor',
    'Sort them Major vs. Minor',
    'split into non-blocking and blocking',
  ];
  const found = wordingFindings({ criteria: texts }, '/nodes/2');
  assert.equal(found.map((f) => [f.code, f.pointer, f.offset]), [
    ['E_SEVERITY_TIER', '/nodes/2/criteria/0', 26],
    ['E_SEVERITY_TIER', '/nodes/2/criteria/1', 17],
    ['E_SEVERITY_TIER', '/nodes/2/criteria/2', 13],
    ['E_SEVERITY_TIER', '/nodes/2/criteria/3', 10],
    ['E_SEVERITY_TIER', '/nodes/2/criteria/4', 11],
  ]);
  assert.match(found[0].message, '"major or minor" introduces severity tiers');
});

wording('G15: a tier pair that qualifies versions, and lone lowercase tier words, pass', () => {
  const found = wordingFindings({
    criteria: ['major and minor versions are both supported', 'the major/minor version is parsed', 'a major or minor release bumps the tag', 'every minor change is listed', 'blocking calls are avoided'],
  }, '/nodes/2');
  assert.equal(found, []);
});

wording('G15: the semver pattern "MAJOR.MINOR.PATCH" is not a tier; capitals joined otherwise still are', () => {
  const pass = wordingFindings({ criteria: ['The version string follows MAJOR.MINOR.PATCH (semver.org)', 'tags look like vMAJOR.MINOR'] }, '/nodes/2');
  assert.equal(pass, []);
  const fail = wordingFindings({ criteria: ['No MAJOR. None at all', 'MAJOR/MINOR split', 'list MINOR.'] }, '/nodes/2');
  assert.equal(fail.map((f) => [f.pointer, f.offset]), [
    ['/nodes/2/criteria/0', 3],
    ['/nodes/2/criteria/1', 0],
    ['/nodes/2/criteria/2', 5],
  ]);
  assert.ok(fail.every((f) => f.code === 'E_SEVERITY_TIER'));
});

wording('G37: a loaded word as the first part of a hyphenated compound ("fixed-point") passes; alone it is flagged', () => {
  const pass = wordingFindings({ criteria: ['Amounts use fixed-point decimals', 'columns are fixed-width', 'buffers are fixed-size', 'an added-value section exists'] }, '/nodes/2');
  assert.equal(pass, []);
  const fail = wordingFindings({ criteria: ['the width is fixed - see docs', 'it was pre-fixed', 'fixed.'] }, '/nodes/2');
  assert.equal(fail.map((f) => [f.code, f.pointer, f.offset]), [
    ['E_BIASED_REVIEW', '/nodes/2/criteria/0', 13],
    ['E_BIASED_REVIEW', '/nodes/2/criteria/1', 11],
    ['E_BIASED_REVIEW', '/nodes/2/criteria/2', 0],
  ]);
});

wording('G36, G37, G15: a finding on /reviewer advises naming the role, a finding on a criterion advises restating it', () => {
  const onRole = wordingFindings({ reviewer: 'severity checker of our work and improvements' }, '/nodes/2');
  assert.equal(onRole.map((f) => [f.code, f.pointer]), [
    ['E_SEVERITY_TIER', '/nodes/2/reviewer'],
    ['E_BIASED_REVIEW', '/nodes/2/reviewer'],
    ['E_BIASED_REVIEW', '/nodes/2/reviewer'],
  ]);
  for (const f of onRole) {
    assert.ok(f.message.endsWith('name the role neutrally, e.g. "api reviewer"'), f.message);
    assert.not.match(f.message, 'criterion');
    assert.not.match(f.message, 'state what to check');
  }
  const onCriterion = wordingFindings({ criteria: ['severity of our work and improvements'] }, '/nodes/2');
  assert.equal(onCriterion.length, 3);
  for (const f of onCriterion) assert.not.match(f.message, 'name the role');
  assert.match(onCriterion[0].message, 'state the criterion itself');
  assert.match(onCriterion[1].message, 'state the criterion alone');
  assert.match(onCriterion[2].message, 'state what to check neutrally');
});

wording('G15: version lists pass: "major/minor/patch version components", "major.minor and major.minor.patch versions", "bump major/minor/patch"', () => {
  const found = wordingFindings({
    criteria: [
      'Handles major/minor/patch version components',
      'The parser accepts major.minor and major.minor.patch versions',
      'bump major/minor/patch on every release',
      'major, minor or patch numbers are validated',
    ],
  }, '/nodes/2');
  assert.equal(found, []);
});

wording('G15: a pair that only looks like a version list is still a tier ("major or minor. Patch later", "major or minor findings")', () => {
  const found = wordingFindings({ criteria: ['Classify as major or minor. Patch later', 'tag major/minor, then patch'] }, '/nodes/2');
  assert.equal(found.map((f) => [f.code, f.pointer, f.offset]), [
    ['E_SEVERITY_TIER', '/nodes/2/criteria/0', 12],
    ['E_SEVERITY_TIER', '/nodes/2/criteria/1', 4],
  ]);
});

wording('G15: I/O wording passes: "blocking and non-blocking reads", "Blocking or non-blocking mode", "NON-BLOCKING sockets"', () => {
  const found = wordingFindings({
    criteria: [
      'The queue supports blocking and non-blocking reads',
      'Blocking or non-blocking mode is configurable via --mode',
      'NON-BLOCKING sockets are used everywhere',
      'blocking/non-blocking APIs, calls, writes and I/O are documented',
      'blocking or non-blocking I/O, operations and IO are covered',
    ],
  }, '/nodes/2');
  assert.equal(found, []);
});

wording('G37: "fixed" describing a property passes ("a fixed seed", "fixed values"); "added" passes only as a changelog\'s title-case category ("the Added section"); "the added section on caching", "the added entries" and "the fixed version" are flagged', () => {
  const codes = (c: string) => wordingFindings({ criteria: [c] }, '/nodes/1').map((f) => f.code);
  for (const text of ['a fixed seed is used', 'the fixed values are constants', 'the Added section lists every change']) assert.equal(codes(text), [], text);
  for (const text of ['the added section on caching is accurate', 'the added entries are correct', 'the fixed version works', 'check the added values']) assert.equal(codes(text), ['E_BIASED_REVIEW'], text);
});

wording('G15: a title-case pair that describes something else is prose, as in lower case ("Major and Minor keys", "Major/Minor values"); a title-case pair said of findings is a tier', () => {
  const codes = (c: string) => wordingFindings({ criteria: [c] }, '/nodes/1').map((f) => f.code);
  for (const text of ['the parser handles Major and Minor keys', 'draw Major and Minor ticks', 'the enum has Major/Minor values']) assert.equal(codes(text), [], text);
  assert.ok(codes('classify each finding as Major or Minor').length > 0);
});

wording('G15: the I/O exemption needs an I/O noun; BLOCKING alone in capitals is still a tier', () => {
  const found = wordingFindings({ criteria: ['Label each blocking or non-blocking', 'BLOCKING sockets are listed first'] }, '/nodes/2');
  assert.equal(found.map((f) => [f.code, f.pointer, f.offset]), [
    ['E_SEVERITY_TIER', '/nodes/2/criteria/0', 11],
    ['E_SEVERITY_TIER', '/nodes/2/criteria/1', 0],
  ]);
});

wording.run();

// ---------------------------------------------------------------------------
const selfReview = suite('review graph: self-review');

selfReview('G1: the seed contract with distinct roles and a declared unchanged_reason has no finding', () => {
  assert.equal(reviewGraphFindings(model(goodLoop())), []);
});

selfReview('G1, G2: a reviewer role equal to the producer\'s and the fixer\'s agent is E_SELF_REVIEW at /reviewer, naming each node', () => {
  const nodes = goodLoop();
  nodes[2] = review('review', 'check', { reviewer: 'writer' });
  const found = reviewGraphFindings(model(nodes)).filter((f) => f.code === 'E_SELF_REVIEW');
  assert.equal(summary(found), ['E_SELF_REVIEW /nodes/2/reviewer', 'E_SELF_REVIEW /nodes/2/reviewer']);
  assert.match(found[0].message, '"produce"');
  assert.match(found[1].message, '"fix"');
  assert.match(found[0].message, '"writer"');
  assert.ok(found.every((f) => f.severity === 'error'));
});

selfReview('G36: the default reviewer role "reviewer" clashes with a producer whose agent is "reviewer"; located at the node', () => {
  const nodes = goodLoop();
  nodes[1] = ask('produce', 'review', { agent: 'reviewer' });
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_SELF_REVIEW /nodes/2']);
  assert.match(found[0].message, 'default reviewer role "reviewer"');
  assert.match(found[0].message, '"produce"');
});

selfReview('G1 G4: a node whose work flows into the producer (plan → produce → review) is upstream of the review: its agent may not be the reviewer role', () => {
  const nodes = goodLoop();
  nodes[0] = { id: 'start', type: 'start', connections: { default: 'plan' } };
  nodes.push(ask('plan', 'produce', { agent: 'reviewer' }));
  const found = reviewGraphFindings(model(nodes)).filter((f) => f.code === 'E_SELF_REVIEW');
  assert.equal(found.length, 1);
  assert.match(found[0].message, '"plan"');
  nodes[nodes.length - 1] = ask('plan', 'produce', { agent: 'planner' });
  assert.equal(reviewGraphFindings(model(nodes)), []);
});

selfReview('G1, G2: a reviewer role equal to a producer\'s agent apart from surrounding whitespace is E_SELF_REVIEW, either side', () => {
  const nodes = goodLoop();
  nodes[2] = review('review', 'check', { reviewer: 'writer ' });
  assert.equal(summary(reviewGraphFindings(model(nodes)).filter((f) => f.code === 'E_SELF_REVIEW')), ['E_SELF_REVIEW /nodes/2/reviewer', 'E_SELF_REVIEW /nodes/2/reviewer']);
  nodes[2] = review('review', 'check', { reviewer: 'checker' });
  nodes[1] = ask('produce', 'review', { agent: ' checker' });
  const found = reviewGraphFindings(model(nodes)).filter((f) => f.code === 'E_SELF_REVIEW');
  assert.equal(summary(found), ['E_SELF_REVIEW /nodes/2/reviewer']);
  assert.match(found[0].message, '"produce"');
});

selfReview('G1: a reviewer role that differs from every agent after trimming has no E_SELF_REVIEW', () => {
  const nodes = goodLoop();
  nodes[2] = review('review', 'check', { reviewer: ' writer2 ' });
  assert.equal(reviewGraphFindings(model(nodes)).filter((f) => f.code === 'E_SELF_REVIEW'), []);
});

selfReview.run();

// ---------------------------------------------------------------------------
const routing = suite('review graph: routing on issues_count');

routing('G6, G16: a review whose success goes straight on is E_REVIEW_UNROUTED at /connections/success', () => {
  const nodes = goodLoop();
  nodes[2] = review('review', 'done');
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_REVIEW_UNROUTED /nodes/2/connections/success']);
  assert.match(found[0].message, '{"operator":"eq","left":{"contextPath":"issues_count"},"right":0}');
});

routing('G6, G16: a review without a success connection is E_REVIEW_UNROUTED at the node', () => {
  const nodes = goodLoop();
  nodes[2] = review('review', undefined);
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_REVIEW_UNROUTED /nodes/2']);
});

routing('G16: a condition on another variable does not route the review', () => {
  const nodes = goodLoop();
  nodes[3] = gate('check', countIsZero('approved_count'), 'done', 'fix');
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_REVIEW_UNROUTED /nodes/2/connections/success']);
});

routing('G6, G16: routing on "<review-id>.issues_count" counts, and a later waiting node on the way is allowed', () => {
  const nodes = goodLoop();
  nodes[2] = review('review', 'summarise');
  nodes[3] = gate('check', countIsZero('review.issues_count'), 'done', 'fix');
  nodes.push(ask('summarise', 'check'));
  assert.equal(reviewGraphFindings(model(nodes)), []);
});

routing('G6, G7: a count condition met after a waiting node (review → notify → check) still decides the fix branch', () => {
  const nodes = goodLoop();
  nodes[2] = review('review', 'notify');
  nodes.push(ask('notify', 'check'));
  assert.equal(reviewGraphFindings(model(nodes)), [], 'notify is not a fix step: no unchanged_reason warning for it');
  nodes[3] = gate('check', countIsZero(), 'done', 'done');
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/3/connections/false']);
  assert.match(found[0].message, 'ends the run at "done"');
});

routing('G16: a count condition met only after another review belongs to that review, not this one', () => {
  const nodes: Node[] = [
    { id: 'start', type: 'start', connections: { default: 'produce' } },
    ask('produce', 'first', { agent: 'writer' }),
    review('first', 'second'),
    review('second', 'check'),
    gate('check', countIsZero(), 'done', 'fix'),
    ask('fix', 'second', withReason),
    { id: 'done', type: 'end' },
  ];
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_REVIEW_UNROUTED /nodes/2/connections/success']);
});

routing('G16: a jsonLogic rule reading {"var": "issues_count"} routes the review', () => {
  const nodes = goodLoop();
  nodes[3] = gate('check', { jsonLogic: { '===': [{ var: 'issues_count' }, 0] } }, 'done', 'fix');
  assert.equal(reviewGraphFindings(model(nodes)), []);
});

routing('G16: a jsonLogic rule reading only other variables leaves the review unrouted', () => {
  const nodes = goodLoop();
  nodes[3] = gate('check', { jsonLogic: { '===': [{ var: 'approved' }, true] } }, 'done', 'fix');
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_REVIEW_UNROUTED /nodes/2/connections/success']);
});

routing.run();

// ---------------------------------------------------------------------------
const loop = suite('review graph: the fix step goes back to the same review');

loop('G7, G11, §4.9: the seed\'s fix-issues → do-work edge (back to the producer) is E_REVIEW_LOOP at the fix step\'s success', () => {
  const nodes = goodLoop();
  nodes[4] = ask('fix', 'produce', withReason);
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/4/connections/success']);
  assert.match(found[0].message, 'hands the artifact back to the producing step "produce" instead of the same review "review"');
  assert.match(found[0].message, 'connect the fix step\'s success to "review"');
});

loop('G7: a fix step without a success connection is E_REVIEW_LOOP at the fix node', () => {
  const nodes = goodLoop();
  nodes[4] = ask('fix', undefined, withReason);
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_REVIEW_LOOP /nodes/4']);
});

loop('G7: the fix step may reach the review through transient nodes', () => {
  const nodes = goodLoop();
  nodes[4] = ask('fix', 'tally', withReason);
  nodes.push({ id: 'tally', type: 'expression', expressions: ['rounds = 1'], connections: { default: 'review' } });
  assert.equal(reviewGraphFindings(model(nodes)), []);
});

loop('G11: issues routed straight to an end is E_REVIEW_LOOP at the condition\'s branch', () => {
  const nodes = goodLoop();
  nodes[3] = gate('check', countIsZero(), 'done', 'done');
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/3/connections/false']);
  assert.match(found[0].message, 'ends the run at "done"');
});

loop('G11: issues routed straight back to the review, with no fix step, is E_REVIEW_LOOP at the branch', () => {
  const nodes = goodLoop();
  nodes[3] = gate('check', countIsZero(), 'done', 'review');
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/3/connections/false']);
  assert.match(found[0].message, 'no fix step');
});

loop('G7: "gt issues_count 0" with true → fix is understood as the issues branch', () => {
  const nodes = goodLoop();
  nodes[3] = gate('check', { operator: 'gt', left: { contextPath: 'issues_count' }, right: 0 }, 'fix', 'done');
  assert.equal(reviewGraphFindings(model(nodes)), []);
});

loop('G7: "gt issues_count 0" with true → end is caught on the true branch', () => {
  const nodes = goodLoop();
  nodes[3] = gate('check', { operator: 'gt', left: { contextPath: 'issues_count' }, right: 0 }, 'done', 'fix');
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_REVIEW_LOOP /nodes/3/connections/true']);
});

loop('G7: a jsonLogic route on "<review-id>.issues_count" whose fix goes to the producer is E_REVIEW_LOOP', () => {
  const nodes = goodLoop();
  nodes[3] = gate('check', { jsonLogic: { '===': [{ var: 'review.issues_count' }, 0] } }, 'done', 'fix');
  nodes[4] = ask('fix', 'produce', withReason);
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_REVIEW_LOOP /nodes/4/connections/success']);
});

loop('G7: a routing condition the evaluator cannot run is not guessed at', () => {
  const nodes = goodLoop();
  nodes[3] = gate('check', { operator: 'and', conditions: 'broken', left: { contextPath: 'issues_count' } }, 'done', 'fix');
  nodes[4] = ask('fix', 'produce', withReason);
  assert.equal(reviewGraphFindings(model(nodes)), []);
});

loop('G7, G11: review → notify → check → fix → the producer (the seed\'s fix → do-work edge) is E_REVIEW_LOOP at the fix step\'s success', () => {
  const nodes = goodLoop();
  nodes[2] = review('review', 'notify');
  nodes[4] = ask('fix', 'produce', withReason);
  nodes.push(ask('notify', 'check'));
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/4/connections/success']);
  assert.match(found[0].message, 'hands the artifact back to the producing step "produce" instead of the same review "review"');
});

loop('G7, G11: a count condition met only past another condition\'s fix step routes a stale count and is not analysed', () => {
  // fix → recheck: more than 3 issues go to a human, otherwise back to the review.
  const nodes = goodLoop();
  nodes[4] = ask('fix', 'recheck', withReason);
  nodes.push(gate('recheck', { operator: 'gt', left: { contextPath: 'issues_count' }, right: 3 }, 'human', 'review'));
  nodes.push(ask('human', 'review', { agent: 'lead', ...withReason }));
  assert.equal(reviewGraphFindings(model(nodes)), []);
  // The same condition met straight after the review does decide the branch: issues go back with no fix step.
  nodes[2] = review('review', 'recheck');
  nodes[3] = gate('check', countIsZero(), 'done', 'fix');
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_REVIEW_LOOP /nodes/6/connections/false']);
});

/** check = and[issues_count gt 0, budget_ok eq true] */
const withBudget = (whenTrue: string, whenFalse: string) => gate('check', {
  operator: 'and',
  conditions: [
    { operator: 'gt', left: { contextPath: 'issues_count' }, right: 0 },
    { operator: 'eq', left: { contextPath: 'budget_ok' }, right: true },
  ],
}, whenTrue, whenFalse);

const budgetDefault = (value: boolean) => ({ variableRegistry: { budget_ok: { type: 'boolean', description: 'within budget', default: value } } });

loop('G7, G16: the issues branch is found with registry defaults (budget_ok default true → "true" leads to the fix)', () => {
  const nodes = goodLoop();
  nodes[3] = withBudget('fix', 'done');
  assert.equal(reviewGraphFindings(model(nodes), doc(nodes, budgetDefault(true))), []);
  nodes[3] = withBudget('done', 'fix');
  const found = reviewGraphFindings(model(nodes), doc(nodes, budgetDefault(true)));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/3/connections/true']);
  assert.match(found[0].message, 'takes "true"');
});

loop('G7, G16: an initialData value overrides the registry default when the issues branch is found', () => {
  const nodes = goodLoop();
  nodes[0] = { id: 'start', type: 'start', initialData: { variables: { budget_ok: { description: 'no budget', value: false } } }, connections: { default: 'produce' } };
  nodes[3] = withBudget('done', 'fix');
  // With budget_ok false every count, 0 included, goes to the fix: issues are fixed, but a clean review never leaves.
  const found = reviewGraphFindings(model(nodes), doc(nodes, budgetDefault(true)));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/3/connections/false']);
  assert.match(found[0].message, 'reports 0 issues');
  nodes[3] = withBudget('fix', 'done');
  assert.equal(summary(reviewGraphFindings(model(nodes), doc(nodes, budgetDefault(true)))), ['E_REVIEW_LOOP /nodes/3/connections/false']);
});

loop.run();

// ---------------------------------------------------------------------------
const unchanged = suite('review graph: unchanged_reason on fix steps');

unchanged('G12, §5: a fix step without inputSchema is warned about at the node', () => {
  const nodes = goodLoop();
  nodes[4] = ask('fix', 'review', { agent: 'writer' });
  const found = reviewGraphFindings(model(nodes));
  assert.equal(found.map((f) => [f.code, f.pointer, f.severity]), [['E_UNCHANGED_REASON_UNDECLARED', '/nodes/4', 'warning']]);
  assert.match(found[0].message, '"unchanged_reason": {"type": "string"}');
});

unchanged('G12, §5: a fix step whose inputSchema lacks unchanged_reason is warned about at /inputSchema', () => {
  const nodes = goodLoop();
  nodes[4] = ask('fix', 'review', { inputSchema: { type: 'object', properties: { notes: { type: 'string' } } } });
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_UNCHANGED_REASON_UNDECLARED /nodes/4/inputSchema']);
});

unchanged('G12: the producer is not a fix step, so it needs no unchanged_reason', () => {
  const nodes = goodLoop();
  assert.equal((nodes[1] as { inputSchema?: unknown }).inputSchema, undefined);
  assert.equal(reviewGraphFindings(model(nodes)).filter((f) => f.code === 'E_UNCHANGED_REASON_UNDECLARED'), []);
});

unchanged('G12: a fix step after a waiting node between review and condition is warned about without unchanged_reason', () => {
  const nodes = goodLoop();
  nodes[2] = review('review', 'notify');
  nodes[4] = ask('fix', 'review', { agent: 'writer' });
  nodes.push(ask('notify', 'check'));
  const found = reviewGraphFindings(model(nodes));
  assert.equal(found.map((f) => [f.code, f.pointer, f.severity]), [['E_UNCHANGED_REASON_UNDECLARED', '/nodes/4', 'warning']]);
});

unchanged('G12: unchanged_reason declared through inputSchema.globalInputs counts; another global does not', () => {
  const nodes = goodLoop();
  nodes[4] = ask('fix', 'review', { inputSchema: { type: 'object', properties: {}, globalInputs: ['unchanged_reason'] } });
  assert.equal(reviewGraphFindings(model(nodes)), []);
  nodes[4] = ask('fix', 'review', { inputSchema: { type: 'object', properties: {}, globalInputs: ['notes'] } });
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_UNCHANGED_REASON_UNDECLARED /nodes/4/inputSchema']);
  assert.match(found[0].message, 'inputSchema.globalInputs');
});

unchanged('G12: unchanged_reason declared with a non-string type is warned about at its property, saying it must be a string', () => {
  const nodes = goodLoop();
  nodes[4] = ask('fix', 'review', { agent: 'writer', inputSchema: { type: 'object', properties: { unchanged_reason: { type: 'number' } } } });
  const found = reviewGraphFindings(model(nodes));
  assert.equal(found.map((f) => [f.code, f.pointer, f.severity]), [['E_UNCHANGED_REASON_UNDECLARED', '/nodes/4/inputSchema/properties/unchanged_reason', 'warning']]);
  assert.match(found[0].message, 'must be a string');
  nodes[4] = ask('fix', 'review', { agent: 'writer', inputSchema: { type: 'object', properties: { unchanged_reason: { type: ['number', 'boolean'] } } } });
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_UNCHANGED_REASON_UNDECLARED /nodes/4/inputSchema/properties/unchanged_reason']);
});

unchanged('G12: unchanged_reason typed "string", ["string", "null"] or untyped is accepted without a warning', () => {
  const nodes = goodLoop();
  for (const decl of [{ type: 'string' }, { type: ['string', 'null'] }, {}]) {
    nodes[4] = ask('fix', 'review', { agent: 'writer', inputSchema: { type: 'object', properties: { unchanged_reason: decl } } });
    assert.equal(reviewGraphFindings(model(nodes)), [], JSON.stringify(decl));
  }
});

unchanged.run();

// ---------------------------------------------------------------------------
const robust = suite('review graph: schema-invalid documents');

robust('G1, G7, G16: documents that break the schema give review-lint findings, never an exception', () => {
  const docs: unknown[][] = [
    [null, 3, 'x', { type: 'delegate-review' }],
    [{ id: 'r', type: 'delegate-review', reviewer: 5, connections: 'nope' }],
    [{ id: 'r', type: 'delegate-review', connections: { success: 'c' } }, { id: 'c', type: 'condition', condition: 'oops', connections: { true: 'r', false: 7 } }],
    [{ id: 'r', type: 'delegate-review', connections: { success: 'c' } }, { id: 'c', type: 'condition', condition: { operator: 'eq', left: { contextPath: 'issues_count[' } }, connections: { false: 'f' } }, { id: 'f', type: 'agent-directive', inputSchema: 'x', connections: { success: 'r' } }],
    [{ id: 'r', type: 'delegate-review', connections: { success: 'c' } }, { id: 'c', type: 'condition', condition: countIsZero(), connections: { true: 'missing', false: 'f' } }, { id: 'f', type: 'agent-directive', inputSchema: { properties: [] }, connections: { success: 'r' } }],
  ];
  const results = docs.map((nodes) => summary(reviewGraphFindings(model(nodes))));
  assert.equal(results, [
    [],
    ['E_REVIEW_UNROUTED /nodes/0'],
    ['E_REVIEW_UNROUTED /nodes/0/connections/success'],
    ['E_REVIEW_UNROUTED /nodes/0/connections/success'],
    ['E_UNCHANGED_REASON_UNDECLARED /nodes/2/inputSchema'],
  ]);
});

robust('G1, G7: a duplicated review id is linted once, on its first node', () => {
  const nodes = goodLoop();
  nodes.push(review('review', 'done'));
  assert.equal(reviewGraphFindings(model(nodes)), []);
});

robust.run();

// ---------------------------------------------------------------------------
const whole = suite('review lints through validateDocument');

/** The seed loop with `text` in the producer's directive and `criterion` as the review's criterion. */
function loopFile(text: string, criterion: string): string {
  const nodes = goodLoop();
  nodes[1] = ask('produce', 'review', { agent: 'writer', directive: text });
  nodes[2] = review('review', 'check', { criteria: [criterion] });
  return JSON.stringify(doc(nodes), null, 2);
}

const lintCodes = (text: string) => validateDocument(parseSource(text, 'w.json')).errors
  .filter((f) => f.code === 'E_BIASED_REVIEW' || f.code === 'E_SEVERITY_TIER')
  .map((f) => `${f.code} ${f.pointer}`);

whole('G37, G15: loaded and tier words in an agent-directive\'s directive are never linted', () => {
  const text = 'Ask the reviewer to verify the improvements we made. BLOCKING issues first.';
  const report = validateDocument(parseSource(loopFile(text, 'every section meets docs/template.md'), 'w.json'));
  assert.equal(report.errors, []);
  assert.equal(report.warnings, []);
  assert.ok(report.ok);
});

whole('G37, G15: the same words in a review criterion are linted by validateDocument', () => {
  const text = 'Ask the reviewer to verify the improvements we made. BLOCKING issues first.';
  assert.equal(lintCodes(loopFile('Write the notes.', text)), [
    'E_BIASED_REVIEW /nodes/2/criteria/0',
    'E_BIASED_REVIEW /nodes/2/criteria/0',
    'E_SEVERITY_TIER /nodes/2/criteria/0',
  ]);
});

/** The seed loop with `directive` as the fix step's directive, through validateDocument. */
const undeclared = (directive: string) => {
  const nodes = goodLoop();
  nodes[4] = ask('fix', 'review', { agent: 'writer', directive, ...withReason });
  return validateDocument(parseSource(JSON.stringify(doc(nodes), null, 2), 'w.json')).errors.filter((f) => f.code === 'E_UNDECLARED_VARIABLE');
};

whole('§Outputs: an unknown field of a delegate-review node names what it writes and the closest name, never "add it to inputSchema"', () => {
  const found = undeclared('Fix every issue in {{review.findings}}.');
  assert.equal(found.map((f) => f.pointer), ['/nodes/4/directive']);
  assert.match(found[0].message, 'delegate-review node "review" writes only issues_count, report and unchanged_reason');
  assert.match(found[0].message, 'did you mean "review.report"?');
  assert.not.match(found[0].message, 'inputSchema');
  const typo = undeclared('Fix the {{review.issue_count}} issues.');
  assert.match(typo[0].message, 'did you mean "review.issues_count"?');
});

whole('§Outputs: a node without fields of its own (a condition) says so; an agent-directive\'s unknown field still advises its inputSchema', () => {
  const onCondition = undeclared('Fix {{check.result}}.');
  assert.match(onCondition[0].message, 'condition node "check" writes no fields of its own');
  assert.not.match(onCondition[0].message, 'inputSchema properties');
  const onDirective = undeclared('Fix {{produce.summary}}.');
  assert.match(onDirective[0].message, 'Add "summary" to the inputSchema properties (or globalInputs) of node "produce"');
});

whole.run();

// ---------------------------------------------------------------------------
const named = suite('review graph: a condition naming the review by id, past another review');

/** Two reviews in a row, one condition on both counts: produce → security → style → check → fix → security. */
function twoReviewers(left = 'security.issues_count'): Node[] {
  return [
    { id: 'start', type: 'start', connections: { default: 'produce' } },
    ask('produce', 'security', { agent: 'writer' }),
    review('security', 'style', { reviewer: 'security reviewer' }),
    review('style', 'check', { reviewer: 'style reviewer' }),
    gate('check', { operator: 'and', conditions: [countIsZero(left), countIsZero('style.issues_count')] }, 'done', 'fix'),
    ask('fix', 'security', { agent: 'writer', ...withReason }),
    { id: 'done', type: 'end' },
  ];
}

named('G6, G16: "security.issues_count" read past the style review routes the security review; the chain fix → security → style re-reviews both', () => {
  assert.equal(reviewGraphFindings(model(twoReviewers())), []);
});

named('G16: a bare "issues_count" past another review is that review\'s count, so the first review is E_REVIEW_UNROUTED with a message that says so', () => {
  const found = reviewGraphFindings(model(twoReviewers('issues_count')));
  assert.equal(summary(found), ['E_REVIEW_UNROUTED /nodes/2/connections/success']);
  assert.match(found[0].message, 'no condition reading "issues_count" before another review, or "security.issues_count" anywhere');
});

named('G7, G11: the condition reached past another review is analysed: its fix going to the producer is E_REVIEW_LOOP', () => {
  const nodes = twoReviewers();
  nodes[5] = ask('fix', 'produce', { agent: 'writer', ...withReason });
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/5/connections/success']);
  assert.match(found[0].message, 'producing step "produce" instead of the same review "security"');
});

named.run();

// ---------------------------------------------------------------------------
const wayBackSuite = suite('review graph: the fix step\'s way back through other steps');

/** goodLoop with fix → tests → review; `tests` is an agent-directive that runs the test suite. */
function fixThenTests(testsMore: Node = withReason): Node[] {
  const nodes = goodLoop();
  nodes[4] = ask('fix', 'tests', { agent: 'writer', ...withReason });
  nodes.push(ask('tests', 'review', { agent: 'writer', ...testsMore }));
  return nodes;
}

wayBackSuite('G7, G11: fix → tests (a waiting step after the review) → review is the same review, no E_REVIEW_LOOP', () => {
  assert.equal(reviewGraphFindings(model(fixThenTests())), []);
});

wayBackSuite('G12: on fix → tests → review the unchanged_reason warning goes to "tests", whose answer enters the review', () => {
  const found = reviewGraphFindings(model(fixThenTests({})));
  assert.equal(found.map((f) => [f.code, f.pointer, f.severity]), [['E_UNCHANGED_REASON_UNDECLARED', '/nodes/6', 'warning']]);
  assert.match(found[0].message, 'step "tests", whose answer brings the artifact fixed by "fix" back into review "review"');
});

wayBackSuite('G7, G11: fix → tests → the producer is E_REVIEW_LOOP naming the producing step', () => {
  const nodes = fixThenTests();
  nodes[6] = ask('tests', 'produce', { agent: 'writer', ...withReason });
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/4/connections/success']);
  assert.match(found[0].message, 'fix step "fix" of review "review" hands the artifact back to the producing step "produce" instead of the same review "review"');
});

wayBackSuite('G7, G11: fix → tests → end is E_REVIEW_LOOP: the fixed artifact is never re-reviewed', () => {
  const nodes = fixThenTests();
  nodes[6] = ask('tests', 'done', { agent: 'writer', ...withReason });
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/4/connections/success']);
  assert.match(found[0].message, 'ends the run at "done" without going back to "review"');
});

wayBackSuite('G7, G11: a step that also runs before the review (start → produce → tests → review) is a producer: fix → tests is E_REVIEW_LOOP', () => {
  const nodes = fixThenTests();
  nodes[1] = ask('produce', 'tests', { agent: 'writer' });
  const found = reviewGraphFindings(model(nodes));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/4/connections/success']);
  assert.match(found[0].message, 'producing step "tests"');
});

wayBackSuite('G7: the way back may pass conditions on either branch: fix → gate → tests or review', () => {
  const nodes = fixThenTests();
  nodes[4] = ask('fix', 'ran', { agent: 'writer', ...withReason });
  nodes.push(gate('ran', { operator: 'exists', left: { contextPath: 'fix.unchanged_reason' } }, 'review', 'tests'));
  assert.equal(reviewGraphFindings(model(nodes)), []);
});

wayBackSuite.run();

// ---------------------------------------------------------------------------
const sampled = suite('review graph: routing conditions that read values with no start value');

/** check = or[issues_count == 0, strict == false]: `strict` has no default (the --input supplies it). */
const orStrict = (whenTrue: string, whenFalse: string) => gate('check', {
  operator: 'or',
  conditions: [countIsZero(), { operator: 'eq', left: { contextPath: 'strict' }, right: false }],
}, whenTrue, whenFalse);

const strictNoDefault = { variableRegistry: { strict: { type: 'boolean', description: 'gate on the review' } } };

sampled('G7, G11, G12: with strict true issues go to the fix step, which hands the artifact to the producer: E_REVIEW_LOOP and the warning', () => {
  const nodes = goodLoop();
  nodes[3] = orStrict('done', 'fix');
  nodes[4] = ask('fix', 'produce', { agent: 'writer' });
  const found = reviewGraphFindings(model(nodes), doc(nodes, strictNoDefault));
  assert.equal(summary(found), ['E_REVIEW_LOOP /nodes/4/connections/success', 'E_UNCHANGED_REASON_UNDECLARED /nodes/4']);
  assert.match(found[0].message, 'producing step "produce"');
});

sampled('G7, G11: the same condition with the fix going back to the review passes; letting strict=false waive the fix is the author\'s choice', () => {
  const nodes = goodLoop();
  nodes[3] = orStrict('done', 'fix');
  assert.equal(reviewGraphFindings(model(nodes), doc(nodes, strictNoDefault)), []);
  assert.equal(reviewGraphFindings(model(nodes)), [], 'without the document, strict is sampled all the same');
});

sampled('G11: when no sample value sends the issues to a fix step, every branch that carries them is E_REVIEW_LOOP', () => {
  const nodes = goodLoop();
  nodes[3] = orStrict('done', 'done');
  assert.equal(summary(reviewGraphFindings(model(nodes), doc(nodes, strictNoDefault))), [
    'E_REVIEW_LOOP /nodes/3/connections/false',
    'E_REVIEW_LOOP /nodes/3/connections/true',
  ]);
});

sampled('G7: another node\'s answer and a builtin are sampled too (true/false, 0/1, "", a string, null)', () => {
  for (const other of ['produce.ok', 'executionId']) {
    const nodes = goodLoop();
    // Issues go to the fix only while `other` is set: the sample null leaves them on "true" → done (waived).
    nodes[3] = gate('check', { operator: 'or', conditions: [countIsZero(), { operator: 'not', condition: { operator: 'exists', left: { contextPath: other } } }] }, 'done', 'fix');
    assert.equal(reviewGraphFindings(model(nodes)), [], other);
    nodes[4] = ask('fix', 'produce', withReason);
    assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_REVIEW_LOOP /nodes/4/connections/success'], other);
  }
});

/** and[issues_count > 0, each of `flags` == true]: issues reach the fix only when every flag is true. */
const allFlags = (flags: string[]) => gate('check', {
  operator: 'and',
  conditions: [{ operator: 'gt', left: { contextPath: 'issues_count' }, right: 0 }, ...flags.map((f) => ({ operator: 'eq', left: { contextPath: f }, right: true }))],
}, 'fix', 'done');

sampled('G7: two unknown values (49 combinations) are all tried; three (343, over 64) leave the condition unanalysed', () => {
  const nodes = goodLoop();
  nodes[4] = ask('fix', 'produce', withReason);
  nodes[3] = allFlags(['a', 'b']);
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_REVIEW_LOOP /nodes/4/connections/success']);
  nodes[3] = allFlags(['a', 'b', 'c']);
  assert.equal(reviewGraphFindings(model(nodes)), []);
});

sampled('G7, G16: a value the document fixes is not sampled: budget_ok default false keeps the issues off the fix path entirely', () => {
  const nodes = goodLoop();
  nodes[4] = ask('fix', 'produce', withReason);
  nodes[3] = allFlags(['budget_ok']);
  const fixed = { variableRegistry: { budget_ok: { type: 'boolean', description: 'within budget', default: false } } };
  assert.equal(summary(reviewGraphFindings(model(nodes), doc(nodes, fixed))), ['E_REVIEW_LOOP /nodes/3/connections/false']);
  assert.equal(summary(reviewGraphFindings(model(nodes))), ['E_REVIEW_LOOP /nodes/4/connections/success'], 'unknown, it is sampled');
});

sampled.run();
