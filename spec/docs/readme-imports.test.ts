/** Every name README imports from 'countersign' is exported by the library entry point. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const Imports = suite('README imports');

/** Value names of every `import { … } from 'countersign'` in README (types are erased at run time). */
function importedNames(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'countersign'/g)) {
    for (const part of m[1].split(',')) {
      const name = part.trim().split(/\s+as\s+/)[0].trim();
      if (name !== '' && !name.startsWith('type ')) names.add(name);
    }
  }
  return [...names];
}

Imports('every name README imports from countersign is exported by engine/index.ts (toolDenial included, B13–B16)', async () => {
  const lib = (await import('../../engine/index.js')) as Record<string, unknown>;
  const names = importedNames(readme);
  assert.ok(names.includes('toolDenial'), 'README shows toolDenial');
  assert.ok(names.length > 10, `README imports ${names.length} names`);
  assert.equal(names.filter((n) => !(n in lib)), []);
});

Imports('toolDenial from the entry point says why a persona may not call a tool, and null when it may (B14, §4.7)', async () => {
  const { toolDenial } = await import('../../engine/index.js');
  const persona = { tools: ['get_*'], disallowed_tools: ['*_skill', 'run_shell'], permission_mode: 'read-only' as const };
  assert.is(toolDenial(persona, { name: 'get_sop_text', class: 'read' }), null);
  assert.match(toolDenial(persona, { name: 'execute_skill', class: 'write' }) ?? '', '"*_skill"');
  assert.match(toolDenial(persona, { name: 'get_write', class: 'write' }) ?? '', 'read-only');
});

Imports.run();
