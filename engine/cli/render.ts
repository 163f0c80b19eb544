/** Human-readable rendering of run states for the terminal. */
import type { RunState } from '../run/contract.js';
import { shellWord } from '../format/shell-word.js';
import { claimNote } from '../run/tool-steps.js';
import { answerHint, stepHint } from '../run/step-hint.js';

/**
 * `store`: the --store DIR the command was given; the commands the output
 * suggests name it, so run as printed they find the run.
 */
export function renderState(state: RunState, store?: string, opts: { seqGiven?: boolean; toolModules?: boolean } = {}): string {
  const at = storeArg(store);
  const lines: string[] = [];
  if (state.retriesSpent && !state.replayed) {
    const r = state.retriesSpent;
    lines.push(`answer rejected (${r.code}); node "${r.nodeId}" had no retries left, so the run took its ${r.via} route to "${r.to}":`);
    for (const e of r.errors) lines.push(`  ${e}`);
  }
  switch (state.status) {
    case 'waiting': {
      const p = state.pending;
      if (state.replayed) {
        lines.push(opts.seqGiven === false
          ? 'the run moved on before this answer was applied, so it was not used: nothing changed (replayed)'
          : 'that seq was already answered: nothing changed (replayed)');
      }
      if (state.rejected) {
        lines.push(`answer rejected (${state.rejected.code}):`);
        for (const e of state.rejected.errors) lines.push(`  ${e}`);
      }
      if (p.kind === 'tool') {
        if (state.held) {
          lines.push(`run ${state.runId} waits at tool node "${p.nodeId}" — seq ${state.seq}: this process did not run ${p.tool} (${state.held.code}): ${state.held.message}`);
          // Another process claimed it: said first, since the call may have taken effect whatever this one may load.
          const claimed = claimNote(p);
          if (claimed) lines.push(`  note: ${claimed}`);
          if (state.held.fix) lines.push(`  fix: ${state.held.fix}`);
          break;
        }
        lines.push(`run ${state.runId} is at tool node "${p.nodeId}" — seq ${state.seq}: ${p.tool} ${p.startedAt ? `has been running since ${p.startedAt}` : 'is about to run'} (the engine runs it; nothing to answer)`);
        break;
      }
      const role = p.kind === 'directive' ? p.agent : p.contract === 'issues' ? p.reviewer : `${p.persona.name} (persona)`;
      const what = p.kind === 'review' && p.contract === 'issues' ? `review ${p.iteration}, ` : '';
      lines.push(`run ${state.runId} is waiting at "${p.nodeId}" — seq ${state.seq}, ${what}attempt ${p.attempt} of ${p.maxRetries + 1}${role ? `, for role "${role}"` : ''}`);
      if (p.deadline) lines.push(`deadline: ${p.deadline}`);
      if (p.errors && p.errors.length > 0 && !state.rejected) {
        lines.push('the previous answer was rejected:');
        for (const e of p.errors) lines.push(`  ${e}`);
      }
      if (p.kind === 'review' && p.contract === 'decision') {
        lines.push('', 'review prompt:', indent(p.prompt), '', `model: ${p.persona.model} · max_turns: ${p.persona.max_turns} · tools: ${p.persona.tools.join(', ') || 'none'}`, '');
        lines.push(p.answererPinned ? `answer: ${answerHint(state.runId, state.seq, p, at)}` : `answer with: ${stepHint(state.runId, state.seq, p, at)}`);
      } else if (p.kind === 'review') {
        lines.push('', 'review prompt:', indent(p.prompt), '', `report file: ${p.report}`, '', 'answer schema:', indent(JSON.stringify(p.inputSchema, null, 2)), '');
        lines.push(`answer with: ${stepHint(state.runId, state.seq, p, at)}`);
      } else {
        lines.push('', 'directive:', indent(p.directive), '', 'done when:', indent(p.completionCondition), '', 'answer schema:', indent(JSON.stringify(p.inputSchema, null, 2)), '');
        lines.push(`answer with: ${stepHint(state.runId, state.seq, p, at)}`);
      }
      break;
    }
    case 'completed':
      lines.push(`run ${state.runId} completed at "${state.endNodeId}"${state.outcome ? ` (outcome ${state.outcome})` : ''}${state.replayed ? ' (replayed: nothing changed)' : ''}`);
      lines.push('output:', indent(JSON.stringify(state.output, null, 2)));
      break;
    case 'failed':
      lines.push(`run ${state.runId} failed at "${state.error.nodeId ?? '?'}": ${state.error.code}: ${state.error.message}${state.replayed ? ' (replayed)' : ''}`);
      break;
  }
  const text = `${lines.join('\n')}\n`;
  return opts.toolModules ? withToolModules(text) : text;
}

/**
 * `text` with `--allow-tool-modules` added to each countersign command it
 * suggests that acts on the run (`step <id>`, `status <id>`, `run --resume
 * <id>`), for a run whose workflow names toolModules: without the flag,
 * run as printed, such a command is refused (E_TOOL_MODULE_BLOCKED).
 */
export function withToolModules(text: string): string {
  // After the run id, and after a --store DIR as shellWord writes it (quoted, with '\'' for a quote inside).
  // Each part ends where its word ends (never part-way through, which would let the check below pass early).
  return text.replace(/countersign (?:status|step|run --resume) [^\s`'",;)]+(?![^\s`'",;)])(?: --store[= ](?:'(?:[^']|'\\'')*'|[^\s`'",;)]+)(?![^\s`'",;)]))?/g, (all, at: number, whole: string) => {
    // Already there, anywhere in the rest of this command (after its --store, say): added once, never twice.
    const rest = whole.slice(at + all.length).split(/[\n`;)]|, or | \(or /)[0];
    return /(^|\s)--allow-tool-modules(\s|$)/.test(rest) ? all : `${all} --allow-tool-modules`;
  });
}

/** ` --store DIR` (shell-quoted when it needs it) for a store given with --store; nothing for the default or $COUNTERSIGN_STORE. */
export function storeArg(store: string | undefined): string {
  if (store === undefined) return '';
  // A value starting with "-" would be read as an option: joined with "=", as the parser takes it.
  return store.startsWith('-') ? ` --store=${shellWord(store)}` : ` --store ${shellWord(store)}`;
}

/**
 * `text` with `--store DIR` added to each countersign command it suggests
 * that reads or starts runs (`runs`, `start`, `status <id>`, `trace <id>`,
 * `step <id>`, `run --resume <id>`), for a store given with --store: run as printed
 * from the same directory, the command finds the run.
 */
export function withStore(text: string, store: string | undefined): string {
  if (store === undefined) return text;
  // `runs` only as a command (closed by a quote, punctuation or the end), never "countersign runs in …".
  return text.replace(/countersign (?:runs(?=[`'";:,.)]|$)|start(?=[`'";:,.)\s]|$)|(?:status|trace|step|run --resume) [^\s`'",;]+(?![^\s`'",;]))(?! --store)/g, (all) => `${all}${storeArg(store)}`);
}

export function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((l) => (l ? by + l : l))
    .join('\n');
}
