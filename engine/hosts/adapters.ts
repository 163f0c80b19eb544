/**
 * Turns the `--agent` value of `countersign run` into an Agent:
 * `scripted:<file>`, `jsonl:<command>`, `exec:<command>` or `interactive`.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDirectory } from '../format/make-dirs.js';
import { CountersignError } from '../errors.js';
import type { Agent } from './agent.js';
import { checkOptionKeys, keysOf } from '../run/option-keys.js';
import { shown } from '../format/said.js';
import { createExecAgent } from './exec.js';
import { createInteractiveAgent } from './interactive.js';
import { createJsonlAgent } from './jsonl.js';
import { checkAnswered, checkScriptNodes, createScriptedAgent, loadScript } from './scripted.js';

const ADAPTER_FIX = 'use scripted:<file>, jsonl:<command>, exec:<command> or interactive';

/** createAgent()'s options. */
export interface CreateAgentOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  flag?: string;
  /** For a resumed run: answers already taken per node, so a script continues where it stopped (see answersTaken). */
  answered?: Readonly<Record<string, number>>;
  /** Where jsonl and exec agents' stderr is written (default: this process's stderr). */
  stderr?: NodeJS.WritableStream;
  /** The workflow's node ids: a script naming any other is refused (E_INPUT) before the run starts. */
  nodeIds?: readonly string[];
}

export const CREATE_AGENT_OPTION_KEYS = keysOf<CreateAgentOptions>({ cwd: true, env: true, flag: true, answered: true, stderr: true, nodeIds: true });

export function createAgent(spec: string, opts: CreateAgentOptions): Agent {
  // A stderr that is no stream would throw inside an agent's output handler, where nothing can catch it.
  if (opts?.stderr !== undefined && (opts.stderr === null || typeof (opts.stderr as { write?: unknown }).write !== 'function')) {
    throw new CountersignError('E_INPUT', 'createAgent\'s stderr must be a writable stream (an object with write())', { fix: 'pass stderr: process.stderr, or leave it out' });
  }
  if (typeof spec !== 'string' || opts === null || typeof opts !== 'object' || typeof opts.cwd !== 'string') {
    throw new CountersignError('E_INPUT', 'createAgent needs an adapter spec (a string) and { cwd } (the directory agents run in)', {
      fix: 'call createAgent("jsonl:<command>", { cwd: process.cwd() })',
    });
  }
  checkOptionKeys(opts, CREATE_AGENT_OPTION_KEYS, 'createAgent');
  checkAgentOptions(opts);
  checkAgentCwd(opts.cwd);
  const flag = opts.flag ?? '--agent';
  if (spec.trim() === 'interactive') return createInteractiveAgent();
  const colon = spec.indexOf(':');
  const kind = colon === -1 ? spec.trim() : spec.slice(0, colon).trim();
  const arg = colon === -1 ? '' : spec.slice(colon + 1).trim();
  const known = kind === 'scripted' || kind === 'jsonl' || kind === 'exec';
  // The adapter is known; what follows its colon is the mistake.
  if (kind === 'interactive') {
    throw new CountersignError('E_ADAPTER', `${flag} ${JSON.stringify(spec)}: interactive takes nothing after it (a person answers at the terminal)`, {
      fix: `write ${flag} interactive, with no colon`,
    });
  }
  if (!known) {
    throw new CountersignError('E_ADAPTER', `${flag} ${JSON.stringify(spec)} names no known adapter`, { fix: ADAPTER_FIX });
  }
  if (arg === '') {
    const what = kind === 'scripted' ? 'a script file' : 'a command';
    throw new CountersignError('E_ADAPTER', `${flag} ${kind}: needs ${what} after the colon`, {
      fix: kind === 'scripted' ? 'use scripted:<file>, e.g. scripted:examples/scripts/answers.yaml' : `use ${kind}:<command>, e.g. ${kind}:"node agent.mjs"`,
    });
  }
  const env = opts.env ?? process.env;
  switch (kind) {
    case 'scripted': {
      const file = resolve(opts.cwd, arg);
      const script = loadScript(file, flag, arg);
      if (opts.nodeIds !== undefined) checkScriptNodes(script, opts.nodeIds, arg);
      return createScriptedAgent(script, { file: arg, ...(opts.answered !== undefined ? { answered: opts.answered } : {}) });
    }
    case 'jsonl':
      return createJsonlAgent(arg, { cwd: opts.cwd, env, ...(opts.stderr ? { stderr: opts.stderr } : {}) });
    case 'exec':
      return createExecAgent(arg, { cwd: opts.cwd, env, ...(opts.stderr ? { stderr: opts.stderr } : {}) });
  }
}

/**
 * createAgent()'s options, each of its type: `null` is a wrong value, never
 * the option left out (a null env would hand the agent this process's whole
 * environment, a null answered replay the script from its start, a null
 * nodeIds let a misspelt script key through).
 */
function checkAgentOptions(opts: CreateAgentOptions): void {
  const wrong = (name: string, what: string, fix: string) =>
    new CountersignError('E_INPUT', `createAgent's ${name} must be ${what}, got ${shown((opts as unknown as Record<string, unknown>)[name])}`, { fix });
  const env: unknown = opts.env;
  if (env !== undefined && (env === null || typeof env !== 'object' || Array.isArray(env) || !Object.values(env).every((v) => v === undefined || typeof v === 'string'))) {
    throw wrong('env', 'an object of environment variables (string values)', 'pass env: { ...process.env, NAME: "value" }, or leave it out: the agent then inherits this process\'s environment');
  }
  const flag: unknown = opts.flag;
  if (flag !== undefined && (typeof flag !== 'string' || flag.trim() === '')) throw wrong('flag', 'the flag that named the adapter (a non-empty string)', 'pass flag: "--reviewer" (it names the adapter in messages), or leave it out for --agent');
  const nodeIds: unknown = opts.nodeIds;
  if (nodeIds !== undefined && (!Array.isArray(nodeIds) || !nodeIds.every((id) => typeof id === 'string'))) {
    throw wrong('nodeIds', 'a list of the workflow\'s node ids (strings)', 'pass nodeIds: (await engine.info(runId)).answeredNodeIds, so a script naming another node is refused before the run starts, or leave it out');
  }
  checkAnswered(opts.answered, 'createAgent');
}

/**
 * The directory agents run in (and scripts are found from) must be there:
 * an empty one would silently be this process's current directory, and a
 * missing one would fail only at the first request, blamed on `sh`.
 */
function checkAgentCwd(cwd: string): void {
  if (cwd.trim() === '') {
    throw new CountersignError('E_INPUT', `createAgent's cwd must be an existing directory (where agents run and scripts are found), got ${JSON.stringify(cwd)}: an empty one is never taken for the current directory`, {
      fix: 'pass cwd: process.cwd() (or the run\'s workspace) explicitly',
    });
  }
  const dir = resolve(cwd);
  if (!isDirectory(dir)) {
    throw new CountersignError('E_INPUT', `createAgent's cwd must be an existing directory (where agents run and scripts are found): ${dir} ${existsSync(dir) ? 'is not a directory' : 'does not exist'}`, {
      file: dir,
      fix: `${existsSync(dir) ? `${dir} is a file: pass a directory as cwd instead (or move the file aside and create the directory)` : `create ${dir} first, or pass an existing directory as cwd`}${dir === cwd ? '' : ` (relative paths resolve against ${process.cwd()})`}`,
    });
  }
}

/**
 * How `run` names the adapter given with `flag` in its messages, and what to
 * check when it stays silent: each kind answers differently, so one hint
 * for all would send the user after the wrong thing.
 */
export function adapterLabel(spec: string, flag: string): { name: string; silence: string } {
  const role = flag === '--reviewer' ? 'the reviewer' : 'the agent';
  const kind = spec.trim() === 'interactive' ? 'interactive' : spec.slice(0, Math.max(0, spec.indexOf(':'))).trim();
  const silence =
    kind === 'jsonl' ? 'check that the command writes one JSON line to stdout for each request line it reads'
    : kind === 'exec' ? 'check that the command prints its answer to stdout and exits'
    : kind === 'interactive' ? 'type the answer (a JSON object) at the prompt sooner'
    : `check that ${role} answers each request it is given`;
  return { name: `${role} (${flag} ${spec.trim()})`, silence };
}
