/**
 * The commands countersign's output suggests carry --allow-tool-modules
 * when the run's workflow names toolModules: once, after the run id and any
 * --store, whatever the store is called (r81 a1).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { storeArg, withToolModules } from '../../engine/cli/render.js';

const Hints = suite('suggested commands: --allow-tool-modules');

Hints('r81 a1: a command that already has it (after its --store) gets it once, never a second time glued into the store name', () => {
  assert.is(
    withToolModules('Then continue with countersign run --resume abc --store mystore --allow-tool-modules --agent <adapter>'),
    'Then continue with countersign run --resume abc --store mystore --allow-tool-modules --agent <adapter>',
  );
  assert.is(withToolModules("countersign step abc --store 'my store' --allow-tool-modules --seq 1"), "countersign step abc --store 'my store' --allow-tool-modules --seq 1");
});

Hints('each suggested command without it gets it after the run id and the --store, quoted or not; two commands on one line each get their own', () => {
  assert.is(withToolModules('countersign run --resume abc --store st --agent x'), 'countersign run --resume abc --store st --allow-tool-modules --agent x');
  assert.is(withToolModules("countersign step abc --store 'my store' --seq 1"), "countersign step abc --store 'my store' --allow-tool-modules --seq 1");
  assert.is(
    withToolModules("resume with: countersign run --resume a --agent x  (or answer with countersign step a --seq 2 --response '<json>')"),
    "resume with: countersign run --resume a --allow-tool-modules --agent x  (or answer with countersign step a --allow-tool-modules --seq 2 --response '<json>')",
  );
});

Hints('r82 a3: a --store name holding a comma is quoted, so --allow-tool-modules is added after the whole name, never inside it', () => {
  assert.is(storeArg('a,b'), " --store 'a,b'");
  assert.is(withToolModules(`countersign step abc${storeArg('a,b')} --seq 1`), "countersign step abc --store 'a,b' --allow-tool-modules --seq 1");
});

Hints.run();
