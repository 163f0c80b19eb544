#!/usr/bin/env node
// The `countersign` launcher. It runs the bundled CLI (dist/countersign.mjs,
// built by `npm ci` / `npm run build` and rebuilt here when any source is
// newer), and falls back to compiling the TypeScript through tsx when no
// bundler is available, so the command always runs the current source.
import { pathToFileURL } from 'node:url';
import { BUNDLE, build, isFresh } from './build.mjs';

async function load() {
  if (isFresh()) return import(pathToFileURL(BUNDLE).href);
  try {
    await build();
    return import(pathToFileURL(BUNDLE).href);
  } catch {
    const { register } = await import('tsx/esm/api');
    register();
    return import('./main.ts');
  }
}

const { main } = await load();
process.exitCode = await main(process.argv.slice(2));
