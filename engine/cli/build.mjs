// Bundles the CLI (engine/cli/main.ts and everything it imports) into
// dist/countersign.mjs with esbuild, so a command starts in one file read
// instead of compiling TypeScript through tsx on every call.
// `npm run build` (and `prepare`, so `npm ci` / `npm install`) runs it; the
// launcher also rebuilds a stale bundle by itself.
import { mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const BUNDLE = join(root, 'dist/countersign.mjs');

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
  mkdirSync(dirname(BUNDLE), { recursive: true });
  // Concurrent launchers may build at once: write aside, then rename atomically.
  const tmp = `${BUNDLE}.${process.pid}.tmp`;
  await esbuild({
    entryPoints: [join(root, 'engine/cli/main.ts')],
    outfile: tmp,
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
  renameSync(tmp, BUNDLE);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await build();
}
