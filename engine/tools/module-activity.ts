/**
 * Which tool-module code ended the process. A module's code may end the
 * whole process (process.exit, a throw from a timer); the CLI then has no
 * result to print, but it can still say which module did it, so the user
 * knows what to fix. Each load, argument check and call of a module's tool
 * runs in an async context of its own: process.exit() emits 'exit' in its
 * caller's context, and so does an uncaught throw, so a timer a module left
 * while loading is told as that module's, whatever runs when it fires.
 * Without a context (code that escaped it), the module code running now,
 * else the last that ran, is named as likely.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface ModuleActivity {
  /** The module file. */
  module: string;
  /** The workflow file whose `toolModules` names it, when the workflow came from a file. */
  workflow?: string;
  /** Its `/toolModules/<i>` entry. */
  pointer: string;
  /** What of it runs: its top-level code (`load`), a tool's argument check, or a tool's call. */
  phase: 'load' | 'args' | 'run';
  /** The tool, for `args` and `run`. */
  tool?: string;
}

/** How sure the answer is: `caller`, the code whose context ended the process (`running`: still within its load or call, else a timer or callback it left); `likely`, the code running then or that ran last. */
export type ModuleBlame =
  | { activity: ModuleActivity; how: 'caller'; running: boolean }
  | { activity: ModuleActivity; how: 'likely'; running: boolean };

const context = new AsyncLocalStorage<ModuleActivity>();
// Calls may overlap (a host running tools side by side): each is taken out by identity when it settles.
const running: ModuleActivity[] = [];
let last: ModuleActivity | undefined;

/** Read inside the 'exit' event: the module code that ended the process, as surely as can be said. */
export function moduleBlame(): ModuleBlame | undefined {
  const caller = context.getStore();
  if (caller) return { activity: caller, how: 'caller', running: running.includes(caller) };
  if (running.length > 0) return { activity: running[running.length - 1], how: 'likely', running: true };
  return last ? { activity: last, how: 'likely', running: false } : undefined;
}

/** Runs `work` (a module's import, a module tool's call or argument check) as `activity`, until it returns or its promise settles. */
export function asModuleActivity<T>(activity: ModuleActivity, work: () => T): T {
  const mine = { ...activity };
  running.push(mine);
  last = mine;
  const done = () => void running.splice(running.indexOf(mine), 1);
  let result: T;
  try {
    result = context.run(mine, work);
  } catch (e) {
    done();
    throw e;
  }
  if (result instanceof Promise) return result.finally(done) as T;
  done();
  return result;
}
