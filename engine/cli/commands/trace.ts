import { printJson, usage } from '../io.js';
import { noStore } from '../../store/open.js';
import { checkRunId } from '../../run/engine-checks.js';
import { STORE_OPTIONS, withEngine, type Command } from './command.js';
import type { JournalEvent } from '../../run/contract.js';

export const command: Command = {
  usage: 'countersign trace <runId> [--store DIR] [--json]\n  the run journal: {runId, events: [{seq, at, type, nodeId, …}]}',
  options: { ...STORE_OPTIONS },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw usage('trace takes exactly one run id', 'countersign trace <runId> (`countersign runs` lists them)');
    // Refused here, in the CLI's words (the fix is `countersign runs`), before any store is looked for.
    checkRunId(positionals[0]);
    const journal = await withEngine(values, io, (engine) => engine.trace(positionals[0]), (dir) => {
      throw noStore(positionals[0], dir);
    });
    if (values.json) printJson(io, journal);
    else {
      for (const e of journal.events) io.stdout.write(`${describe(e)}\n`);
      for (const line of convergence(journal.events)) io.stdout.write(`${line}\n`);
    }
    return 0;
  },
};

/** One line per event: every field on it, so no value may break the line. */
function describe(e: JournalEvent): string {
  const { seq, at, type, nodeId, ...rest } = e;
  const detail = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' && !BREAKS_LINE.test(v) ? v : oneLine(JSON.stringify(v) ?? String(v))}`)
    .join(' ');
  return `${at}  #${seq}  ${type.padEnd(19)} ${nodeId ?? ''}${detail ? `  ${detail}` : ''}`;
}

/**
 * What would end or disturb the line: control characters (a tool's
 * multi-line error, a command's output), and the separators a terminal or
 * editor may show as a new line. Such a string is written JSON-quoted.
 */
const BREAKS_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** JSON text with the characters JSON.stringify leaves as they are (DEL, C1 controls, U+2028/9) escaped too. */
function oneLine(json: string): string {
  return json.replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One line per review node: the issue counts of its accepted reviews in order, e.g. `4 → 2 → 0`. */
function convergence(events: JournalEvent[]): string[] {
  const counts = new Map<string, string[]>();
  for (const e of events) {
    if (e.type !== 'review.accepted' || e.nodeId === undefined) continue;
    counts.set(e.nodeId, [...(counts.get(e.nodeId) ?? []), String(e.issues_count)]);
  }
  return [...counts].map(([nodeId, list]) => `review ${nodeId}: ${list.join(' → ')}`);
}
