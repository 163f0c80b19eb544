import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatCodeReview, formatDocsReview } from '../../engine/tools/review-format.js';
import { cli, spawnCli } from '../helpers/cli.js';
import { tempDir } from './standin.js';

const Cli = suite('tools/pr-status CLI: countersign pr-status --comments FILE [--json]');

const comments = [formatCodeReview('Checked.', 'NEEDS_DISCUSSION'), 'thanks!', formatDocsReview('Docs fine.', 'NO_CHANGES')];

function file(name: string, text: string): string {
  const path = join(tempDir('prstatus'), name);
  writeFileSync(path, text);
  return path;
}

Cli('H16: a file of comment bodies prints one line per phase: review: DONE <verdict>, docs: DONE', async () => {
  const r = await cli(['pr-status', '--comments', file('c.json', JSON.stringify(comments))]);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'review: DONE NEEDS_DISCUSSION\ndocs: DONE\n');
});

Cli('H19, H20: a wrong heading and a verdict typo print review: NOT_DONE (exit 0: the reading succeeded)', async () => {
  const r = await cli(['pr-status', '--comments', file('c.json', JSON.stringify(['## Code Review\n### Verdict: APPROVE', '## Code Review Summary\n### Verdict: APROVE']))]);
  assert.is(r.code, 0);
  assert.is(r.stdout, 'review: NOT_DONE\ndocs: NOT_DONE\n');
});

Cli('- reads the comments from standard input; a relative FILE is read from the working directory', async () => {
  const r = await cli(['pr-status', '--comments', '-'], { stdin: JSON.stringify([formatCodeReview('x', 'APPROVE')]) });
  assert.is(r.stdout, 'review: DONE APPROVE\ndocs: NOT_DONE\n');
  const path = file('rel.json', JSON.stringify(['Docs Review pending']));
  const rel = await cli(['pr-status', '--comments', 'rel.json'], { cwd: join(path, '..') });
  assert.is(rel.stdout, 'review: NOT_DONE\ndocs: DONE\n');
});

Cli('--json prints exactly {review: {status, verdict?}, docs: {status}}', async () => {
  const done = await cli(['pr-status', '--comments', '-', '--json'], { stdin: JSON.stringify(comments) });
  assert.equal(done.json, { review: { status: 'DONE', verdict: 'NEEDS_DISCUSSION' }, docs: { status: 'DONE' } });
  const none = await cli(['pr-status', '--json', '--comments', '-'], { stdin: '[]' });
  assert.equal(none.json, { review: { status: 'NOT_DONE' }, docs: { status: 'NOT_DONE' } });
});

Cli('a comments file (or standard input) starting with a UTF-8 byte-order mark is read like one without, as workflow files are', async () => {
  const bom = '\uFEFF';
  const r = await cli(['pr-status', '--comments', file('bom.json', bom + JSON.stringify(comments)), '--json']);
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json, { review: { status: 'DONE', verdict: 'NEEDS_DISCUSSION' }, docs: { status: 'DONE' } });
  const piped = await cli(['pr-status', '--comments', '-'], { stdin: bom + JSON.stringify([formatCodeReview('x', 'APPROVE')]) });
  assert.is(piped.stdout, 'review: DONE APPROVE\ndocs: NOT_DONE\n');
  const broken = await cli(['pr-status', '--comments', file('bombad.json', `${bom}[\n  oops\n]`)]);
  assert.is(broken.code, 2);
  assert.match(broken.stderr, 'is not valid JSON (line 2, column 3)', 'positions count from after the mark');
});

Cli('a --comments path that is a directory is E_FILE_NOT_FOUND (as step @dir and validate dir are), saying it is a directory, never "not found"', async () => {
  const dir = file('a-dir-placeholder.json', '[]').replace(/a-dir-placeholder\.json$/, '');
  const r = await cli(['pr-status', '--comments', dir, '--json']);
  assert.is(r.code, 2);
  assert.is(r.json.error.code, 'E_FILE_NOT_FOUND');
  assert.match(r.json.error.message, 'is a directory, not a file');
  assert.not.match(r.json.error.message, 'not found');
});

Cli('bad input exits 2 naming the file, what is wrong and the fix: not JSON (with line and column), not an array, a non-string item', async () => {
  const notJson = file('bad.json', '[\n  "a",\n  oops\n]');
  const a = await cli(['pr-status', '--comments', notJson]);
  assert.is(a.code, 2);
  assert.match(a.stderr, `countersign: E_INPUT: ${notJson}:3:3: the file is not valid JSON (line 3, column 3)`);
  assert.is(a.stderr.split(notJson).length, 2, 'the file is named once');
  assert.match(a.stderr, 'fix: write a JSON array of comment bodies');

  const ghShape = file('gh.json', JSON.stringify({ comments: [{ body: 'x' }] }));
  const b = await cli(['pr-status', '--comments', ghShape, '--json']);
  assert.is(b.code, 2);
  assert.is(b.json.error.code, 'E_INPUT');
  assert.is(b.json.error.file, ghShape);
  assert.match(b.json.error.message, 'holds an object, not a JSON array of comment bodies');
  assert.match(b.json.error.fix, "--jq '[.comments[].body]'");

  const item = file('item.json', '["ok", 3]');
  const i = await cli(['pr-status', '--comments', item, '--json']);
  assert.equal([i.json.error.code, i.json.error.pointer, i.json.error.file], ['E_INPUT', '/1', item]);
  assert.match(i.stderr, `${item}: item /1 is a number`);
  assert.is(i.stderr.split(item).length, 2, 'the file is named once');

  const c = await cli(['pr-status', '--comments', '-'], { stdin: '["ok", 7]' });
  assert.is(c.code, 2);
  assert.match(c.stderr, 'standard input: item /1 is a number, not a comment body (a string)');

  const d = await cli(['pr-status', '--comments', '-'], { stdin: '' });
  assert.is(d.code, 2);
  assert.match(d.stderr, 'E_INPUT: standard input is not valid JSON');

  // One line, as for every JSON argument: the text is never quoted back with its line breaks, the position never said twice.
  const e = await cli(['pr-status', '--comments', '-'], { stdin: 'ab\ncd\n' });
  const [line] = e.stderr.split('\n');
  assert.is(line, 'countersign: E_INPUT: standard input is not valid JSON (line 1, column 1): Unexpected token \'a\'');
  assert.not.match(a.stderr, 'at position');
});

Cli('a missing file is E_FILE_NOT_FOUND; a missing --comments or a positional argument is E_USAGE (exit 2)', async () => {
  const missing = join(tempDir('prstatus'), 'nope.json');
  const a = await cli(['pr-status', '--comments', missing]);
  assert.is(a.code, 2);
  assert.match(a.stderr, `E_FILE_NOT_FOUND: cannot read the comments file ${missing}: ENOENT`);
  const b = await cli(['pr-status']);
  assert.is(b.code, 2);
  assert.match(b.stderr, 'E_USAGE: pr-status needs --comments FILE');
  const c = await cli(['pr-status', 'comments.json']);
  assert.match(c.stderr, 'E_USAGE: pr-status takes no positional arguments');
});

Cli('pr-status is in countersign --help, has its own help, and runs from the real launcher', async () => {
  const help = await cli(['--help']);
  assert.match(help.stdout, 'pr-status --comments FILE|- [--json]');
  const own = await cli(['help', 'pr-status']);
  assert.match(own.stdout, 'countersign pr-status --comments FILE|- [--json]');
  const r = spawnCli(['pr-status', '--comments', '-'], { input: JSON.stringify([formatCodeReview('x', 'REQUEST_CHANGES')]) });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'review: DONE REQUEST_CHANGES\ndocs: NOT_DONE\n');
});

Cli.run();
