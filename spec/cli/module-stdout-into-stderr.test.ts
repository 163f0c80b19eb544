/**
 * A tool module that opens /dev/stdout itself (a logger's destination) has
 * that output put on countersign's stderr — through stderr's own descriptor,
 * so it lands in order with everything else written there. Opened anew by
 * path, it would get a file offset of its own: with stderr a file (`2>err.txt`)
 * a 'w' open truncated what was written before, and an 'a' open wrote at the
 * end only to be overwritten by the next line on stderr (r85).
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LAUNCHER, tempDir } from '../helpers/cli.js';

const Into = suite('cli: a tool module writing to /dev/stdout, with stderr a file or a socket');

/** Every way a module (or a logger it uses) opens stdout by path and writes to it, one marked line each, in order. */
const LINES = ['A-console-log', 'B-openSync-w', 'C-openSync-a', 'D-open-callback', 'E-promises-open', 'F-promises-writeFile-handle', 'G-stream-w', 'H-positioned-write', 'J-promisified-write', 'K-named-import-open', 'I-console-error'];
const MODULE = `import fs from 'node:fs';
import { open as openHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
export const tools = [{ name: 'w', class: 'read', inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  run: async () => {
    console.log('A-console-log');
    let fd = fs.openSync('/dev/stdout', 'w'); fs.writeSync(fd, 'B-openSync-w\\n'); fs.closeSync(fd);
    fd = fs.openSync('/dev/stdout', 'a'); fs.writeSync(fd, Buffer.from('C-openSync-a\\n')); fs.closeSync(fd);
    await new Promise((done, fail) => fs.open('/dev/stdout', 'w', (e, at) => e ? fail(e)
      : fs.write(at, 'D-open-callback\\n', (e2) => e2 ? fail(e2) : fs.close(at, done))));
    const handle = await fs.promises.open('/dev/stdout', 'w');
    await handle.write('E-promises-open\\n');
    await fs.promises.writeFile(handle, 'F-promises-writeFile-handle\\n');
    await handle.close();
    const stream = fs.createWriteStream('/dev/stdout', { flags: 'w' });
    await new Promise((done) => stream.end('G-stream-w\\n', done));
    fd = fs.openSync('/proc/self/fd/1', 'w'); fs.writeSync(fd, Buffer.from('H-positioned-write\\n'), 0, 19, 0); fs.closeSync(fd);
    const said = await promisify(fs.write)(1, 'J-promisified-write\\n');
    if (typeof said.bytesWritten !== 'number') throw new Error('promisify(fs.write) no longer resolves { bytesWritten, buffer }');
    const named = await openHandle('/dev/stdout', 'a');
    const { bytesWritten } = await named.write(Buffer.from('K-named-import-open\\n'));
    if (bytesWritten !== 20) throw new Error('FileHandle.write resolved ' + bytesWritten);
    await named.close();
    console.error('I-console-error');
    return {};
  } }];
`;

function project(): { dir: string; file: string } {
  const dir = tempDir('countersign-stdout-into-stderr-');
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'w.mjs'), MODULE);
  const file = join(dir, 'flow.json');
  writeFileSync(file, JSON.stringify({
    metadata: { name: 'writes', version: '1.0.0', description: 'a tool that writes to /dev/stdout' },
    toolModules: ['./tools/w.mjs'],
    nodes: [
      { type: 'start', id: 'start', connections: { default: 'w' } },
      { type: 'tool', id: 'w', tool: 'w', args: {}, connections: { success: 'done' } },
      { type: 'end', id: 'done' },
    ],
  }));
  return { dir, file };
}

/** `start` through the real launcher, stderr into `stderrFile` (opened 'w', as `2>err.txt` does) or a socket (Node's pipe). */
function start(p: { dir: string; file: string }, stderrFile?: string) {
  const fd = stderrFile === undefined ? undefined : openSync(stderrFile, 'w');
  // Written before countersign starts, as a script's earlier output to the same file is.
  if (fd !== undefined) writeFileSync(fd, 'before countersign\n');
  const r = spawnSync(process.execPath, [LAUNCHER, 'start', p.file, '--allow-tool-modules', '--json', '--store', join(p.dir, 'store')], {
    stdio: ['ignore', 'pipe', fd ?? 'pipe'],
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (fd !== undefined) closeSync(fd);
  return { code: r.status, stdout: r.stdout, stderr: stderrFile === undefined ? r.stderr : readFileSync(stderrFile, 'utf8') };
}

function assertAllInOrder(stderr: string, said: string) {
  assert.not.match(stderr, '\0', `${said}: no hole of NUL bytes where a write landed past the end`);
  let from = 0;
  for (const line of LINES) {
    const at = stderr.indexOf(`${line}\n`, from);
    assert.ok(at >= 0, `${said}: ${line} is on stderr after the lines before it:\n${stderr}`);
    from = at + line.length;
  }
  assert.match(stderr, /▸ w: tool w/, `${said}: the progress line after the tool is kept`);
  assert.ok(stderr.indexOf('▸ w: tool w') > stderr.indexOf('I-console-error'), `${said}: progress comes after the tool's own lines`);
}

Into('stderr a file (2>err.txt): every line the module writes to /dev/stdout is kept, in order, and nothing before it is truncated or overwritten', () => {
  const p = project();
  const err = join(p.dir, 'err.txt');
  const r = start(p, err);
  assert.is(r.code, 0, r.stderr);
  assert.is(JSON.parse(r.stdout).status, 'completed', 'stdout is exactly one JSON document');
  assert.ok(r.stderr.startsWith('before countersign\n'), `what the file held before is kept:\n${r.stderr}`);
  assertAllInOrder(r.stderr, '2>err.txt');
});

Into('stderr a socket (which cannot be opened by path): the lines still reach stderr, never stdout', () => {
  const p = project();
  const r = start(p);
  assert.is(r.code, 0, r.stderr);
  assert.is(JSON.parse(r.stdout).status, 'completed', 'stdout is exactly one JSON document');
  assertAllInOrder(r.stderr, 'socket');
});

Into.run();
