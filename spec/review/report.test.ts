/**
 * Reading the review report (seed G8, G14, G15, G17; §4.12): a flat
 * list of strings, JSON {"issues": [...]} or Markdown top-level list items.
 * Tiers, objects and nesting are refused; the issue texts are never scanned.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readReport, reportFormatOf, reportText } from '../../engine/review/report.js';
import { thrownWithCode } from '../helpers/errors.js';
import { shapeOf } from '../helpers/report-file.js';
import { reportFiles } from '../helpers/report-file.js';
import reportSchema from '../../schemas/review-report.schema.json' with { type: 'json' };

const { root, report, cleanup } = reportFiles('cs-report-');

const json = suite('JSON reports');

json('G17: {"issues": [string, …]} gives those issues, in order', () => {
  const path = report('review.json', '{"issues": ["a.ts:3 divides by zero", "README omits the install step"]}');
  assert.equal(shapeOf(readReport(path)), { issues: ['a.ts:3 divides by zero', 'README omits the install step'], format: 'json' });
});

json('G10/G17: an empty list is a valid report with no issues', () => {
  assert.equal(shapeOf(readReport(report('review.json', '{"issues": []}\n'))), { issues: [], format: 'json' });
});

json('G15: issue texts are not scanned: words like "major" or "blocking" inside an issue are fine', () => {
  const path = report('review.json', '{"issues": ["blocking: the major loop never ends", "severity of the leak is high"]}');
  assert.is(readReport(path).issues.length, 2);
});

json('G8/G10: a missing report is E_REPORT_MISSING naming the path and telling the reviewer to write {"issues": []} when there are none', () => {
  const path = join(root, 'nowhere', 'review.json');
  const e = thrownWithCode(() => readReport(path), 'E_REPORT_MISSING');
  assert.match(e.message, path);
  assert.is(e.file, path);
  assert.match(e.fix ?? '', '{"issues": []}');
});

json('G8: a directory at the report path is E_REPORT_MISSING', () => {
  const dir = join(root, 'dir-report.json');
  mkdirSync(dir);
  thrownWithCode(() => readReport(dir), 'E_REPORT_MISSING');
});

json('§4.12: malformed JSON is E_REPORT_FORMAT with the line:col of the syntax error', () => {
  const path = report('review.json', '{\n  "issues": [\n    "one",\n  ]\n}\n');
  const e = thrownWithCode(() => readReport(path), 'E_REPORT_FORMAT');
  assert.is(e.line, 4);
  assert.is(e.col, 3);
  assert.match(e.message, `${path}:4:3`);
  assert.is(e.file, path);
  assert.ok(e.fix);
  thrownWithCode(() => readReport(report('review.json', '')), 'E_REPORT_FORMAT');
});

json('G15/G17: an item that is an object, a list or a number is E_REPORT_FORMAT naming its JSON pointer', () => {
  const path = report('review.json', '{"issues": ["fine",\n "also fine",\n {"text": "x", "severity": "major"}]}');
  const e = thrownWithCode(() => readReport(path), 'E_REPORT_FORMAT');
  assert.is(e.pointer, '/issues/2');
  assert.match(e.message, '/issues/2');
  assert.match(e.message, 'an object');
  assert.is(e.line, 3);
  assert.is(thrownWithCode(() => readReport(report('r.json', '{"issues": [["nested"]]}')), 'E_REPORT_FORMAT').pointer, '/issues/0');
  assert.is(thrownWithCode(() => readReport(report('r.json', '{"issues": ["a", 7]}')), 'E_REPORT_FORMAT').pointer, '/issues/1');
});

json('G15: tiered top-level keys are E_REPORT_FORMAT saying severity tiers are not allowed, whatever their case', () => {
  for (const key of ['blocking', 'Major', 'MINOR', 'severity', 'critical', 'high', 'medium', 'low', 'tiers']) {
    const e = thrownWithCode(() => readReport(report('review.json', `{"issues": [], "${key}": ["x"]}`)), 'E_REPORT_FORMAT');
    assert.match(e.message, 'severity tiers are not allowed');
    assert.match(e.message, 'one flat "issues" list');
    assert.is(e.pointer, `/${key}`);
  }
  const tieredOnly = thrownWithCode(() => readReport(report('review.json', '{"blocking": ["a"], "minor": ["b"]}')), 'E_REPORT_FORMAT');
  assert.match(tieredOnly.message, 'severity tiers');
});

json('G17/§4.12: any other key, or no "issues" at all, is E_REPORT_FORMAT', () => {
  const extra = thrownWithCode(() => readReport(report('review.json', '{"issues": [], "summary": "ok"}')), 'E_REPORT_FORMAT');
  assert.match(extra.message, '"summary"');
  assert.is(extra.pointer, '/summary');
  assert.match(thrownWithCode(() => readReport(report('review.json', '{"findings": []}')), 'E_REPORT_FORMAT').message, '"issues"');
  thrownWithCode(() => readReport(report('review.json', '{"issues": "none"}')), 'E_REPORT_FORMAT');
  thrownWithCode(() => readReport(report('review.json', '["a", "b"]')), 'E_REPORT_FORMAT');
});

json('G17/§4.12: a duplicated "issues" key is E_REPORT_FORMAT (JSON would silently keep only the last list)', () => {
  const e = thrownWithCode(() => readReport(report('review.json', '{"issues": ["a", "b"], "issues": []}')), 'E_REPORT_FORMAT');
  assert.match(e.message, 'duplicate key');
});

json('G17/§4.12: a blank issue string is E_REPORT_FORMAT', () => {
  assert.is(thrownWithCode(() => readReport(report('review.json', '{"issues": ["a", "  "]}')), 'E_REPORT_FORMAT').pointer, '/issues/1');
});

json('G15/G17: the published schema is draft-07 with a title and description on every part, items of type string, no extra keys', () => {
  const schema = reportSchema as Record<string, any>;
  assert.is(schema.$schema, 'http://json-schema.org/draft-07/schema#');
  assert.is(schema.$id, 'https://countersign.dev/schemas/review-report.schema.json');
  assert.is(schema.additionalProperties, false);
  assert.equal(schema.required, ['issues']);
  assert.is(schema.properties.issues.items.type, 'string');
  for (const part of [schema, schema.properties.issues, schema.properties.issues.items]) {
    assert.type(part.title, 'string');
    assert.type(part.description, 'string');
  }
});

json.run();

const markdown = suite('Markdown reports');
markdown.after(() => cleanup());

markdown('§4.12: every top-level "- ", "* ", "+ ", "1. " or "1) " item is one issue; headings and paragraphs are not', () => {
  const text = [
    '# Review of plan.md',
    '',
    'Checked against all criteria.',
    '',
    '- first issue',
    '* second issue',
    '+ third issue',
    '1. fourth issue',
    '2) fifth issue',
    '',
    'That is all.',
  ].join('\n');
  const result = shapeOf(readReport(report('review.md', text)));
  assert.equal(result, { issues: ['first issue', 'second issue', 'third issue', 'fourth issue', 'fifth issue'], format: 'markdown' });
});

markdown('§4.12: continuation lines belong to their item, also after a blank line when indented', () => {
  const text = '- the loop in a.ts\n  never terminates\n\n  when n is 0\n- second\nlazy continuation\n';
  assert.equal(readReport(report('review.md', text)).issues, ['the loop in a.ts\nnever terminates\n\nwhen n is 0', 'second\nlazy continuation']);
});

markdown('§4.12: list items inside fenced code blocks are not issues; a fence inside an item belongs to the item', () => {
  const text = [
    '- config is wrong:',
    '  ```yaml',
    '  - name: x',
    '  ```',
    '',
    '```',
    '- not an issue',
    '  - nor this',
    '```',
    '~~~',
    '1. nor this',
    '~~~',
    '- last issue',
  ].join('\n');
  const issues = readReport(report('review.md', text)).issues;
  assert.is(issues.length, 2);
  assert.match(issues[0], '- name: x');
  assert.is(issues[1], 'last issue');
});

markdown('G10: an empty Markdown report (or one holding only HTML comments) has no issues; headings alone are E_REPORT_FORMAT, since findings written as headings would count as none', () => {
  assert.equal(readReport(report('review.md', '')).issues, []);
  assert.equal(readReport(report('review.md', '<!-- reviewed notes.md: nothing found -->\n')).issues, []);
  for (const text of ['# Review\n', '## 1. parse() crashes on empty input\n## 2. README example is wrong\n', '### Issue: null deref\n### Issue: typo\n']) {
    const e = thrownWithCode(() => readReport(report('review.md', text)), 'E_REPORT_FORMAT');
    assert.is(e.line, 1, text);
    assert.match(e.message, 'no list items');
  }
});

markdown('G15: a nested (indented) list item is E_REPORT_FORMAT "not flat" with its line number', () => {
  const path = report('review.md', '- parent issue\n  - child detail\n- other\n');
  const e = thrownWithCode(() => readReport(path), 'E_REPORT_FORMAT');
  assert.is(e.line, 2);
  assert.match(e.message, `${path}:2`);
  assert.match(e.message, 'flat');
  assert.is(e.file, path);
  assert.is(thrownWithCode(() => readReport(report('review.md', '- a\n   1. b\n')), 'E_REPORT_FORMAT').line, 2);
});

markdown('G15: a heading that names a severity tier is E_REPORT_FORMAT, whatever its case, colon or count', () => {
  for (const heading of ['## Blocking', '### major:', '## MINOR (2)', '# Severity: high', '## Critical issues', '## Nice to have', '## Optional', '## Low priority', '## **High**: 3']) {
    const path = report('review.md', `# Review\n\n${heading}\n\n- an issue\n`);
    const e = thrownWithCode(() => readReport(path), 'E_REPORT_FORMAT');
    assert.is(e.line, 3, heading);
    assert.match(e.message, 'severity tiers');
  }
  assert.is(thrownWithCode(() => readReport(report('review.md', 'Major\n-----\n- x\n')), 'E_REPORT_FORMAT').line, 1);
  assert.is(thrownWithCode(() => readReport(report('review.md', '**Blocking:**\n\n- x\n')), 'E_REPORT_FORMAT').line, 1);
});

markdown('G15: a heading that opens with a severity word is a tier when it names findings by it ("Minor improvements", "Non-blocking", "Must fix before merge", "Minor / nits"); a topic heading ("Optional parameters", "Major version bump", "Low-level API") is not', () => {
  for (const heading of ['Non-blocking', 'Nonblocking', 'Non-blocking issues', 'Minor improvements', 'Major concerns', 'Optional improvements', 'Nits (optional)', 'Must fix before merge', 'Minor / nits']) {
    const e = thrownWithCode(() => readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)), 'E_REPORT_FORMAT');
    assert.is(e.line, 3, heading);
  }
  for (const heading of ['Low-level API', 'High-level notes', 'Parse errors', 'Optional parameters', 'Critical path', 'Major version bump']) {
    assert.equal(readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)).issues, ['an issue'], heading);
  }
});

markdown('G15: a tier named with a qualifier is a tier too: "P1 (must fix)", "P2 - Medium", "[P1] issues", "Critical (P0)", "Priority: high", "Critical bugs", "Style nits", "Tier 1"; topics that open with such a word are not', () => {
  for (const heading of ['P1 (must fix)', 'P2 - Medium', '[P1] issues', 'Critical (P0)', 'Priority: high', 'Critical bugs', 'Style nits', 'Tier 1']) {
    const e = thrownWithCode(() => readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)), 'E_REPORT_FORMAT');
    assert.is(e.line, 3, heading);
  }
  for (const heading of ['High availability', 'Priority queue design', 'Error handling: retries', 'Setup - install', 'Severity mapping (syslog)']) {
    assert.equal(readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)).issues, ['an issue'], heading);
  }
});

markdown('G15: tier words anywhere in a heading, and more of their forms, are tiers: Nice-to-haves, Non-critical, Not blocking, Follow-ups (non-blocking), Lower priority, Minor things', () => {
  for (const heading of ['Nice-to-haves', 'Non-critical', 'Not blocking', 'Follow-ups (non-blocking)', 'Lower priority', 'Minor things']) {
    thrownWithCode(() => readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)), 'E_REPORT_FORMAT');
  }
});

markdown('G15: mirror-image tier headings are tiers alike: "High priority fixes" as "Low-priority issues", "P0 blockers" as "P0", "Follow-up (optional)" as "Follow-ups (non-blocking)"; "Printer (p. 2)" and "High priority queue" stay topics', () => {
  for (const heading of ['High priority fixes', 'High-priority fixes', 'P0 blockers', 'Follow-up (optional)', 'Tests (minor)', 'Low-priority issues', 'P0', 'Follow-ups (non-blocking)']) {
    const e = thrownWithCode(() => readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)), 'E_REPORT_FORMAT');
    assert.is(e.line, 3, heading);
  }
  for (const heading of ['Printer (p. 2)', 'High priority queue', 'Severity mapping (syslog)', 'Error handling: retries']) {
    assert.equal(readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)).issues, ['an issue'], heading);
  }
});

markdown('G15 §4.12: an intro or closing sentence that opens with a tier word and a colon is prose ("Optional: …", "Nits: none.", "Critical: nothing blocks the merge."); a label line ("**Blocking:**", "Minor issues:", "Priority: high") is a tier, said to be a label line', () => {
  for (const text of ['Optional: the notes file was also read.\n\n- first issue\n', '- a\n\nNits: none.\n', '- a\n\nCritical: nothing blocks the merge.\n']) {
    assert.is(readReport(report('review.md', text)).issues.length, 1, text);
  }
  for (const text of ['**Blocking:**\n\n- x\n', 'Minor issues:\n- x\n', 'Priority: high\n\n- x\n', '> **Blocking**\n\n- x\n']) {
    const e = thrownWithCode(() => readReport(report('review.md', text)), 'E_REPORT_FORMAT');
    assert.is(e.line, 1, text);
    assert.match(e.message, 'the label line', text);
  }
});

markdown('G10 G15: a closing sentence that mentions a tier word is prose ("All earlier nits are resolved.", "Minor issues from the previous review are all fixed."); a short label line on its own ("Nits", "Minor issues") is a tier', () => {
  for (const text of ['- a\n- b\n\nAll earlier nits are resolved.\n', '- a\n\nMinor issues from the previous review are all fixed.\n']) {
    assert.ok(readReport(report('review.md', text)).issues.length > 0, text);
  }
  for (const text of ['Nits\n\n- a\n', 'Minor issues\n\n- a\n']) {
    assert.match(thrownWithCode(() => readReport(report('review.md', text)), 'E_REPORT_FORMAT').message, 'the label line', text);
  }
});

markdown('G15: an item whose text opens with a list marker ("- 2. step fails") is refused for that, with the escape as the fix, not called indented', () => {
  const e = thrownWithCode(() => readReport(report('review.md', '- 2. step fails\n')), 'E_REPORT_FORMAT');
  assert.equal([e.line, e.col], [1, 1]);
  assert.match(e.message, 'this item\'s text begins with a list marker ("2."), which Markdown reads as a list inside the item: write the text without it, or escape it (2\\.)');
  assert.not.match(e.message, 'indented');
  assert.equal(readReport(report('review.md', '- 2\\. step fails\n')).issues, ['2\\. step fails'], 'escaped, it is the item\'s text');
});

markdown('G15: topic headings that hold a tier word are topics: "Blocking I/O", "Blocking calls", "Notes on nits"; "Blocking", "Blocking issues" and "Style nits" stay tiers', () => {
  for (const heading of ['Blocking I/O', 'Blocking calls', 'Notes on nits']) {
    assert.equal(readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)).issues, ['an issue'], heading);
  }
  for (const heading of ['Blocking', 'Blocking issues', 'Style nits']) {
    thrownWithCode(() => readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)), 'E_REPORT_FORMAT');
  }
});

markdown('G15: more tier schemes are tiers: Important issues / Less important, Top / Second priority, Severe / Small issues, must_fix, Must-haves; topics stay topics (Small helpers, snake_case names)', () => {
  for (const heading of ['Important issues', 'Less important', 'Top priority', 'Second priority', 'Severe issues', 'Small issues', 'must_fix', 'Must-haves']) {
    assert.is(thrownWithCode(() => readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)), 'E_REPORT_FORMAT').line, 3, heading);
  }
  for (const heading of ['Small helpers', 'snake_case names']) {
    assert.equal(readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)).issues, ['an issue'], heading);
  }
});

markdown('G15: required/recommended, not/less critical, MoSCoW (Must, Should, Could, Won\'t) and secondary/other-minor headings are tiers; topics that open with those words stay topics', () => {
  for (const heading of ['Required changes', 'Recommended changes', 'Not critical', 'Less critical', 'Must', 'Should', 'Could', "Won't", 'Secondary issues', 'Additional minor points', 'Follow-ups (not critical)']) {
    assert.is(thrownWithCode(() => readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)), 'E_REPORT_FORMAT').line, 3, heading);
  }
  for (const heading of ['Required permissions', 'Recommended reading', 'Should we cache?', 'Could not reproduce', 'Secondary index', 'Additional context', "Won't compile on Windows"]) {
    assert.equal(readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)).issues, ['an issue'], heading);
  }
});

markdown('G15: a tier heading or label line indented under an item is still a tier (it heads the items after it); a topic heading inside an item is its text', () => {
  const heading = thrownWithCode(() => readReport(report('review.md', '- a\n\n  ## Nits\n\n- b\n')), 'E_REPORT_FORMAT');
  assert.equal([heading.line, heading.col], [3, 3]);
  assert.match(heading.message, 'the heading "Nits" names a severity tier');
  assert.match(thrownWithCode(() => readReport(report('review.md', '- a\n\n  **Minor:**\n\n- b\n')), 'E_REPORT_FORMAT').message, 'the label line "**Minor:**" names a severity tier');
  assert.equal(readReport(report('review.md', '- a\n\n  ## Details\n\n  more\n- b\n')).issues, ['a\n\n## Details\n\nmore', 'b']);
});

markdown('G10 G17: the next finding\'s number after a line of text ("Also found:" then "2. b", or "2. b" under item 1) is E_REPORT_FORMAT, never a finding silently folded into prose; other numbers stay text', () => {
  for (const text of ['1. a\n\nAlso found:\n2. b\n3. c\n', '- a\n\nMore findings\n2) b\n', '1. a\n   2. b\n']) {
    const e = thrownWithCode(() => readReport(report('review.md', text)), 'E_REPORT_FORMAT');
    assert.match(e.message, 'right after a line of text continues that text', text);
    assert.match(e.message, 'so this finding would not be counted', text);
  }
  assert.equal(readReport(report('review.md', '- a\n\nSee 2. below\n')).issues, ['a']);
  assert.equal(readReport(report('review.md', 'Findings:\n1. a\n2. b\n')).issues, ['a', 'b']);
  assert.equal(readReport(report('review.md', '- a\n  3. not the next number\n')).issues, ['a\n3. not the next number']);
});

markdown('G10: an item of only invisible characters (zero-width space, braille blank) is blank: E_REPORT_FORMAT in Markdown and in JSON alike', () => {
  const md = thrownWithCode(() => readReport(report('review.md', '- a\n- \u200b\n')), 'E_REPORT_FORMAT');
  assert.equal([md.line, md.message.includes('only invisible characters')], [2, true]);
  const js = thrownWithCode(() => readReport(report('review.json', '{"issues": ["a", "\\u2800", "\\ufeff\\u200d "]}')), 'E_REPORT_FORMAT');
  assert.match(js.message, 'the item at /issues/1 is blank (white space or invisible characters only)');
  assert.equal(readReport(report('review.json', '{"issues": ["\\u200bvisible"]}')).issues, ['\u200bvisible']);
});

markdown('G15: the low/moderate/high/critical scheme (npm audit\'s) is a tier in every form: "Moderate", "Moderate issues", "Severity: moderate"; "Content moderation" is a topic', () => {
  for (const heading of ['Moderate', 'Moderate issues', 'Severity: moderate']) {
    assert.is(thrownWithCode(() => readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)), 'E_REPORT_FORMAT').line, 3, heading);
  }
  assert.equal(readReport(report('review.md', '# Review\n\n## Content moderation\n\n- an issue\n')).issues, ['an issue']);
});

markdown('G15: a tier label right under an item\'s text (no blank line: Markdown reads it as more of that item) is still a tier; a wrapped "… two minor issues" is text', () => {
  for (const text of ['- The title is wrong.\nMinor issues:\n- A typo in line 3.\n', '- a\n**Nits**\n- b\n', '- a\n  **Minor:**\n- b\n']) {
    const e = thrownWithCode(() => readReport(report('review.md', text)), 'E_REPORT_FORMAT');
    assert.match(e.message, 'names a severity tier', text);
    assert.is(e.line, 2, text);
  }
  assert.equal(readReport(report('review.md', '- The docs have two\n  minor issues\n- b\n')).issues, ['The docs have two\nminor issues', 'b']);
});

markdown('G10 G15: a finding written with an escaped marker ("\\- b", "2\\. b") after a real item is E_REPORT_FORMAT, never a finding left uncounted; "Urgent issues" and "Showstoppers" are tiers', () => {
  for (const text of ['- first finding\n\n\\- second finding\n', '- first\n\n2\\. second\n']) {
    const e = thrownWithCode(() => readReport(report('review.md', text)), 'E_REPORT_FORMAT');
    assert.match(e.message, 'escaped list marker', text);
    assert.is(e.line, 3, text);
  }
  assert.equal(readReport(report('review.md', '- a \\- b\n')).issues, ['a \\- b']);
  for (const heading of ['Urgent', 'Urgent issues', 'Showstoppers']) {
    assert.is(thrownWithCode(() => readReport(report('review.md', `# Review\n\n## ${heading}\n\n- an issue\n`)), 'E_REPORT_FORMAT').line, 3, heading);
  }
});

markdown('G10: findings written as link reference definitions, or a report of only a rule ("---"), are E_REPORT_FORMAT, never zero issues; a reference definition beside items is fine', () => {
  for (const text of ['[1]: docs/a.md "the title is wrong"\n[2]: b.md "missing"\n', '---\n', '***\n']) {
    const e = thrownWithCode(() => readReport(report('review.md', text)), 'E_REPORT_FORMAT');
    assert.match(e.message, 'this report has text but no list items', text);
    assert.is(e.line, 1, text);
  }
  assert.equal(readReport(report('review.md', '- see [docs][1]\n\n[1]: https://example.com\n')).issues, ['see [docs][1]']);
  assert.equal(readReport(report('review.md', '- a\n\n---\n\n- b\n')).issues, ['a', 'b']);
  assert.equal(readReport(report('review.md', '<!-- nothing -->\n')).issues, []);
});

markdown('G10 G17: a flag wrapped onto its own line ("-Werror") is item text, and a one-line dash sign-off ("— reviewer") is prose; dashes on several lines, and "-x" with no space, are still refused', () => {
  assert.equal(readReport(report('review.md', '- pass this flag\n-Werror to the compiler.\n')).issues, ['pass this flag\n-Werror to the compiler.']);
  assert.equal(readReport(report('review.md', '- a finding\n\n— reviewer\n')).issues, ['a finding']);
  thrownWithCode(() => readReport(report('review.md', 'Findings:\n\n— first issue\n— second issue\n')), 'E_REPORT_FORMAT');
  thrownWithCode(() => readReport(report('review.md', '- a\n-b second\n')), 'E_REPORT_FORMAT');
});

markdown('G10 G17: "<!-->" and "<!--->" are whole comments (CommonMark), never one left open that hides the findings after it; ```inline``` code in text and a fence indented past an item\'s text open no fence', () => {
  assert.equal(readReport(report('review.md', '<!-->\n- a real finding\n')).issues, ['a real finding']);
  assert.equal(readReport(report('review.md', '<!--->\n- a real finding\n')).issues, ['a real finding']);
  assert.equal(readReport(report('review.md', '- a\n```inline``` text\n- b\n- c\n')).issues.length, 3);
  assert.equal(readReport(report('review.md', '- a\n\n        ```\n- b\n')).issues.length, 2);
  assert.equal(readReport(report('review.md', '- a\n  ```\n  code\n  ```\n- b\n')).issues, ['a\n```\ncode\n```', 'b']);
  // A numbered line after an item's indented code starts a new item (nothing lazy continues code); U+2028 inside an item's text is text.
  assert.equal(readReport(report('review.md', '- Running the example fails:\n\n      # install first\n      npm ci\n2. then run it again\n')).issues.length, 2);
  assert.equal(readReport(report('review.md', '- a\n\n- b\u2028c\n')).issues, ['a', 'b\u2028c']);
});

markdown('G10: a fence left open inside a finding ends with that finding (CommonMark), so the findings after it are counted; a closing fence indented 4+ is code and closes nothing', () => {
  const report3 = '- src/a.ts:3: `parse` drops the last line, e.g.\n  ```js\n  parse("a\\nb")\n- src/b.ts:9: `fmt` ignores the width argument\n- README.md:12: the install command is wrong\n';
  assert.equal(readReport(report('review.md', report3)).issues.length, 3);
  const e = thrownWithCode(() => readReport(report('review.md', '```\nexample\n    ```\n- first issue\n')), 'E_REPORT_FORMAT');
  assert.match(e.message, 'no list items');
});

markdown('G10 G17: as CommonMark reads lists — items 1–3 spaces in are top-level, a number other than 1 right after a paragraph is more of it, a bare marker then a blank line is an empty item', () => {
  assert.equal(readReport(report('review.md', ' - first issue\n - second issue\n')).issues, ['first issue', 'second issue']);
  assert.equal(readReport(report('review.md', '- a\n - b\n')).issues, ['a', 'b']);
  thrownWithCode(() => readReport(report('review.md', '- a\n  - b\n')), 'E_REPORT_FORMAT');
  assert.match(thrownWithCode(() => readReport(report('review.md', 'Findings:\n2. first issue\n3. second issue\n')), 'E_REPORT_FORMAT').message, 'no list items');
  assert.match(thrownWithCode(() => readReport(report('review.md', '-\n\n  first issue\n')), 'E_REPORT_FORMAT').message, 'this list item is empty');
});

markdown('G8: reportText writes each accepted issue so that it reads back as that issue, whatever block it opens with (a fence on a line of its own)', () => {
  for (const issues of [['```\n***'], ['Running the example fails:\n\n    # install first\n    npm ci', 'then run it again']]) {
    assert.equal(readReport(report('rewritten.md', reportText(issues, 'markdown'))).issues, issues);
  }
});

markdown('G15: headings and items are not keyword-scanned: "## Findings" and an item mentioning "major" are fine', () => {
  const text = '## Findings\n\n- a major flaw in the blocking call\n## Low-hanging fruit of the parser\n- second\n';
  assert.equal(readReport(report('review.md', text)).issues, ['a major flaw in the blocking call', 'second']);
});

markdown('G17/§4.12: an empty list item is E_REPORT_FORMAT with its line', () => {
  assert.is(thrownWithCode(() => readReport(report('review.md', '- one\n-\n')), 'E_REPORT_FORMAT').line, 2);
  assert.is(thrownWithCode(() => readReport(report('review.md', '- one\n2.   \n')), 'E_REPORT_FORMAT').line, 2);
});

markdown('§4.12: thematic breaks and emphasis lines are not items', () => {
  assert.equal(readReport(report('review.md', '- one\n\n---\n\n***\n**bold** text\n- two\n')).issues, ['one', 'two']);
});

markdown('§4.12: format: .json is JSON and .md/.markdown Markdown by extension; otherwise JSON only when the text starts with "{"', () => {
  assert.is(reportFormatOf('/w/r.json', '- x'), 'json');
  assert.is(reportFormatOf('/w/r.md', '{"issues": []}'), 'markdown');
  assert.is(reportFormatOf('/w/r.MARKDOWN', ''), 'markdown');
  assert.is(reportFormatOf('/w/report', '  \n {"issues": []}'), 'json');
  assert.is(reportFormatOf('/w/report.txt', '- x'), 'markdown');
  assert.equal(shapeOf(readReport(report('report.txt', '\n{"issues": ["x"]}'))), { issues: ['x'], format: 'json' });
  assert.equal(shapeOf(readReport(report('report', '- x\n- y\n'))), { issues: ['x', 'y'], format: 'markdown' });
});

markdown.run();

const rewritten = reportFiles('cs-report-rewritten-');
const written = suite('review: a report rewritten from its findings');
written.after(() => rewritten.cleanup());
written('G8: reportText writes JSON and Markdown that read back as the same issues, multi-line items included (a line that would read as a nested item when indented, fenced code)', () => {
  // A further line that, indented, would read as a nested item ("2024. …"), and one inside fenced code.
  const issues = ['first issue', 'second issue\nwith a second line', 'third: `code`', 'fourth\n2024. was not the release year', 'fifth\n```\n- a code line\n```'];
  for (const [name, format] of [['review.json', 'json'], ['review.md', 'markdown']] as const) {
    assert.equal(readReport(rewritten.report(name, reportText(issues, format))).issues, issues, format);
  }
});
written.run();
