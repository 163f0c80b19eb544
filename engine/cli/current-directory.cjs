// Whether the process's current directory still exists. A shell left
// inside a directory that was removed starts commands there: Node's
// process.cwd() then throws, and so does everything that resolves a path
// from it (esbuild and tsx among them, so the launcher could not even
// build). Shared by the launcher and main(), so both refuse in one wording.
// CommonJS, as the launcher's other helpers are.
'use strict';
const { existsSync } = require('node:fs');

/**
 * undefined while the current directory exists; else the refusal, as
 * { code, message, fix }. `env.PWD` names the directory when the shell's
 * record of it is gone too (a PWD that still exists is some other folder).
 */
function missingCurrentDirectory(env) {
  try {
    process.cwd();
    return undefined;
  } catch (e) {
    const pwd = typeof env.PWD === 'string' && env.PWD.startsWith('/') && !existsSync(env.PWD) ? env.PWD : undefined;
    const which = pwd ? `the current directory (${pwd})` : 'the current directory';
    const why = e && e.code === 'ENOENT' ? 'no longer exists: it was removed after the shell entered it' : `cannot be read (${e && e.message})`;
    return {
      code: 'E_USAGE',
      message: `${which} ${why}`,
      fix: 'cd to an existing directory and run the command again (relative paths, the store found from the current directory and the default workspace all start there)',
    };
  }
}

module.exports = { missingCurrentDirectory };
