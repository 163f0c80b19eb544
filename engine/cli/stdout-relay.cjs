// With --allow-tool-modules, a workflow's own code runs inside countersign,
// and anything it can do with descriptor 1 would land in stdout, which
// holds exactly one JSON document under --json (MCP frames under `mcp`):
// a socket opened on it, a worker thread's write, a child handed it in any
// stdio slot, a shell in that child reopening /dev/stdout with `>`. No
// in-process guard can see all of that, so the command runs in a child
// process of this launcher whose descriptor 1 is a pipe this launcher
// copies to stderr, and whose own output (the document, MCP frames) goes
// to descriptor 3: the real stdout, passed on. A pipe cannot be truncated
// by a reopen, so nothing already on stderr is ever lost.
//
// The child stays in the terminal's process group (an interactive agent
// reads the terminal), so Ctrl-C reaches it directly; a signal sent to this
// launcher alone (`kill`, a host stopping it) is passed on over an IPC
// channel, and relayed-signals.ts counts the two deliveries as one.
// CommonJS, as the launcher's other helpers are.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { closeSync, constants, mkdtempSync, openSync, rmSync } = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

/** The environment variable that tells the child where its stdout is (and that its signals are relayed). */
const STDOUT_FD_VAR = 'COUNTERSIGN_STDOUT_FD';
/** The descriptor the child finds the real stdout on. */
const RELAYED_FD = 3;
/** When the launcher started (ms since the epoch): the command's launch, not the relayed child's. */
const LAUNCHED_AT_VAR = 'COUNTERSIGN_LAUNCHED_AT';
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** How long, after the child exits, output still in the pipe is read: a background process it left may hold the pipe for ever. */
const DRAIN_MS = 200;

/** Whether this command should run relayed: it may load tool modules, and is not the relayed child itself. */
function relayWanted(argv, env) {
  return argv.includes('--allow-tool-modules') && !env[STDOUT_FD_VAR];
}

/**
 * Runs `launcher argv` as a child with descriptor 1 copied to stderr and
 * stdout on descriptor 3, and ends as the child ended: its exit status, or
 * the signal that killed it. Resolves once that is settled (the exit status
 * in process.exitCode); undefined when the child cannot be started, and the
 * caller runs the command in-process instead.
 */
function runRelayed(launcher, argv) {
  const pipe = fifo();
  if (!pipe) return undefined;
  let child;
  try {
    child = spawn(process.execPath, [...process.execArgv, launcher, ...argv], {
      stdio: ['inherit', pipe.write, 'inherit', 1, 'ipc'],
      // The launch is the launcher's: `step` dates an answer on its command line by it.
      env: { ...process.env, [STDOUT_FD_VAR]: String(RELAYED_FD), [LAUNCHED_AT_VAR]: String(Math.floor(performance.timeOrigin)) },
    });
  } catch {
    closeSync(pipe.write);
    closeSync(pipe.read);
    return undefined;
  }
  // The child has its own copy; the launcher's would keep the pipe from ever ending.
  closeSync(pipe.write);
  const output = new net.Socket({ fd: pipe.read, readable: true, writable: false });
  process.stderr.on('error', () => undefined); // a reader of stderr that went away: the command still runs to its end
  output.on('data', (chunk) => process.stderr.write(chunk));
  output.on('error', () => undefined);
  const relay = (signal) => {
    try {
      if (child.connected) child.send({ countersignSignal: signal });
      else child.kill(signal);
    } catch {
      // already gone
    }
  };
  for (const signal of SIGNALS) process.on(signal, relay);
  return new Promise((resolve) => {
    child.once('error', () => {
      // Could not start after all (spawn reports that as an event).
      for (const signal of SIGNALS) process.off(signal, relay);
      resolve(undefined);
    });
    child.once('exit', (code, signal) => {
      const end = () => {
        for (const s of SIGNALS) process.off(s, relay);
        output.destroy();
        if (signal) {
          // Ended by a signal: so is this launcher, so whoever started it sees the same.
          process.kill(process.pid, signal);
          return;
        }
        process.exitCode = code ?? 1;
        resolve(true);
      };
      if (output.readableEnded) return end();
      const timer = setTimeout(end, DRAIN_MS);
      output.once('end', () => {
        clearTimeout(timer);
        end();
      });
    });
  });
}

/**
 * A pipe, as { read, write } descriptors, for the child's descriptor 1.
 * A named one: Node's own 'pipe' is a socket, which /dev/stdout cannot be
 * opened on (ENXIO), and a tool's `sh -c 'echo … > /dev/stdout'` would
 * fail. Made by mkfifo in a private folder, removed once both ends are
 * open. undefined when it cannot be made.
 */
function fifo() {
  let dir;
  try {
    dir = mkdtempSync(join(tmpdir(), 'countersign-relay-'));
    const path = join(dir, 'stdout');
    if (spawnSync('mkfifo', ['-m', '600', path], { stdio: 'ignore' }).status !== 0) return undefined;
    // The read end first, not waiting for a writer; then the write end opens at once.
    const read = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    return { read, write: openSync(path, constants.O_WRONLY) };
  } catch {
    return undefined;
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { relayWanted, runRelayed, STDOUT_FD_VAR };
