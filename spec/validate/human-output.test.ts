import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatHuman } from '../../engine/validate/report.js';
import { parseSource } from '../../engine/format/source.js';
import { validateDocument } from '../../engine/validate/index.js';

const Human = suite('human validation output');

Human('one line per finding even when the message quotes multi-line text from the workflow', () => {
  const doc = parseSource(
    ['metadata: { name: m, version: 1.0.0, description: d }', 'nodes:', '  - { type: start, id: s, connections: { default: "x\\ny" } }', '  - { type: end, id: "x\\ny" }', ''].join('\n'),
    'ml.yaml',
  );
  const report = validateDocument(doc);
  const text = formatHuman([report]);
  const lines = text.split('\n');
  assert.is(lines.length, report.errors.length + report.warnings.length);
  for (const line of lines) assert.match(line, /^ml\.yaml:\d+:\d+ (error|warning) E_[A-Z_]+ /);
  assert.ok(text.includes('x\\ny'), 'the break is shown escaped');
});

Human.run();
