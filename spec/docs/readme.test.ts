/** README is part of the product: its promises are checked here. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODES } from '../../engine/codes.js';
import { COMMANDS } from '../../engine/cli/commands/index.js';
import { ROOT } from '../helpers/cli.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const Readme = suite('README');

Readme('every stable error code is documented in the error-code table', () => {
  const missing = Object.keys(CODES).filter((code) => !readme.includes(`| \`${code}\` |`));
  assert.equal(missing, []);
});

Readme('the quick start is exactly two commands, and they are the package scripts that exist', () => {
  const block = /## Quick start\n\n```sh\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'quick start block');
  const commands = block![1].trim().split('\n').map((l) => l.replace(/\s+#.*$/, '').trim());
  assert.equal(commands, ['npm install && npm start', 'npm test']);
  assert.ok(pkg.scripts.start && pkg.scripts.test);
});

Readme('every CLI command is in the command table with its exit codes', () => {
  for (const name of Object.keys(COMMANDS)) assert.ok(readme.includes(`| \`${name} `), `README lacks ${name}`);
});

Readme.run();
