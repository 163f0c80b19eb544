/**
 * A tool module that copies a file to stdout by path (copyFile, cp — a
 * report "printed" with fs) has the copy's bytes put on stderr: stdout keeps
 * exactly one JSON document, what a redirected stdout file held before is
 * not truncated, and the stdout path is never unlinked (r86: libuv's copy to
 * a pipe failed with EINVAL and then removed the destination, as root
 * /dev/stdout itself). The paths used here cannot be unlinked (/proc, /dev/fd)
 * or are a link of the test's own, so a regression never touches /dev/stdout.
 */
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LAUNCHER, tempDir } from '../helpers/cli.js';

const Copy = suite('cli: a tool module copying a file to stdout by path');

function project(): { dir: string; file: string; link: string } {
  const dir = tempDir('countersign-copy-to-stdout-');
  mkdirSync(join(dir, 'tools'));
  const report = join(dir, 'report.txt');
  writeFileSync(report, 'REPORT\n');
  const link = join(dir, 'out.log');
  const module = `import fs from 'node:fs';
export const tools = [{ name: 'w', class: 'read', inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  run: async () => {
    fs.rmSync(${JSON.stringify(link)}, { force: true }); fs.symlinkSync('/dev/stdout', ${JSON.stringify(link)});
    fs.copyFileSync(${JSON.stringify(report)}, '/proc/self/fd/1');
    await new Promise((done, fail) => fs.copyFile(${JSON.stringify(report)}, '/dev/fd/1', (e) => e ? fail(e) : done()));
    await fs.promises.copyFile(${JSON.stringify(report)}, ${JSON.stringify(link)});
    fs.cpSync(${JSON.stringify(report)}, '/proc/self/fd/1');
    await fs.promises.cp(${JSON.stringify(report)}, '/dev/fd/1');
    return {};
  } }];
`;
  writeFileSync(join(dir, 'tools', 'w.mjs'), module);
  const file = join(dir, 'flow.json');
  writeFileSync(file, JSON.stringify({
    metadata: { name: 'copies', version: '1.0.0', description: 'a tool that copies a file to stdout' },
    toolModules: ['./tools/w.mjs'],
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'w' } },
      { type: 'tool', id: 'w', tool: 'w', args: {}, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  return { dir, file, link };
}

function assertCopiedToStderr(code: number | null, stdout: string, stderr: string, link: string) {
  assert.is(code, 0, stderr);
  assert.is(JSON.parse(stdout).status, 'completed', `stdout is exactly one JSON document:\n${stdout}`);
  assert.is(stderr.split('REPORT\n').length - 1, 5, `each of the five copies is on stderr:\n${stderr}`);
  assert.ok(lstatSync(link).isSymbolicLink(), 'the link to stdout is left in place');
  assert.ok(existsSync('/dev/stdout') && lstatSync('/dev/stdout').isSymbolicLink(), '/dev/stdout is left alone');
}

Copy('stdout a pipe: the copies go to stderr, the tool succeeds, nothing is unlinked', () => {
  const p = project();
  const r = spawnSync(process.execPath, [LAUNCHER, 'start', p.file, '--allow-tool-modules', '--json', '--store', join(p.dir, 'store')], { encoding: 'utf8', timeout: 60_000 });
  assertCopiedToStderr(r.status, r.stdout, r.stderr, p.link);
});

Copy('stdout a file (> out.txt): what it held before is kept, then one JSON document', () => {
  const p = project();
  const out = join(p.dir, 'out.txt');
  const fd = openSync(out, 'w');
  writeFileSync(fd, 'EARLIER-LINE\n');
  const r = spawnSync(process.execPath, [LAUNCHER, 'start', p.file, '--allow-tool-modules', '--json', '--store', join(p.dir, 'store')], { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 60_000 });
  closeSync(fd);
  const stdout = readFileSync(out, 'utf8');
  assert.ok(stdout.startsWith('EARLIER-LINE\n'), `what stdout held before is kept:\n${stdout}`);
  assertCopiedToStderr(r.status, stdout.slice('EARLIER-LINE\n'.length), r.stderr, p.link);
});

Copy.run();
