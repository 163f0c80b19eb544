#!/usr/bin/env node
// The `countersign` launcher. The engine is TypeScript run through tsx, so
// the command works right after `npm ci` with no build step to remember.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
