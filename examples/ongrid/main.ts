/**
 * The Ongrid ReviewGate example (seed 000), offline: an agent host with the
 * seed's tool bag, a simulated fleet in SQLite, and a rule-based reviewer
 * the gate runs as a `jsonl` command. Plays every scenario in order and
 * prints what each did and the ledger rows it wrote, then the summary and
 * the A7 check.
 *
 *   npm run example:ongrid               # readable output
 *   npm run example:ongrid -- --json     # one JSON document on stdout
 *   npm run example:ongrid -- --keep     # keep the temp folder (fleet.db, store/)
 *   npm run example:ongrid -- --reviewer 'jsonl:<command>'   # another reviewer, e.g. a model CLI
 *
 * Exits 1 when the A7 check fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIMULATION_START } from './clock.js';
import { isCountersignError } from '../../engine/index.js';
import { createOngridHost, type OngridHost } from './host.js';
import { play, summarize, type ScenarioReport } from './play.js';
import { scenarioText, summaryText } from './report.js';
import { SCENARIOS } from './scenarios.js';

const { json, keep, reviewer } = parseArgs(process.argv.slice(2));

const dir = mkdtempSync(join(tmpdir(), 'countersign-ongrid-'));
let host: OngridHost;
try {
  host = createOngridHost(dir, reviewer ? { reviewer } : {});
} catch (e) {
  rmSync(dir, { recursive: true, force: true });
  if (!isCountersignError(e)) throw e;
  process.stderr.write(`example:ongrid: ${e.code}: ${e.message}${e.fix ? `\n  fix: ${e.fix}` : ''}\n`);
  process.exit(2);
}
const say = (text: string) => {
  if (!json) process.stdout.write(`${text}\n`);
};

const reports: ScenarioReport[] = [];
try {
  say(`Ongrid ReviewGate example — ${SCENARIOS.length} scenarios on a simulated fleet (${dir})`);
  say(`clock: simulated, starting ${new Date(SIMULATION_START).toISOString()}; nothing waits for real time`);
  for (const [i, scenario] of SCENARIOS.entries()) {
    const report = await play(host, scenario);
    reports.push(report);
    say(`\n${scenarioText(report, i + 1, SCENARIOS.length)}`);
  }
  const summary = summarize(host);
  const persona = reports.flatMap((r) => r.reviewerRuns)[0]?.persona ?? null;
  if (json) {
    const clock = { simulated: true, start: new Date(SIMULATION_START).toISOString(), end: host.clock.iso() };
    process.stdout.write(`${JSON.stringify({ clock, reviewer: persona, gateWarnings: host.gate.warnings, scenarios: reports, metrics: host.metrics(), summary })}\n`);
  } else {
    if (persona) say(`\nreviewer: persona ${persona.name} · model ${persona.model} · max_turns ${persona.max_turns} · tools ${persona.tools.join(', ')}`);
    say(`\n${summaryText(summary)}`);
  }
  if (!summary.a7.holds) process.exitCode = 1;
} finally {
  await host.close();
  if (keep) process.stderr.write(`example:ongrid: kept ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
}

function parseArgs(argv: string[]): { json: boolean; keep: boolean; reviewer?: string } {
  const out: { json: boolean; keep: boolean; reviewer?: string } = { json: false, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') out.json = true;
    else if (a === '--keep') out.keep = true;
    else if (a === '--reviewer' || a.startsWith('--reviewer=')) {
      const value = a === '--reviewer' ? argv[++i] : a.slice('--reviewer='.length);
      if (value === undefined || value.trim() === '' || value.startsWith('--')) {
        process.stderr.write("example:ongrid: --reviewer needs an adapter, e.g. --reviewer 'jsonl:<command>'\n");
        process.exit(2);
      }
      out.reviewer = value;
    } else {
      process.stderr.write(`example:ongrid: unknown option ${a}; use --json, --keep and --reviewer <adapter>\n`);
      process.exit(2);
    }
  }
  return out;
}
