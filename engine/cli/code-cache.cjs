// Runs the CLI bundle (one CommonJS file) with a V8 code cache beside it,
// so a command starts from compiled code instead of parsing and compiling
// the bundle again: most of a short command's own time is spent there.
//
// One cache per command, since each is written after its command ran and
// so holds the functions that command compiled. A cache is only a speed-up:
// one that is missing, unreadable, damaged, made by another Node version or
// with other flags is ignored and written again; one that cannot be written
// (a read-only install) is simply not kept.
'use strict';
const { isAscii } = require('node:buffer');
const { createHash } = require('node:crypto');
const { readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { basename, dirname, join } = require('node:path');
const vm = require('node:vm');

/**
 * V8 checks a cache against its source's length only, so the cache's name
 * carries a digest of the very text being run: a bundle file replaced by
 * another text (even of the same length, in the same inode) never meets the
 * cache of its former text.
 */
function cacheFile(entry, command, source) {
  const name = /^[a-z][a-z-]{0,31}$/.test(command ?? '') ? command : 'none';
  const text = createHash('sha1').update(source).digest('hex').slice(0, 24);
  return join(dirname(entry), `.${basename(entry)}.${name}.${text}.v8cache`);
}

/**
 * Release builds of V8 check only a cache's header and trust the rest: a
 * damaged payload crashes the process (SIGSEGV), on every run. So a cache
 * file starts with the sha256 of its payload, and one that does not match
 * is never handed to V8.
 */
const DIGEST_BYTES = 32;

const digest = (data) => createHash('sha256').update(data).digest();

/** The cache's payload when the file is intact, else undefined. */
function readCache(file) {
  let bytes;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  if (bytes.length <= DIGEST_BYTES) return undefined;
  const payload = bytes.subarray(DIGEST_BYTES);
  return digest(payload).equals(bytes.subarray(0, DIGEST_BYTES)) ? payload : undefined;
}

function writeCache(file, payload) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, Buffer.concat([digest(payload), payload]));
    renameSync(tmp, file);
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // Nothing was written.
    }
  }
}

/** The command `argv` names: the first argument after the global options main() also accepts before it. */
function commandOf(argv) {
  let i = 0;
  while (i < argv.length && (argv[i] === '--json' || argv[i] === '--store' || argv[i].startsWith('--store='))) {
    i += argv[i] === '--store' ? 2 : 1;
  }
  return argv[i];
}

/**
 * Loads `entry` (a CommonJS bundle exporting `main` and `knownCommand`) as
 * Node would load a CommonJS file, with the code cache for the command
 * `argv` names; `importer` loads ES modules for it (`(url) => import(url)`,
 * defined in an ES module). Returns the bundle's `main`, and `keepCache()` to call once
 * it has run: it writes the cache when there was none (or V8 rejected it),
 * and only for a command the bundle knows, so a mistyped name leaves no
 * file behind.
 */
function loadBundle(entry, argv, importer) {
  const command = commandOf(argv);
  const bytes = readFileSync(entry);
  const file = cacheFile(entry, command, bytes);
  const cachedData = readCache(file);
  // The build writes ASCII (charset: 'ascii'), which latin1 reads exactly at a fraction of UTF-8
  // decoding's cost; checked, since a regular expression literal is left as written.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  // Strict like the ES modules it was bundled from; the wrapper is the one Node gives a CommonJS file.
  const wrapper = `(function (exports, require, module, __filename, __dirname) { 'use strict';\n${source}\n})`;
  const script = new vm.Script(wrapper, {
    filename: entry,
    lineOffset: -1,
    cachedData,
  });
  const module = { exports: {}, filename: entry, id: entry, loaded: false };
  script.runInThisContext().call(module.exports, module.exports, createRequire(entry), module, entry, dirname(entry));
  module.loaded = true;
  const { main, knownCommand, useModuleImporter } = module.exports;
  // Code restored from a cache cannot call import() in Node 20 (not even with importModuleDynamically): tool modules come through the caller's.
  useModuleImporter(importer);
  const keepCache = () => {
    if ((!cachedData || script.cachedDataRejected) && knownCommand(command)) writeCache(file, script.createCachedData());
  };
  return { main, keepCache };
}

module.exports = { loadBundle, cacheFile };
