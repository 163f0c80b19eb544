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
// Signals: the child runs in a process group of its own, so every signal
// reaches it once, passed on by this launcher as the very signal (its
// default action, or the command's own handling, applies as without the
// launcher). A command that says it handles signals itself (start, step…:
// interrupted.ts) but does not take one within HELD_MS — a tool module's
// code holds its event loop — is ended (SIGKILL), and this launcher says
// for it what it would have said, then ends by the signal. Ended by a
// signal, the command's process group goes with it (what its tools started
// there), by the same signal. At a terminal (standard input a TTY) it stays in the
// terminal's group instead — an interactive agent reads the terminal, which
// a background group may not — so Ctrl-C and a closed terminal (SIGINT,
// SIGHUP) reach it directly, and only SIGTERM is passed on.
// CommonJS, as the launcher's other helpers are.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { closeSync, constants, mkdtempSync, openSync, rmSync } = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { isatty } = require('node:tty');

/** The environment variable that tells the child where its stdout is (and that its signals are relayed). */
const STDOUT_FD_VAR = 'COUNTERSIGN_STDOUT_FD';
/** The descriptor the child finds the real stdout on. */
const RELAYED_FD = 3;
/** When the launcher started (ms since the epoch): the command's launch, not the relayed child's. */
const LAUNCHED_AT_VAR = 'COUNTERSIGN_LAUNCHED_AT';
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** How long, after the child exits, output still in the pipe is read: a background process it left may hold the pipe for ever. */
const DRAIN_MS = 200;
/** How long a command that said it takes signals itself may go without taking one passed on before it is ended (interrupted.ts HELD_MS). */
const HELD_MS = 1_000;

/** Whether this command should run relayed: it may load tool modules, and is not the relayed child itself. */
function relayWanted(argv, env) {
  return argv.includes('--allow-tool-modules') && !env[STDOUT_FD_VAR];
}

/**
 * Runs `launcher argv` as a child with descriptor 1 copied to stderr and
 * stdout on descriptor 3, and ends as the child ended: its exit status, or
 * the signal that killed it. Resolves once that is settled (the exit status
 * in process.exitCode); a child that cannot be started is an error (exit 2),
 * never the command run in-process, where nothing would keep descriptor 1
 * from stdout.
 */
function runRelayed(launcher, argv) {
  const pipe = fifo();
  if (pipe.why) {
    // Still relayed, through a socket: nothing a module does reaches stdout, but a reopen of /dev/stdout fails. Said, with the fix.
    process.stderr.write(`countersign: warning: cannot make a named pipe for the tool modules' descriptor 1 (${pipe.why}); their output still goes to stderr, but a child of a module that reopens /dev/stdout (\`> /dev/stdout\`) will fail. Fix: point TMPDIR at a folder this user may write, with mkfifo installed.\n`);
  }
  const atTerminal = isatty(0);
  let child;
  try {
    child = spawn(process.execPath, [...process.execArgv, launcher, ...argv], {
      detached: !atTerminal,
      stdio: ['inherit', pipe.why ? 'pipe' : pipe.write, 'inherit', 1, 'ipc'],
      // The launch is the launcher's: `step` dates an answer on its command line by it.
      env: { ...process.env, [STDOUT_FD_VAR]: String(RELAYED_FD), [LAUNCHED_AT_VAR]: String(Math.floor(performance.timeOrigin)) },
    });
  } catch (e) {
    if (!pipe.why) {
      closeSync(pipe.write);
      closeSync(pipe.read);
    }
    return cannotRelay(e);
  }
  let output = child.stdout;
  if (!pipe.why) {
    // The child has its own copy; the launcher's would keep the pipe from ever ending.
    closeSync(pipe.write);
    output = new net.Socket({ fd: pipe.read, readable: true, writable: false });
  }
  process.stderr.on('error', () => undefined); // a reader of stderr that went away: the command still runs to its end
  output.on('data', (chunk) => process.stderr.write(chunk));
  output.on('error', () => undefined);
  // While the command handles signals itself (it said so over IPC: interrupted.ts), what the launcher says for
  // it if a tool module's code holds it so it cannot; cleared once it took the signal or finished.
  let guarded;
  let held;
  let forced;
  // The command and what it started in its process group (its own, off a terminal); at a terminal, the command alone.
  const endGroup = (signal) => {
    try {
      if (atTerminal) child.kill(signal);
      else process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  child.on('message', (note) => {
    if (!note || typeof note !== 'object') return;
    if (note.countersign === 'signals-guarded') guarded = note;
    else if (note.countersign === 'signal-taken' || note.countersign === 'signals-released') {
      guarded = undefined;
      clearTimeout(held);
    }
  });
  const relay = (signal) => {
    // A command that took no signal for HELD_MS is held by a module's code: ended, and said for it.
    if (guarded && held === undefined) {
      held = setTimeout(() => {
        if (!guarded || child.exitCode !== null || child.signalCode !== null) return;
        forced = { signal, note: guarded };
        endGroup('SIGKILL');
      }, HELD_MS);
    }
    // At a terminal the child shares its group: Ctrl-C and SIGHUP reached it already.
    if (atTerminal && signal !== 'SIGTERM') return;
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  };
  for (const signal of SIGNALS) process.on(signal, relay);
  return new Promise((resolve) => {
    child.once('error', (e) => {
      // Could not start after all (spawn reports that as an event).
      for (const signal of SIGNALS) process.off(signal, relay);
      output.destroy();
      resolve(cannotRelay(e));
    });
    child.once('exit', (code, signal) => {
      const end = () => {
        for (const s of SIGNALS) process.off(s, relay);
        output.destroy();
        clearTimeout(held);
        if (forced && signal === 'SIGKILL') {
          sayHeld(forced.signal, forced.note);
          process.kill(process.pid, forced.signal);
          return;
        }
        if (signal) {
          // What its tools started in its group (a shell, a sleep) ends with it, by the same signal, never left running unseen.
          endGroup(signal);
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
 * The command was ended for a signal a tool module's code kept it from
 * taking: said as it would have said it (its --json document on stdout,
 * the countersign: line on stderr), in the words it gave (interrupted.ts).
 */
function sayHeld(signal, note) {
  const message = String(note.message).replaceAll('%SIGNAL%', signal);
  const error = { code: 'E_INTERRUPTED', message, fix: note.fix };
  try {
    if (note.json) require('node:fs').writeSync(1, `${JSON.stringify({ error }, null, 2)}\n`);
  } catch {
    // stdout closed: the line on stderr says it
  }
  try {
    process.stderr.write(`countersign: E_INTERRUPTED: ${message}\n  fix: ${note.fix}\n`);
  } catch {
    // stderr closed too: the signal still says it
  }
}

/**
 * A pipe, as { read, write } descriptors, for the child's descriptor 1.
 * A named one: Node's own 'pipe' is a socket, which /dev/stdout cannot be
 * opened on (ENXIO), and a tool's `sh -c 'echo … > /dev/stdout'` would
 * fail. Made by mkfifo in a private folder (under TMPDIR, else /tmp),
 * removed once both ends are open. { why } when none can be made.
 */
function fifo() {
  let why = 'no folder to make it in';
  for (const base of [...new Set([tmpdir(), '/tmp'])]) {
    let dir;
    try {
      dir = mkdtempSync(join(base, 'countersign-relay-'));
    } catch (e) {
      why = `cannot make a folder in ${base}: ${e && e.code ? e.code : e}`;
      continue;
    }
    try {
      const path = join(dir, 'stdout');
      // mkfifo from PATH, else where systems keep it (a PATH without it must not cost the relay).
      const made = ['mkfifo', '/usr/bin/mkfifo', '/bin/mkfifo'].some((command) => spawnSync(command, ['-m', '600', path], { stdio: 'ignore' }).status === 0);
      if (!made) {
        why = 'mkfifo is not installed (or failed)';
        continue;
      }
      // The read end first, not waiting for a writer; then the write end opens at once.
      const read = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
      return { read, write: openSync(path, constants.O_WRONLY) };
    } catch (e) {
      why = `cannot open a named pipe in ${base}: ${e && e.code ? e.code : e}`;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { why };
}

/**
 * The child could not be started at all (out of processes or memory): the
 * command is not run in-process, where a module's descriptor-1 writes
 * would land in stdout. E_TOOL_MODULE, exit 2, said as the launcher says what stops it.
 */
function cannotRelay(e) {
  const message = `the tool modules could not be loaded: the process they run in (the command's own, under --allow-tool-modules) cannot start (${e && e.message ? e.message : e}); without it they would write into stdout`;
  if (process.argv.includes('--json')) {
    try {
      require('node:fs').writeSync(1, `${JSON.stringify({ error: { code: 'E_TOOL_MODULE', message, fix: 'run the command again once the machine has processes and memory to spare' } }, null, 2)}\n`);
    } catch {
      // stdout closed: the line on stderr says it
    }
  }
  process.stderr.write(`countersign: E_TOOL_MODULE: ${message}\n  fix: run the command again once the machine has processes and memory to spare\n`);
  process.exitCode = 2;
  return true;
}

module.exports = { relayWanted, runRelayed, STDOUT_FD_VAR };
