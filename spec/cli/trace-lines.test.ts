/**
 * Human `trace` prints one line per journal event, whatever its fields
 * hold: a string with a line break (a tool's multi-line error, as a
 * command that exits non-zero gives) is written JSON-quoted, as other
 * values are, never as bare continuation lines that read as events of
 * their own (r84 a2).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { shoutProject } from '../fixtures/shout-module.js';

const Trace = suite('trace: one line per event');

Trace('a tool that throws a multi-line error: tool.failed and run.failed are one line each, the message quoted with \\n; every line is an event (time, #seq)', async () => {
  const { dir, file } = shoutProject('countersign-trace-lines-');
  const module = join(dir, 'tools', 'shout.mjs');
  // As a failing command's error reads: its output, over several lines.
  writeFileSync(module, `export const tools = [{
  name: 'shout', class: 'read',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  run: async () => { throw new Error('boom\\nsecond line\\r\\nthird\\u2028fourth'); },
}];
`);
  const store = join(dir, 'store');
  const started = await cli(['start', file, '--allow-tool-modules', '--json'], { store });
  assert.is(started.json.status, 'failed', started.stderr);
  const journal = (await cli(['trace', started.json.runId, '--json'], { store })).json.events;
  const r = await cli(['trace', started.json.runId], { store });
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.is(lines.length, journal.length, r.stdout);
  for (const line of lines) assert.match(line, /^\S+ {2}#\d+ {2}\S/, line);
  const failed = lines.find((l) => / tool\.failed /.test(l));
  assert.ok(failed, r.stdout);
  assert.match(failed!, 'message="tool \\"shout\\" failed: boom\\nsecond line\\r\\nthird\\u2028fourth"');
  assert.ok(lines.some((l) => / run\.failed .*boom\\nsecond line/.test(l)), r.stdout);
  // A one-line string is still written as it is.
  assert.match(failed!, 'code=E_TOOL_FAILED');
});

Trace.run();
