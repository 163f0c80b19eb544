/**
 * The review prompt comes from a fixed template (seed G28–G31, G34): the
 * role line, READ/CHECK/VERIFY/RETURN, the exact paths, criteria and report,
 * and the flat-issues contract — and nothing else from the run.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reviewPrompt, type ReviewPromptInput } from '../../engine/review/prompt.js';

const input: ReviewPromptInput = {
  reviewer: 'plan reviewer',
  artifacts: ['/w/docs/plan.md', '/w/src'],
  criteria: ['Every step names the files it changes', 'No step depends on a later step'],
  context: ['/w/README.md'],
  report: '/w/.countersign/reviews/run-1/review.json',
};

const test = suite('review prompt');

test('G28/G29/G30: the prompt is exactly the fixed template filled with the node\'s fields', () => {
  assert.fixture(
    reviewPrompt(input),
    [
      'YOU ARE plan reviewer. Your assessment determines if we proceed.',
      '',
      'READ every artifact directly:',
      '- /w/docs/plan.md',
      '- /w/src',
      '',
      'CHECK each artifact against every success criterion:',
      '- Every step names the files it changes',
      '- No step depends on a later step',
      '',
      'VERIFY by reading the actual files; do not rely on any summary.',
      '',
      'Context paths you may study:',
      '- /w/README.md',
      '',
      'RETURN every issue found as a flat list — every issue is mandatory; no severity tiers.',
      '',
      'Report contract:',
      '- Overwrite the report file /w/.countersign/reviews/run-1/review.json with JSON {"issues": ["…"]}: one string per issue, holding every reproducible finding; write {"issues": []} when there are none.',
      '- Do not modify the artifacts: diagnose, never fix.',
      '- Answer only {"issues_count": N}, where N equals the number of issues in the report file.',
      '',
    ].join('\n'),
  );
});

test('G28: the first line assigns the role given as reviewer', () => {
  assert.is(reviewPrompt({ ...input, reviewer: 'security auditor' }).split('\n')[0], 'YOU ARE security auditor. Your assessment determines if we proceed.');
});

test('G29: the commands are direct imperatives (READ, CHECK, VERIFY, RETURN), never "could you"', () => {
  const prompt = reviewPrompt(input);
  const lines = prompt.split('\n');
  for (const command of ['READ ', 'CHECK ', 'VERIFY ', 'RETURN ']) assert.ok(lines.some((l) => l.startsWith(command)), command);
  assert.not.match(prompt.toLowerCase(), 'could you');
  assert.ok(lines.indexOf('VERIFY by reading the actual files; do not rely on any summary.') > 0);
});

test('G30: every artifact path, criterion, context path and the report path appear verbatim', () => {
  const prompt = reviewPrompt(input);
  for (const s of [...input.artifacts, ...input.criteria, ...input.context, input.report]) assert.match(prompt, s);
});

test('G8/G9/G13/G15: the contract asks to overwrite the report with a flat list, not to fix, and to answer only the count', () => {
  const prompt = reviewPrompt(input);
  assert.match(prompt, `Overwrite the report file ${input.report}`);
  assert.match(prompt, '{"issues": []} when there are none');
  assert.match(prompt, 'diagnose, never fix');
  assert.match(prompt, 'Answer only {"issues_count": N}');
  assert.match(prompt, 'no severity tiers');
});

test('G8/G15: a .md report is described as top-level Markdown list items instead of JSON', () => {
  const prompt = reviewPrompt({ ...input, report: '/w/review.md' });
  assert.match(prompt, 'Overwrite the report file /w/review.md with Markdown: one top-level list item');
  assert.not.match(prompt, '{"issues": [');
});

test('G30: with no context paths the prompt says so instead of listing any', () => {
  const prompt = reviewPrompt({ ...input, context: [] });
  assert.match(prompt, '\nContext paths: none\n');
  assert.not.match(prompt, '/w/README.md');
});

test('G30: a multi-line criterion stays under its own bullet', () => {
  const prompt = reviewPrompt({ ...input, criteria: ['first line\nsecond line'] });
  assert.match(prompt, '- first line\n  second line\n');
});

test('G31: nothing but the node\'s fields reaches the prompt: extra run data passed along is ignored', () => {
  const leaky = {
    ...input,
    systemReminder: 'REMINDER-SENTINEL',
    narrative: 'We improved the parser with a lot of hard work',
    interpretation: 'INTERPRETATION-SENTINEL',
  } as ReviewPromptInput;
  const prompt = reviewPrompt(leaky);
  assert.is(prompt, reviewPrompt(input));
  for (const s of ['REMINDER-SENTINEL', 'improved', 'hard work', 'INTERPRETATION-SENTINEL']) assert.not.match(prompt, s);
});

test('G31: the template adds no words beyond the fixed text: every other line comes from the input', () => {
  const fixed = new Set(reviewPrompt({ reviewer: 'R', artifacts: [], criteria: [], context: [], report: '/r.json' }).split('\n'));
  const fromInput = new Set([...input.artifacts, ...input.criteria, ...input.context].map((s) => `- ${s}`));
  for (const line of reviewPrompt(input).split('\n')) {
    const known = fixed.has(line) || fromInput.has(line) || line.includes(input.report) || line.includes(input.reviewer) || line === 'Context paths you may study:';
    assert.ok(known, `unexpected line: ${line}`);
  }
});

test('G30/G31: the prompt is deterministic: the same input gives the same text', () => {
  assert.is(reviewPrompt(structuredClone(input)), reviewPrompt(input));
});

test.run();
