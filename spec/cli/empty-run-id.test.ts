/**
 * An empty (or blank) run id given to status, step or trace is refused in
 * the CLI's words — E_INPUT naming the value, exit 2 — with the fix a CLI
 * user can run: `countersign runs`, naming the store given with --store.
 * Never the library's `get()` wording nor its `list()` fix (r86).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { cli, tempDir } from '../helpers/cli.js';

const Empty = suite('cli: an empty run id');

for (const [command, id] of [['status', ''], ['status', ' '], ['step', ''], ['step', ' '], ['trace', '']] as const) {
  Empty(`${command} ${JSON.stringify(id)}: E_INPUT in the CLI's words, the fix \`countersign runs --store DIR\``, async () => {
    const store = join(tempDir(), 'st');
    const extra = command === 'step' ? ['--response', '{}'] : [];
    const r = await cli([command, id, ...extra, '--store', store, '--json']);
    assert.is(r.code, 2, r.stderr);
    assert.is(r.json.error.code, 'E_INPUT');
    assert.match(r.json.error.message, `a run id is a non-empty string, got ${JSON.stringify(id)}`);
    assert.not.match(r.json.error.message, 'get()');
    assert.match(r.json.error.fix, `\`countersign runs --store ${store}\``);
    assert.not.match(r.json.error.fix, 'list()');
  });
}

Empty.run();
