import { interruptible } from '../signals.js';
import { CountersignError } from '../../errors.js';
import type { JsonObject } from '../../format/model.js';
import { createGate, DefaultReviewerTimeout, MaxReviewerTimeout, MinReviewerTimeout, type GateResult } from '../../gate/gate.js';
import { BLAST_RADII, validateProposal, type Proposal } from '../../gate/proposal.js';
import { TOOL_CLASSES, type ToolClass } from '../../tools/tool.js';
import { createAgent } from '../../hosts/adapters.js';
import type { Agent } from '../../hosts/agent.js';
import { createReplyAgent } from '../../hosts/reply.js';
import { openStore, resolveStoreDir } from '../../store/open.js';
import { lazyStore } from '../../store/lazy.js';
import { createMemoryStore } from '../../store/memory.js';
import { printJson, readJsonArg, usage } from '../io.js';
import { STORE_OPTIONS, type Command } from './command.js';

/** Exit status per outcome: 0 approved or pass, 3 rejected (deduped too), 4 timeout. */
const EXIT: Record<GateResult['outcome'], number> = { approved: 0, pass: 0, skipped: 0, rejected: 3, timeout: 4 };

export const command: Command = {
  usage: [
    'countersign gate --tool NAME --class read|write|destructive --proposal JSON|@file --reviewer <adapter> [--agents DIR] [--timeout-ms N] [--store DIR] [--json]',
    '  runs one proposal through workflows/ongrid-review-gate.json: a read passes; otherwise the reviewer persona',
    '  (agents/reviewer.md) decides and a chat_mutating_proposals row is written. The proposal gives action (= --tool),',
    '  target, reason, operator, context_summary and blast_radius (default single_device). There is no inner tool:',
    '  an approval says the tool would run. --reviewer takes the adapters of run, or reply:<file> (a fixed reply).',
    '  --json prints {outcome, code?, message?, proposal}. Exit: 0 approved or pass · 3 rejected · 4 timeout ·',
    '  2 usage, an unknown class or a proposal that fails schemas/proposal.schema.json (nothing runs, no row).',
  ].join('\n'),
  options: {
    ...STORE_OPTIONS,
    tool: { type: 'string' },
    class: { type: 'string' },
    proposal: { type: 'string' },
    reviewer: { type: 'string' },
    agents: { type: 'string' },
    'timeout-ms': { type: 'string' },
  },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw usage(`gate takes no positional arguments (got ${positionals.join(' ')})`, `give everything as options: ${command.usage.split('\n')[0]}`);
    const tool = required(values.tool, '--tool');
    const cls = required(values.class, '--class');
    if (!(TOOL_CLASSES as readonly string[]).includes(cls)) throw usage(`--class ${cls} is not a tool class`, `use one of ${TOOL_CLASSES.join(', ')}`);
    const proposalArg = required(values.proposal, '--proposal');
    // Both would read standard input: the reviewer would meet its end, and the gate would record a rejection nobody gave.
    if (proposalArg === '-' && typeof values.reviewer === 'string' && values.reviewer.trim() === 'interactive' && cls !== 'read') {
      throw usage('--proposal - and --reviewer interactive cannot both read standard input', 'pass the proposal as JSON or @file when a person reviews at the terminal');
    }
    const raw = await readJsonArg(proposalArg, 'proposal', io);
    const proposal = proposalFrom(raw, tool);
    const timeoutMs = timeoutFrom(values['timeout-ms'], '--timeout-ms');
    const spec = cls === 'read' ? undefined : required(values.reviewer, '--reviewer');
    const reviewer: Agent = spec === undefined ? { answer: async () => ({ reply: '' }) } : reviewerFor(spec, io.cwd, io.env);
    // A read call passes without a reviewer and writes no row: the gate
    // workflow decides it on a store of its own, so no store folder is
    // created for it (a mistyped --store leaves nothing behind).
    // The real store opens on its first use, after the personas and the
    // gate's configuration are checked: a call refused for them creates none.
    const location = { store: values.store as string | undefined, cwd: io.cwd, env: io.env };
    const store = cls === 'read' ? createMemoryStore() : lazyStore(() => openStore(location), resolveStoreDir(location));
    // The reviewer runs in its own process group: stopped here if the gate is
    // interrupted (signals.ts), and the call fails closed with a rejected row
    // saying so, never left waiting for a made-up timeout row later.
    const interrupt = interruptible(() => reviewer.close?.());
    try {
      const gate = createGate({
        store,
        reviewer,
        timeoutMs,
        ...(values.agents ? { agentsDir: values.agents as string } : {}),
        log: (m) => io.stderr.write(`countersign gate: ${m}\n`),
      });
      // About the reviewer: said only when one will be asked.
      if (cls !== 'read') for (const w of gate.warnings) io.stderr.write(`warning: ${w}\n`);
      const result = await gate.review(proposal, { name: tool, class: cls as ToolClass }, { signal: interrupt.signal });
      report(io, result, values.json === true, tool, gate.timeoutMs);
      return interrupt.status() ?? EXIT[result.outcome];
    } finally {
      // The handlers stay until the reviewer is closed: a Ctrl-C while it is being stopped must still stop it, never orphan it.
      await reviewer.close?.();
      interrupt.off();
      store.close();
    }
  },
};

/** The reviewer's ceiling, checked here so the error names the flag (the gate's own check names its option). */
export function timeoutFrom(value: unknown, flag: string): number {
  if (value === undefined) return DefaultReviewerTimeout;
  const text = String(value).trim();
  const ms = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < MinReviewerTimeout || ms > MaxReviewerTimeout) {
    throw new CountersignError('E_GATE_CONFIG', `${flag} ${text} is not a whole number of milliseconds from ${MinReviewerTimeout} to ${MaxReviewerTimeout} (about 24.8 days)`, {
      fix: `leave ${flag} out for the 60 s default, or pass a value in that range (a reviewer needs at least 30 s for its turns, F11)`,
    });
  }
  return ms;
}

function required(value: unknown, flag: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw usage(`gate needs ${flag}`, `usage: ${command.usage.split('\n')[0]}`);
  return value.trim();
}

/** The proposal as the CLI takes it: blast_radius defaults, action must name --tool, and the schema decides the rest. */
function proposalFrom(raw: unknown, tool: string): Proposal {
  const given = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as JsonObject) : undefined;
  const proposal = given && given.blast_radius === undefined ? { ...given, blast_radius: 'single_device' } : raw;
  const problems = validateProposal(proposal);
  if (problems.length > 0) {
    throw new CountersignError('E_PROPOSAL', `the proposal does not fit schemas/proposal.schema.json: ${problems.map((p) => `${p.pointer || '(root)'}: ${p.message}`).join('; ')}`, {
      ...(problems[0].pointer ? { pointer: problems[0].pointer } : {}),
      fix: problems[0].fix ?? `blast_radius is one of ${BLAST_RADII.join(', ')}`,
    });
  }
  const p = proposal as Proposal;
  // E_PROPOSAL, as the library's gate.review says it: one fault, one code for hosts to match.
  if (p.action !== tool && typeof p.action === 'string' && p.action.trim() === tool) {
    // --tool is read trimmed (a shell quirk); the proposal is recorded as written, so its action must be the name itself.
    throw new CountersignError('E_PROPOSAL', `the proposal's action ${JSON.stringify(p.action)} has white space around the tool name "${tool}"`, {
      pointer: '/action',
      fix: `write the action as "${tool}", exactly the tool's name`,
    });
  }
  if (p.action !== tool) {
    throw new CountersignError('E_PROPOSAL', `the proposal's action ${JSON.stringify(p.action)} is not --tool "${tool}"`, {
      pointer: '/action',
      fix: 'a proposal asks to run exactly the tool it names: make action equal --tool',
    });
  }
  return p;
}

/**
 * The gate's reviewer: an adapter of run, or reply:<file> (a fixed reply).
 * `flag` is the option the spec came from, named in every error.
 */
export function reviewerFor(spec: string, cwd: string, env: NodeJS.ProcessEnv, flag = '--reviewer'): Agent {
  // Spaces around the colon are fine, as for the other adapters (`scripted : f`).
  const reply = /^\s*reply\s*:/.exec(spec);
  if (reply) {
    const file = spec.slice(reply[0].length).trim();
    if (file === '') throw usage(`${flag} reply: needs a file after the colon`, 'use reply:<file>, a file holding the reviewer\'s reply');
    return createReplyAgent(file, cwd, flag);
  }
  try {
    return createAgent(spec, { cwd, env, flag });
  } catch (e) {
    // createAgent lists the adapters it builds; a gate reviewer also takes reply:<file>.
    if (e instanceof CountersignError && e.code === 'E_ADAPTER' && e.message.endsWith('names no known adapter')) {
      throw new CountersignError('E_ADAPTER', e.message, { fix: `use reply:<file> (a fixed reply), ${(e.fix ?? '').replace(/^use /, '')}`, cause: e });
    }
    throw e;
  }
}

function report(io: { stdout: NodeJS.WritableStream }, result: GateResult, json: boolean, tool: string, timeoutMs: number): void {
  const error =
    result.outcome === 'rejected' ? { code: 'ErrReviewRejected', message: `review rejected: ${result.reason ?? 'no reason given'}` }
    : result.outcome === 'timeout' ? { code: 'ErrReviewTimeout', message: `review timed out after ${Math.round(timeoutMs / 1000)}s` }
    : undefined;
  if (json) {
    printJson(io as never, { outcome: result.outcome, ...(error ?? {}), proposal: result.row });
    return;
  }
  const lines =
    result.outcome === 'pass' ? [`pass: ${tool} is a read tool — no review, no row; it would run`]
    : result.outcome === 'approved' ? [`approved: ${tool} would run now (countersign gate has no inner tool)`]
    : [`${result.outcome}: ${error?.code}: ${error?.message}`];
  const row = result.row;
  if (row) {
    lines.push(`proposal row ${row.id} · status ${row.status}${row.deduped ? ' · deduped (no reviewer ran)' : ''} · persona ${row.persona} (${row.model})`);
    if (row.sop_id) lines.push(`sop: ${row.sop_id}`);
    if (row.rollback) lines.push(`rollback: ${row.rollback}`);
    if (row.missing_gates) for (const g of row.missing_gates) lines.push(`missing: ${g}`);
  }
  io.stdout.write(`${lines.join('\n')}\n`);
}
