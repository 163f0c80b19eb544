/**
 * Running the GitHub CLI for the built-in tools. gh picks the repository
 * from the directory it runs in, so it runs in the run's workspace and is
 * never told `--repo` (H3–H6): a hard-coded repository is what sent five
 * comments to the wrong project (H5). For the same reason `GH_REPO` is taken
 * out of its environment, and so is every git variable that ties git to a
 * repository other than the one found from the working directory: gh asks
 * git for the remotes, and git obeys `GIT_DIR` and its kin (git itself sets
 * `GIT_DIR` when it runs a hook, so a run started from another checkout's
 * hook would otherwise post there).
 *
 * No shell (execFile), so a body or a number can never become a command.
 * Every failure is E_TOOL_FAILED and keeps gh's own message (H9–H11): there
 * is no retry and no other way tried.
 */
import type { ExecFileException } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { CountersignError } from '../errors.js';

/** What gh printed. */
export interface GhOutput {
  stdout: string;
  stderr: string;
}

export interface GhOptions {
  /** The tool on whose behalf gh runs; named in every error. */
  tool: string;
  /** The run's workspace: gh runs here and nowhere else. */
  workspace: string | undefined;
  /** Written to gh's standard input, which is then closed (it is always closed). */
  stdin?: string;
  signal?: AbortSignal;
  /** Default 120 s: gh talks to the network, and a tool node has no gate timeout around it. */
  timeoutMs?: number;
  /** The environment gh sees (default process.env); `GH_REPO` and the repository-locating git variables are always removed. */
  env?: NodeJS.ProcessEnv;
}

export const GH_TIMEOUT_MS = 120_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * The variables `git rev-parse --local-env-vars` lists (git 2.39): the ones
 * that bind git to one particular repository, which git itself clears before
 * working in another (a submodule). GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR
 * and the object and index paths name another repository's files; GIT_CONFIG,
 * GIT_CONFIG_PARAMETERS (set by `git -c`) and GIT_CONFIG_COUNT inject
 * configuration that outranks the workspace's own, e.g. `remote.origin.url`.
 * Removing the whole list, rather than the few that move the remotes today,
 * leaves the workspace alone to decide.
 *
 * Kept: the user's own settings (HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL,
 * GIT_CONFIG_SYSTEM: credentials, url.*.insteadOf), GIT_NAMESPACE (it scopes
 * refs, not remotes), and GIT_CEILING_DIRECTORIES and
 * GIT_DISCOVERY_ACROSS_FILESYSTEM, which can only stop git finding a
 * repository, a loud failure, never point it at another.
 */
export const GIT_REPOSITORY_ENV: readonly string[] = Object.freeze([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_IMPLICIT_WORK_TREE',
  'GIT_COMMON_DIR',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_GRAFT_FILE',
  'GIT_NO_REPLACE_OBJECTS',
  'GIT_REPLACE_REF_BASE',
  'GIT_SHALLOW_FILE',
  'GIT_PREFIX',
  'GIT_INTERNAL_SUPER_PREFIX',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
]);

/** GIT_CONFIG_COUNT's numbered pairs; removed with it so a stale pair can never be picked up. */
const GIT_CONFIG_PAIR = /^GIT_CONFIG_(KEY|VALUE)_\d+$/;

/** The environment gh runs with: the given one without anything that names the repository for it. */
export function ghEnvironment(given: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...given };
  for (const name of Object.keys(env)) {
    // Upper-cased because Windows reads variable names without regard to case.
    const upper = name.toUpperCase();
    if (upper === 'GH_REPO' || GIT_REPOSITORY_ENV.includes(upper) || GIT_CONFIG_PAIR.test(upper)) delete env[name];
  }
  return env;
}

// gh picks among a repository's remotes by name (upstream, then github, then
// origin, then the rest) unless `gh repo set-default` recorded a choice, so
// "origin is the PR's repository" is not enough when an upstream exists.
const GH_FIX = 'run the workflow with a workspace that is the top folder of a git repository whose only GitHub remote is the PR\'s repository (gh prefers a remote named upstream, then github, then origin, unless gh repo set-default chose one), with gh installed and logged in (gh auth status); nothing was retried or posted elsewhere';

/** Runs `gh <args>` in the workspace. Throws E_TOOL_FAILED when gh cannot start or exits non-zero. */
export function runGh(args: readonly string[], options: GhOptions): Promise<GhOutput> {
  const { tool } = options;
  const shown = `gh ${args.join(' ')}`;
  if (args.some((a) => a === '--repo' || a === '-R' || a.startsWith('--repo='))) {
    return Promise.reject(new CountersignError('E_TOOL_FAILED', `tool "${tool}": refusing to run "${shown}": countersign never names the repository; gh takes it from the workspace (H3–H6)`, {
      fix: 'drop --repo and run in a workspace whose GitHub remote (or gh repo set-default choice) is the repository',
    }));
  }
  let cwd: string;
  try {
    cwd = checkWorkspace(tool, options.workspace);
  } catch (e) {
    return Promise.reject(e);
  }
  // git may not look above the workspace for a repository: a plain folder
  // inside another checkout must fail, not post to that checkout (H11, H12).
  const parent = dirname(resolve(cwd));
  if (parent.includes(delimiter)) {
    // GIT_CEILING_DIRECTORIES is a list split at the delimiter: such a parent cannot be named there.
    return Promise.reject(new CountersignError('E_TOOL_FAILED', `tool "${tool}": the workspace's parent folder ${parent} holds "${delimiter}", so git could not be kept from looking above the workspace; nothing was run`, {
      fix: 'move the checkout to a path without that character, and run the workflow there',
    }));
  }
  const env = { ...ghEnvironment(options.env ?? process.env), GIT_CEILING_DIRECTORIES: parent };
  const timeoutMs = options.timeoutMs ?? GH_TIMEOUT_MS;
  return new Promise<GhOutput>((resolve, reject) => {
    // Required here, not imported: most commands never run gh, and loading child_process costs every one of them.
    const { execFile } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
    const child = execFile('gh', [...args], {
      cwd,
      env,
      encoding: 'utf8',
      maxBuffer: MAX_OUTPUT_BYTES,
      timeout: timeoutMs,
      windowsHide: true,
      ...(options.signal ? { signal: options.signal } : {}),
    }, (error, stdout, stderr) => {
      if (error) reject(ghFailure(tool, shown, cwd, timeoutMs, error, stderr));
      else resolve({ stdout, stderr });
    });
    // gh must never wait for input: it gets the comment, or nothing.
    child.stdin?.on('error', () => undefined); // gh may exit before reading; its exit status reports that
    child.stdin?.end(options.stdin ?? '');
  });
}

function checkWorkspace(tool: string, workspace: string | undefined): string {
  if (typeof workspace !== 'string' || workspace === '') {
    throw new CountersignError('E_TOOL_FAILED', `tool "${tool}" needs the run's workspace, and none was given: gh takes the repository from the directory it runs in`, {
      fix: 'start the run with a workspace (--workspace DIR, or the workspace option of the library API) that is the top folder of the PR\'s git repository',
    });
  }
  let isDir = false;
  try {
    isDir = statSync(workspace).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    throw new CountersignError('E_TOOL_FAILED', `tool "${tool}": the workspace ${workspace} is not an existing directory`, {
      fix: 'start the run with a workspace that exists and is the top folder of the PR\'s git repository',
    });
  }
  // git climbs from the folder's real location: the ceiling must be set
  // from it too, or a symlinked workspace would reach an enclosing checkout.
  return realpathSync(workspace);
}

/** A gh stopped mid-call (a timeout, a cancel): what it was doing may have happened, so look before calling again. */
const STOPPED_FIX = 'check on GitHub whether the comment or review was posted (gh pr view <number> --comments) before running the step again, so it is not posted twice; if gh hangs, check the network and gh auth status';

function ghFailure(tool: string, shown: string, cwd: string, timeoutMs: number, error: ExecFileException, stderr: string): CountersignError {
  const own = (stderr ?? '').trim();
  const errno = typeof error.code === 'string' ? error.code : undefined;
  let what: string;
  let fix = GH_FIX;
  if (errno === 'ENOENT') {
    what = 'gh could not be started: it is not installed or not on PATH';
    fix = 'install the GitHub CLI (https://cli.github.com) and log in with gh auth login; nothing was posted';
  } else if (error.name === 'AbortError') {
    what = 'the call was cancelled while gh ran; it may still have taken effect';
    fix = STOPPED_FIX;
  } else if (error.killed && error.signal) {
    what = `gh did not finish within ${timeoutMs / 1000} s and was stopped (${error.signal}); it may still have taken effect`;
    fix = STOPPED_FIX;
  } else if (errno !== undefined) {
    what = `gh could not be run (${errno}: ${error.message})`;
  } else {
    what = error.signal ? `gh was killed by ${error.signal}` : `gh exited with code ${String(error.code)}`;
  }
  let message = `tool "${tool}" failed: ${shown} in ${cwd}: ${what}${own ? `: ${own}` : ''}`;
  const top = errno === undefined && !error.killed ? enclosingWorkTree(cwd) : undefined;
  if (top !== undefined) {
    // git's "not a git repository (or any of the parent directories)" is what
    // the ceiling makes it say here, and the user may well know better.
    message += `; note: the workspace is a subfolder of the git work tree ${top}, and countersign runs gh only in a repository's top folder (git may not look above the workspace)`;
    fix = `if ${top} is the PR's repository, pass --workspace ${top} (the workspace option in the library); a folder inside a checkout never posts to that checkout; nothing was retried or posted elsewhere`;
  }
  return new CountersignError('E_TOOL_FAILED', message, {
    fix,
    cause: error,
    data: { tool, command: shown, cwd, exitCode: typeof error.code === 'number' ? error.code : null, stderr: own },
  });
}

/**
 * The nearest folder above `cwd` that holds a `.git` entry (a folder, or the
 * file of a worktree or submodule), when `cwd` holds none itself: the work
 * tree git would have found without the ceiling. Only looked for after gh
 * failed, and only by looking at names, never by running git.
 */
export function enclosingWorkTree(cwd: string): string | undefined {
  let dir = resolve(cwd);
  if (existsSync(join(dir, '.git'))) return undefined;
  for (let up = dirname(dir); up !== dir; dir = up, up = dirname(dir)) {
    if (existsSync(join(up, '.git'))) return up;
  }
  return undefined;
}
