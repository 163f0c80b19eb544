/**
 * Dependencies point one way: cli → run → compile → nodes → format. A lower
 * layer never imports a higher one (nor the store, hosts, gate or CLI at
 * the edges), so the format and node types can be read, tested and reused
 * without the engine around them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../helpers/cli.js';

const ENGINE = join(ROOT, 'engine');

/** What each lower layer must not import (folders under engine/). */
const FORBIDDEN: Record<string, string[]> = {
  format: ['nodes', 'compile', 'run', 'store', 'hosts', 'gate', 'cli', 'validate', 'review', 'tools'],
  nodes: ['compile', 'run', 'store', 'hosts', 'gate', 'cli'],
  compile: ['run', 'store', 'hosts', 'gate', 'cli'],
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The engine folders a file imports, type-only imports and dynamic import() included. */
function importedFolders(file: string): Array<{ folder: string; line: number }> {
  const out: Array<{ folder: string; line: number }> = [];
  readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = relative(ENGINE, join(file, '..', m[1]));
      const folder = target.split('/')[0];
      if (!target.startsWith('..') && target.includes('/')) out.push({ folder, line: i + 1 });
    }
  });
  return out;
}

const Layers = suite('engine layers');

Layers('a lower layer (format, nodes, compile) never imports a higher one or the edges (run, store, hosts, gate, cli)', () => {
  const wrong: string[] = [];
  for (const [layer, forbidden] of Object.entries(FORBIDDEN)) {
    for (const file of filesUnder(join(ENGINE, layer))) {
      for (const { folder, line } of importedFolders(file)) {
        if (forbidden.includes(folder)) wrong.push(`${relative(ROOT, file)}:${line} imports engine/${folder}/`);
      }
    }
  }
  assert.equal(wrong, []);
});

Layers('the check sees an upward import when there is one (it reads type-only and dynamic imports)', () => {
  const found = importedFolders(join(ENGINE, 'run', 'contract.ts')).map((i) => i.folder);
  assert.ok(found.includes('nodes') && found.includes('format'), found.join(','));
});

Layers.run();
