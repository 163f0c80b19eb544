/**
 * What a stored run's snapshot context must hold for a step to read it:
 * checked when the engine reads a record (a damaged row is E_STORE, never
 * a crash inside a guard) and when a host writes one (its mistake, E_INPUT).
 */
const isMap = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What a stored context lacks that every step reads (so a damaged row is E_STORE, never a crash inside a guard). */
export function contextFault(context: Record<string, unknown>): string | undefined {
  if (!isMap(context.vars)) return 'has no "vars" object';
  if (!isMap(context.nodes)) return 'has no "nodes" object';
  const meta = context.meta as Record<string, unknown> | null | undefined;
  if (!isMap(meta)) return 'has no "meta" object';
  for (const key of ['executionId', 'workflowId', 'userId']) {
    if (typeof meta![key] !== 'string') return `has no string "meta.${key}"`;
  }
  if (typeof context.attempt !== 'number') return 'has no number "attempt"';
  // Answers to this visit so far: a count, which the item's attempt is one more than.
  if (!Number.isInteger(context.attempt) || context.attempt < 0) return `has the "attempt" ${context.attempt}, not a count from 0`;
  if (context.recent !== undefined && (!Array.isArray(context.recent) || !context.recent.every((r) => Array.isArray(r) && r.length === 2 && typeof r[0] === 'string' && isMap(r[1])))) return 'has a "recent" that is not a list of [node id, answer] pairs';
  if (context.errors !== undefined && !Array.isArray(context.errors)) return 'has an "errors" that is not a list';
  if (context.reviews !== undefined && !isMap(context.reviews)) return 'has a "reviews" that is not an object';
  const lead = context.leadIn as Record<string, unknown> | undefined;
  if (lead !== undefined && (!isMap(lead) || typeof lead.nodeId !== 'string' || typeof lead.attempt !== 'number' || typeof lead.userId !== 'string')) return 'has a "leadIn" that is not {nodeId, attempt, userId}';
  const before = lead?.before as Record<string, unknown> | undefined;
  if (before !== undefined && (!isMap(before) || !isMap(before.vars) || (before.unset !== undefined && !Array.isArray(before.unset)) || (before.answer !== undefined && !isMap(before.answer))
    || (before.authored !== undefined && !(Array.isArray(before.authored) && before.authored.every((r) => typeof r === 'string'))) || (before.userId !== undefined && typeof before.userId !== 'string'))) {
    return 'has a "leadIn.before" that is not {vars, unset?, answer?, authored?, userId?}';
  }
  const rerouted = context.rerouted as Record<string, unknown> | undefined;
  if (rerouted !== undefined && (!isMap(rerouted) || !Array.isArray(rerouted.routes) || !rerouted.routes.every(isMap) || !Array.isArray(rerouted.tools))) return 'has a "rerouted" that is not {routes, tools}';
  return undefined;
}
