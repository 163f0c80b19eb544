import { printJson, usage } from '../io.js';
import { STORE_OPTIONS, withEngine, type Command } from './command.js';
import type { JournalEvent } from '../../run/contract.js';

export const command: Command = {
  usage: 'countersign trace <runId> [--store DIR] [--json]\n  the run journal: {runId, events: [{seq, at, type, nodeId, …}]}',
  options: { ...STORE_OPTIONS },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw usage('trace takes exactly one run id');
    const journal = await withEngine(values, io, (engine) => engine.trace(positionals[0]));
    if (values.json) printJson(io, journal);
    else for (const e of journal.events) io.stdout.write(`${describe(e)}\n`);
    return 0;
  },
};

function describe(e: JournalEvent): string {
  const { seq, at, type, nodeId, ...rest } = e;
  const detail = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${at}  #${seq}  ${type.padEnd(19)} ${nodeId ?? ''}${detail ? `  ${detail}` : ''}`;
}
