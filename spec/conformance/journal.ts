/**
 * A journal event as one comparable line: its type and node, plus the
 * fields that say what happened (route via/to, condition result, rejection
 * and failure codes, attempts, identities, assignments). Fixtures list
 * these lines, so a wrong field fails as surely as a wrong event.
 */
import type { JournalEvent } from '../../engine/run/contract.js';

export function describeEvent(e: JournalEvent): string {
  const base = e.nodeId ? `${e.type} ${e.nodeId}` : e.type;
  switch (e.type) {
    case 'route':
      return `${base} -${String(e.via)}-> ${String(e.to)}${e.from === e.nodeId ? '' : ` (from ${String(e.from)})`}`;
    case 'condition.evaluated':
      return `${base} ${e.error !== undefined ? 'error' : String(e.result)}`;
    case 'expression.evaluated':
      return `${base} ${e.error !== undefined ? `error ${String(e.expression)}` : JSON.stringify(e.assigned)}`;
    case 'directive.issued':
      return `${base} #${String(e.attempt)}${e.deadline ? ` until ${String(e.deadline)}` : ''}`;
    case 'answer.accepted':
      return `${base} #${String(e.attempt)} by ${String(e.userId)}`;
    case 'answer.rejected':
      return `${base} #${String(e.attempt)} ${String(e.code)}`;
    case 'answer.error':
      return `${base} #${String(e.attempt)} ${String(e.message)}`;
    case 'variable.unset':
      return `${base} ${(e.names as string[]).join(',')}`;
    case 'run.completed':
      return `${base} at ${String(e.endNodeId)}`;
    case 'run.failed':
      return `${base} ${String(e.code)}`;
    case 'review.issued':
      return `${base} iteration ${String(e.iteration)} #${String(e.attempt)}${e.deadline ? ` until ${String(e.deadline)}` : ''}`;
    case 'review.accepted':
      return `${base} ${String(e.issues_count)} issue(s) at iteration ${String(e.iteration)}`;
    case 'review.exhausted':
      return `${base} ${String(e.issues_count)} issue(s) left`;
    case 'review.unchanged':
      return `${base} ${String(e.reason)}`;
    case 'review.refused':
      return `${base} ${String(e.code)}`;
    case 'run.started':
      return `${base} ${String(e.workflow)} by ${String(e.userId)}`;
    default:
      return base;
  }
}
