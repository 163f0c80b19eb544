import { printJson, usage } from '../io.js';
import { storeArg, withStore } from '../render.js';
import { STORE_OPTIONS, withEngine, type Command } from './command.js';
import type { RunStatus, RunSummary } from '../../run/contract.js';

const STATUSES = ['waiting', 'completed', 'failed'];

export const command: Command = {
  usage: 'countersign runs [--status waiting|completed|failed] [--store DIR] [--json]\n  every run, newest started first, with when it started and was last updated\n  exit 0; 2 usage, or a store that cannot be read (E_STORE)',
  options: { ...STORE_OPTIONS, status: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw usage('runs takes no arguments', 'countersign runs [--status waiting|completed|failed] [--json]; to see one run: countersign status <runId>');
    const status = values.status as string | undefined;
    if (status !== undefined && !STATUSES.includes(status)) throw usage(`--status must be one of ${STATUSES.join(', ')}`, `write --status ${STATUSES.join(', --status ')}, or leave it out to list every run`);
    const [list, total, where] = await withEngine<[RunSummary[], number, string]>(values, io, async (engine, store) => {
      const shown = await engine.runs(status ? { status: status as RunStatus } : undefined);
      return [shown, status && shown.length === 0 ? (await engine.runs()).length : shown.length, store.location ?? ''];
    }, (dir) => [[], 0, `${dir} (no store there yet)`]);
    if (values.json) printJson(io, { runs: list });
    // The commands suggested name the store --store chose, so run as printed they reach it.
    else if (total === 0) io.stderr.write(`no runs yet in ${where}: start one with \`countersign start <file>${storeArg(values.store as string | undefined)}\`\n`);
    else if (list.length === 0) io.stderr.write(withStore(`no ${status} runs (${total} run${total === 1 ? '' : 's'} in the store: \`countersign runs\` lists them)\n`, values.store as string | undefined));
    else {
      // Listed by when each run started, newest first: both times shown, named, so the order reads right.
      const idWidth = Math.max(6, ...list.map((r) => r.runId.length));
      const time = list[0].createdAt.length;
      io.stdout.write(`${'RUN ID'.padEnd(idWidth)}  ${'STATUS'.padEnd(9)}  ${'STARTED'.padEnd(time)}  ${'UPDATED'.padEnd(time)}  WORKFLOW\n`);
      for (const r of list) io.stdout.write(`${r.runId.padEnd(idWidth)}  ${r.status.padEnd(9)}  ${r.createdAt}  ${r.updatedAt}  ${r.workflow}\n`);
    }
    return 0;
  },
};
