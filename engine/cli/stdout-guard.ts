/**
 * stdout is countersign's own: exactly one JSON document under --json, MCP
 * frames under `mcp`. Code it loads and runs in-process (a workflow's tool
 * modules) may print anyway — `console.log` while debugging, a `git` it
 * starts with `stdio: 'inherit'`, a raw `fs.writeSync(1, …)` — so all of
 * that is sent to stderr, and only the stream returned here writes to
 * stdout itself. The fs side of it (descriptor 1, /dev/stdout opened by
 * path) is in stdout-fs.ts.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { guardStdoutWrites, isStandIn } from './stdout-fs.js';
import { noteStdoutFailure } from './stdout-failure.js';

/** Set while countersign itself writes to stdout (a file's stream writes through fs.writeSync). */
let ours = false;

export function ownStdout(relayed?: NodeJS.WritableStream): NodeJS.WritableStream {
  const stream = relayed ?? process.stdout;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  // Kept when relayed too: in order with stderr's own lines, not copied over later by the launcher.
  process.stdout.write = ((...args: unknown[]) => (process.stderr.write as (...a: unknown[]) => boolean)(...args)) as typeof process.stdout.write;
  guardStdoutWrites(() => ours);
  guardChildren(relayed !== undefined);
  // Named imports of node:fs and node:child_process in loaded modules see the guarded functions too.
  syncBuiltinESMExports();
  const ownWrite = (...args: unknown[]): boolean => {
    ours = true;
    try {
      return write(...args);
    } catch (e) {
      // A file on a full disk throws here: noted, and said once the command ends (main.ts), never a crash mid-result.
      noteStdoutFailure(e);
      return false;
    } finally {
      ours = false;
    }
  };
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return ownWrite;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * A child told to share countersign's stdout shares its stderr instead. So
 * does one handed a descriptor the module opened on a stdout path (a
 * stand-in): given 2 itself, it writes at stderr's own offset, so with stderr
 * a file its lines are neither lost nor overwritten by stderr's next line.
 */
function stdioToStderr(stdio: unknown, fallback: unknown, relayed: boolean): unknown {
  const given = stdio ?? fallback;
  // Relayed, descriptor 1 is a pipe to stderr already: a child sharing it cannot truncate stderr by reopening /dev/stdout. A stand-in becomes 1.
  if (relayed) return Array.isArray(given) && given.some((entry, at) => at > 0 && isStandIn(entry)) ? given.map((entry, at) => (at > 0 && isStandIn(entry) ? 1 : entry)) : stdio;
  if (given === 'inherit') return ['inherit', 2, 'inherit'];
  if (!Array.isArray(given)) return stdio;
  const toStderr = (entry: unknown, at: number) => (at === 1 && (entry === 'inherit' || entry === 1 || entry === process.stdout)) || (at > 0 && isStandIn(entry));
  if (!given.some(toStderr)) return stdio;
  return given.map((entry, at) => (toStderr(entry, at) ? 2 : entry));
}

type AnyFn = (...args: unknown[]) => unknown;

/** Wraps a child_process function whose options sit at the first object argument after the command. */
function wrapOptions(name: 'spawn' | 'spawnSync' | 'execSync' | 'execFileSync' | 'fork', relayed: boolean, fallback?: (options: Record<string, unknown>) => unknown): void {
  const original = childProcess[name] as unknown as AnyFn;
  (childProcess as unknown as Record<string, AnyFn>)[name] = (...args: unknown[]) => {
    const at = args.findIndex((a, i) => i > 0 && a !== null && typeof a === 'object' && !Array.isArray(a));
    const options = (at >= 0 ? args[at] : {}) as Record<string, unknown>;
    const stdio = stdioToStderr(options.stdio, fallback?.(options), relayed);
    if (stdio === options.stdio) return original(...args);
    const next = [...args];
    if (at >= 0) next[at] = { ...options, stdio };
    else next.splice(Array.isArray(args[1]) ? 2 : 1, 0, { stdio });
    return original(...next);
  };
}

function guardChildren(relayed: boolean): void {
  wrapOptions('spawn', relayed);
  wrapOptions('spawnSync', relayed);
  wrapOptions('execSync', relayed);
  wrapOptions('execFileSync', relayed);
  // fork shares stdout unless told to be silent.
  wrapOptions('fork', relayed, (options) => (options.silent ? undefined : [0, 'inherit', 'inherit', 'ipc']));
}
