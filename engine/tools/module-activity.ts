/**
 * Which tool-module code is running now, and which ran last. A module's
 * code may end the whole process (process.exit, a throw from a timer);
 * the CLI then has no result to print, but it can still say which module
 * did it — the one loading or running, or else the last one that ran (a
 * timer it left) — so the user knows what to fix.
 */

export interface ModuleActivity {
  /** The module file. */
  module: string;
  /** The workflow file whose `toolModules` names it, when the workflow came from a file. */
  workflow?: string;
  /** Its `/toolModules/<i>` entry. */
  pointer: string;
  /** The tool being run; absent while the module is loaded. */
  tool?: string;
}

// Calls may overlap (a host running tools side by side): each is taken out by identity when it settles.
const running: ModuleActivity[] = [];
let last: ModuleActivity | undefined;

/** The module code running now (`now`: the latest begun of those still running), else the last that ran. */
export function moduleActivity(): { activity: ModuleActivity; now: boolean } | undefined {
  if (running.length > 0) return { activity: running[running.length - 1], now: true };
  return last ? { activity: last, now: false } : undefined;
}

/** Runs `work` (a module's import, a module tool's call or argument check) as `activity`, until it returns or its promise settles. */
export function asModuleActivity<T>(activity: ModuleActivity, work: () => T): T {
  const mine = { ...activity };
  running.push(mine);
  last = mine;
  const done = () => void running.splice(running.indexOf(mine), 1);
  let result: T;
  try {
    result = work();
  } catch (e) {
    done();
    throw e;
  }
  if (result instanceof Promise) return result.finally(done) as T;
  done();
  return result;
}
