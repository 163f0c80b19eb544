/**
 * The stand-in gh (examples/pr-review/bin/gh) first on PATH, a fresh call log
 * per test, and git repositories with a remote to post from.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { ROOT } from '../helpers/cli.js';

export const STANDIN_BIN = join(ROOT, 'examples/pr-review/bin');

export interface GhCall {
  argv: string[];
  cwd: string;
  stdin: string | null;
  repo: string | null;
  pr?: number;
  comment?: string;
  exit: number;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `countersign-${prefix}-`));
}

/** A git repository whose origin is `url`; gh (and the stand-in) read the repository from it. */
export function gitRepo(url: string): string {
  const dir = tempDir('repo');
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['remote', 'add', 'origin', url], { cwd: dir });
  return dir;
}

/** A directory that is not inside any git repository. */
export function plainDir(): string {
  const dir = tempDir('plain');
  // Guard: the scratch folder must not sit inside a repository, or "non-git" would be a lie.
  try {
    execFileSync('git', ['rev-parse', '--git-dir'], { cwd: dir, stdio: 'ignore' });
    throw new Error(`${dir} is inside a git repository; the non-git tests need a directory outside one`);
  } catch (e) {
    if ((e as Error).message.includes('inside a git repository')) throw e;
  }
  return dir;
}

/** Puts the stand-in first on PATH and points its log at a fresh file; returns undo. */
export function useStandIn(): { log: string; calls: () => GhCall[]; restore: () => void } {
  const saved = { PATH: process.env.PATH, GH_STANDIN_LOG: process.env.GH_STANDIN_LOG, GH_REPO: process.env.GH_REPO };
  const log = join(tempDir('ghlog'), 'gh.jsonl');
  process.env.PATH = `${STANDIN_BIN}${delimiter}${saved.PATH ?? ''}`;
  process.env.GH_STANDIN_LOG = log;
  delete process.env.GH_REPO;
  return {
    log,
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as GhCall) : []),
    restore: () => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    },
  };
}

/** A folder holding one executable `gh` with the given shell body, for failure shapes the stand-in has no reason to show. */
export function fakeGhDir(script: string): string {
  const dir = tempDir('fakegh');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gh'), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, 'gh'), 0o755);
  return dir;
}
