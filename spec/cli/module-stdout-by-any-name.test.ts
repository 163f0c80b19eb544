/**
 * stdout is known by what a path resolves to, not how it is spelled: a tool
 * module writing through a link to /dev/stdout (a Docker-style `app.log`),
 * /proc/thread-self/fd/1 or a relative path to /dev/stdout has that output on
 * stderr, and stdout keeps exactly one JSON document (r86). And a descriptor
 * it opened on /dev/stdout, handed to a child as its stdout, carries the
 * child's output to stderr instead of losing it.
 * The link here is the test's own; /dev/stdout itself is never written to by
 * name from this process, nor removed.
 */
import { existsSync, lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LAUNCHER, tempDir } from '../helpers/cli.js';

const AnyName = suite('cli: a tool module writing to stdout by any name for it');

/** A one-tool workflow whose tool runs `body` (fs and child_process imported); `start --json` run in `dir`. */
function runTool(body: (dir: string) => string) {
  const dir = tempDir('countersign-stdout-any-name-');
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'w.mjs'), `import fs from 'node:fs';
import cp from 'node:child_process';
export const tools = [{ name: 'w', class: 'read', inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  run: async () => { ${body(dir)}; return {}; } }];
`);
  const file = join(dir, 'flow.json');
  writeFileSync(file, JSON.stringify({
    metadata: { name: 'writes', version: '1.0.0', description: 'a tool that writes to stdout' },
    toolModules: ['./tools/w.mjs'],
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'w' } },
      { type: 'tool', id: 'w', tool: 'w', args: {}, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  const r = spawnSync(process.execPath, [LAUNCHER, 'start', file, '--allow-tool-modules', '--json', '--store', join(dir, 'store')], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function assertOnStderr(r: { code: number | null; stdout: string; stderr: string }, line: string, said: string) {
  assert.is(r.code, 0, r.stderr);
  assert.not.match(r.stdout, line, `${said}: ${line} is not on stdout:\n${r.stdout}`);
  assert.is(JSON.parse(r.stdout).status, 'completed', `${said}: stdout is exactly one JSON document`);
  assert.ok(r.stderr.includes(`${line}\n`), `${said}: ${line} is on stderr:\n${r.stderr}`);
  assert.ok(existsSync('/dev/stdout') && lstatSync('/dev/stdout').isSymbolicLink(), '/dev/stdout is left alone');
}

AnyName('a link to /dev/stdout (app.log) written with appendFileSync', () => {
  const r = runTool((dir) => {
    const log = JSON.stringify(join(dir, 'app.log'));
    return `fs.symlinkSync('/dev/stdout', ${log}); fs.appendFileSync(${log}, 'LINK-LINE\\n')`;
  });
  assertOnStderr(r, 'LINK-LINE', 'link');
});

AnyName('/proc/thread-self/fd/1 opened and written', () => {
  const r = runTool(() => `const fd = fs.openSync('/proc/thread-self/fd/1', 'a'); fs.writeSync(fd, 'THREAD-SELF-LINE\\n'); fs.closeSync(fd)`);
  assertOnStderr(r, 'THREAD-SELF-LINE', 'thread-self');
});

AnyName('a relative path to /dev/stdout', () => {
  const r = runTool((dir) => `fs.appendFileSync(${JSON.stringify(relative(dir, '/dev/stdout'))}, 'RELATIVE-LINE\\n')`);
  assertOnStderr(r, 'RELATIVE-LINE', 'relative');
});

AnyName('a child given a descriptor the module opened on /dev/stdout writes to stderr', () => {
  const r = runTool(() => `const out = fs.openSync('/dev/stdout', 'a'); cp.spawnSync('echo', ['CHILD-LINE'], { stdio: ['ignore', out, out] }); fs.closeSync(out)`);
  assertOnStderr(r, 'CHILD-LINE', 'child');
});

AnyName.run();
