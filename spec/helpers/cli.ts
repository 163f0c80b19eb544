/** Runs the CLI in process with captured streams and a private store. */
import { closeSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../engine/cli/main.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const LAUNCHER = join(ROOT, 'engine/cli/countersign.mjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

export function tempDir(prefix = 'countersign-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

let ownCache: string | undefined;
/** A validator cache folder for suites run without spec/run.ts (which sets COUNTERSIGN_CACHE). */
function helperCache(): string {
  return (ownCache ??= tempDir('countersign-validator-cache-'));
}

export async function cli(args: string[], opts: { store?: string; cwd?: string; stdin?: string | Buffer; env?: NodeJS.ProcessEnv; now?: () => Date; startedAt?: Date } = {}): Promise<CliResult> {
  // Each call is a command launched now, as a process of its own would be (or at the clock given).
  const startedAt = opts.startedAt ?? (opts.now ? opts.now() : new Date());
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (c) => out.push(c));
  stderr.on('data', (c) => err.push(c));
  const stdin = new PassThrough();
  stdin.end(opts.stdin ?? '');
  // The validator cache spec/run.ts chose, else one of this helper's own, unless a test names its own: never the user's ~/.cache.
  const cache = { COUNTERSIGN_CACHE: process.env.COUNTERSIGN_CACHE || helperCache() };
  const home = process.env.HOME !== undefined ? { HOME: process.env.HOME } : {};
  const env = { ...home, ...cache, ...(opts.env ?? {}), ...(opts.store ? { COUNTERSIGN_STORE: opts.store } : {}) };
  const code = await main(args, { stdout, stderr, stdin, cwd: opts.cwd ?? ROOT, env, isTTY: false, startedAt, ...(opts.now ? { now: opts.now } : {}) });
  const text = Buffer.concat(out).toString('utf8');
  let json: unknown;
  if (args.includes('--json')) json = JSON.parse(text); // throws unless stdout is exactly one JSON document
  return { code, stdout: text, stderr: Buffer.concat(err).toString('utf8'), json };
}

/** The real launcher in a child process, as a user runs it. */
export function spawnCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; stdoutFile?: string } = {}) {
  // stdout into a file, as `> out.json` does (Node writes a file's stdout through fs, not a pipe).
  const fd = opts.stdoutFile === undefined ? undefined : openSync(opts.stdoutFile, 'w');
  const r = spawnSync(process.execPath, [LAUNCHER, ...args], {
    ...(fd === undefined ? {} : { stdio: ['pipe', fd, 'pipe'] }),
    cwd: opts.cwd ?? ROOT,
    // As cli(): never the user's ~/.cache, unless a test names a cache of its own.
    env: { ...process.env, COUNTERSIGN_CACHE: process.env.COUNTERSIGN_CACHE || helperCache(), ...(opts.env ?? {}) },
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (fd !== undefined) closeSync(fd);
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr };
}
