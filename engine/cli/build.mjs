// Bundles the CLI (engine/cli/main.ts and everything it imports) into
// dist/cli/ with esbuild, so a command loads a few prebuilt chunks instead
// of compiling TypeScript through tsx on every call. Chunks are split at the
// dynamic imports, so each command loads only what it uses.
// `npm run build` (and `prepare`, so `npm ci` / `npm install`) runs it; the
// launcher also rebuilds a stale bundle by itself.
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI_DIR = join(root, 'dist/cli');
export const BUNDLE = join(CLI_DIR, 'main.js');
/** The library for plain-Node consumers (`import … from 'countersign'`); dependencies stay external. */
export const LIBRARY = join(root, 'dist/index.mjs');

/** Newest modification time of anything the bundle is built from. */
export function newestSource() {
  let newest = statSync(join(root, 'package.json')).mtimeMs;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|json)$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  walk(join(root, 'engine'));
  walk(join(root, 'schemas'));
  return newest;
}

export function isFresh() {
  try {
    return statSync(BUNDLE).mtimeMs >= newestSource();
  } catch {
    return false;
  }
}

export async function build() {
  const { build: esbuild } = await import('esbuild');
  mkdirSync(dirname(CLI_DIR), { recursive: true });
  // Concurrent launchers may build at once: build aside, then swap the folder in.
  const tmp = `${CLI_DIR}.${process.pid}.tmp`;
  await esbuild({
    entryPoints: [join(root, 'engine/cli/main.ts')],
    outdir: tmp,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Dependencies go into the bundle too: resolving and loading a hundred
    // CommonJS files costs more than the command. The native SQLite binding
    // cannot be bundled.
    external: ['better-sqlite3'],
    mainFields: ['module', 'main'],
    banner: { js: "import { createRequire as __countersignRequire } from 'node:module'; const require = __countersignRequire(import.meta.url);" },
    logLevel: 'error',
  });
  rmSync(CLI_DIR, { recursive: true, force: true });
  renameSync(tmp, CLI_DIR);
}

export async function buildLibrary() {
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    entryPoints: [join(root, 'engine/index.ts')],
    outfile: LIBRARY,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await build();
  await buildLibrary();
}
