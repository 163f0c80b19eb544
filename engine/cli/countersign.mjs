#!/usr/bin/env node
// The `countersign` launcher. It runs the bundled CLI (built by `npm ci` /
// `npm run build`, and rebuilt here when any source is newer), and falls
// back to compiling the TypeScript through tsx when no bundler is
// available, so the command always runs the current source.
import { pathToFileURL } from 'node:url';
import { build, freshBundle, markInUse } from './build.mjs';

/** The bundle's entry, marked in use so a rebuild by another command does not sweep it while this one runs. */
function entry(file) {
  markInUse(file);
  return import(pathToFileURL(file).href);
}

async function load() {
  const fresh = freshBundle();
  if (fresh) {
    try {
      return await entry(fresh);
    } catch {
      // Swept by a build running at the same moment, before this process marked it: build again.
    }
  }
  try {
    return await entry(await build());
  } catch {
    const { register } = await import('tsx/esm/api');
    register();
    return import('./main.ts');
  }
}

const { main } = await load();
process.exitCode = await main(process.argv.slice(2));
