/**
 * Runs a shell command on a real pseudo-terminal, as a person at a terminal
 * would: the kernel's line discipline (its line limit, echo, Ctrl-C) is the
 * real one, which a PassThrough standing in for a TTY cannot show. Python's
 * `pty` module drives it (python3 is on every machine the suite runs on).
 */
import { spawn } from 'node:child_process';

/** Sent once the output since the previous step's match contains `waitFor`. */
export interface PtyStep {
  waitFor: string;
  send: string;
}

export interface PtyResult {
  /** Everything the terminal showed, with its `\r\n` line ends as `\n`. */
  output: string;
  /** The command's exit status (128 + the signal when one ended it); null when it had to be killed. */
  code: number | null;
}

// Writes and reads interleaved: a long paste fills the terminal's input
// while the program's echo fills its output, and neither may block the other.
const DRIVER = String.raw`
import json, os, pty, select, sys, time
cmd, steps, timeout = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execvp('sh', ['sh', '-c', cmd])
deadline = time.time() + timeout
out = b''
seen = 0
pending = b''
step = 0
status = None
def shown():
    return out.replace(b'\r\n', b'\n').decode('utf-8', 'replace')
while time.time() < deadline:
    if not pending and step < len(steps):
        text = shown()
        at = text.find(steps[step]['waitFor'], seen)
        if at != -1:
            seen = at + len(steps[step]['waitFor'])
            pending = steps[step]['send'].encode('utf-8')
            step += 1
    r, w, _ = select.select([fd], [fd] if pending else [], [], 0.05)
    if r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b''
        if not data:
            break
        out += data
    if w and pending:
        n = os.write(fd, pending[:4096])
        pending = pending[n:]
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
        break
if status is None:
    try:
        while True:
            r, _, _ = select.select([fd], [], [], 0.2)
            if not r:
                break
            data = os.read(fd, 65536)
            if not data:
                break
            out += data
    except OSError:
        pass
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
code = None if status is None else os.waitstatus_to_exitcode(status)
if code is not None and code < 0:
    code = 128 - code
sys.stdout.write(json.dumps({'output': shown(), 'code': code, 'step': step}))
`;

/** Runs `command` through `sh -c` on a pty in `cwd`, sending each step's text once its cue has shown. */
export function runInPty(command: string, steps: PtyStep[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<PtyResult & { stepsSent: number }> {
  const timeout = (opts.timeoutMs ?? 60_000) / 1000;
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', DRIVER, JSON.stringify([command, steps, timeout])], { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', () => {
      try {
        const r = JSON.parse(out) as { output: string; code: number | null; step: number };
        resolve({ output: r.output, code: r.code, stepsSent: r.step });
      } catch {
        reject(new Error(`the pty driver failed: ${err || out}`));
      }
    });
  });
}
