import { listExecutions, listProposals, type ExecutionRow, type ProposalRow } from '../../gate/ledger.js';
import { openStore, resolveStoreDir, storeExists } from '../../store/open.js';
import { createMemoryStore } from '../../store/memory.js';
import { printJson, usage } from '../io.js';
import { STORE_OPTIONS, type Command } from './command.js';

export const command: Command = {
  usage: [
    'countersign audit [--status approved|rejected|timeout|skipped] [--since ISO-8601] [--store DIR] [--json]',
    '  the review gate\'s ledger: every proposal row and every execution row, oldest first.',
    '  --json prints {proposals: [...], executions: [...]} with the rows\' own JSON types; a proposal row',
    '  has by_gate: false when a run of the gate workflow that the gate did not start wrote it.',
  ].join('\n'),
  options: { ...STORE_OPTIONS, status: { type: 'string' }, since: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw usage(`audit takes no positional arguments (got ${positionals.join(' ')})`, `give everything as options: ${command.usage.split('\n')[0]}`);
    const since = values.since as string | undefined;
    const status = values.status as string | undefined;
    const location = { store: values.store as string | undefined, cwd: io.cwd, env: io.env };
    const dir = resolveStoreDir(location);
    // Reading only: a store that does not exist is read as an empty one
    // (the same checks of --status and --since), never created.
    const exists = storeExists(dir);
    const store = exists ? openStore(location) : createMemoryStore();
    try {
      const proposals = listProposals(store, { ...(status !== undefined ? { status } : {}), ...(since !== undefined ? { since } : {}) });
      // Said once the query itself was valid: a bad --status or --since is its error alone.
      if (!exists) io.stderr.write(`countersign audit: no store in ${dir} yet: the ledger is empty\n`);
      // Executions have no status; --status narrows them to those of the listed proposals.
      const ids = new Set(proposals.map((p) => p.id));
      const executions = listExecutions(store, since !== undefined ? { since } : {}).filter((e) => status === undefined || (e.proposal_id !== null && ids.has(e.proposal_id)));
      if (values.json) printJson(io, { proposals, executions });
      else io.stdout.write(render(proposals, executions));
      return 0;
    } finally {
      store.close();
    }
  },
};

/**
 * One line per row. Rows are printed as they are stored: a row written
 * before the ledger checked field types (or by an older countersign) may
 * lack a field or hold another type, and audit shows it rather than failing.
 */
function render(proposals: ProposalRow[], executions: ExecutionRow[]): string {
  const lines = [`proposals (${proposals.length})`];
  for (const p of proposals) {
    const extra = [
      p.by_gate === false ? 'OUTSIDE THE GATE: a hand run of the gate workflow' : '',
      p.deduped === true ? 'deduped' : '',
      p.sop_id ? `sop ${show(p.sop_id)}` : '',
      typeof p.confirmation_id === 'string' ? `no-SOP override confirmed by ${show(p.confirmation_id)}` : '',
      p.status === 'rejected' || p.status === 'timeout' ? `reason: ${show(p.reason)}` : '',
    ].filter(Boolean).join(' · ');
    lines.push(`  ${show(p.at)}  ${show(p.status).padEnd(8)}  ${show(p.tool)} by ${show(p.operator)} on ${show(p.target)}${extra ? `  (${extra})` : ''}`);
  }
  lines.push(`executions (${executions.length})`);
  for (const e of executions) {
    const ok = e.ok === true ? 'ok  ' : e.ok === false ? 'FAIL' : show(e.ok);
    lines.push(`  ${show(e.at)}  ${ok}  ${show(e.tool)} ${show(e.args)}${e.proposal_id ? `  proposal ${show(e.proposal_id)}` : ''}${e.error ? `  error: ${show(e.error)}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A stored value as text: strings as they are, a missing field as "(none)", anything else as JSON. */
function show(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '(none)';
  return JSON.stringify(value);
}
