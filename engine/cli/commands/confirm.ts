import type { JsonObject } from '../../format/model.js';
import { recordConfirmation } from '../../gate/ledger.js';
import { openStore } from '../../store/open.js';
import { printJson, readJsonArg, usage } from '../io.js';
import { STORE_OPTIONS, type Command } from './command.js';

export const command: Command = {
  usage: [
    'countersign confirm --operator U --action TOOL --target JSON|@file [--store DIR] [--json]',
    '  records that user U explicitly confirmed running TOOL on TARGET (user_confirmations). A proposal\'s',
    '  force_approve_no_sop counts only with the printed confirmation id, for the same operator, action and',
    '  target, within 10 minutes; otherwise the gate ignores the flag and logs that.',
  ].join('\n'),
  options: { ...STORE_OPTIONS, operator: { type: 'string' }, action: { type: 'string' }, target: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw usage(`confirm takes no positional arguments (got ${positionals.join(' ')})`, `give everything as options: ${command.usage.split('\n')[0]}`);
    for (const flag of ['operator', 'action', 'target']) {
      if (typeof values[flag] !== 'string' || (values[flag] as string).trim() === '') throw usage(`confirm needs --${flag}`, `usage: ${command.usage.split('\n')[0]}`);
    }
    const target = await readJsonArg(values.target as string, 'target', io);
    if (target === null || typeof target !== 'object' || Array.isArray(target)) {
      throw usage('--target must be a JSON object: the call\'s arguments, as the proposal\'s target', 'e.g. --target \'{"device_id": 7, "service": "nginx"}\'');
    }
    const store = openStore({ store: values.store as string | undefined, cwd: io.cwd, env: io.env });
    try {
      const row = recordConfirmation(store, { operator: (values.operator as string).trim(), action: (values.action as string).trim(), target: target as JsonObject });
      if (values.json) printJson(io, row);
      else io.stdout.write(`confirmation ${row.id} recorded for ${row.operator}: ${row.action} on ${JSON.stringify(row.target)} (valid 10 minutes)\n`);
      return 0;
    } finally {
      store.close();
    }
  },
};
