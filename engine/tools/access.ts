/**
 * Role-based tool access (ADR-019, H35–H36): a workflow's `access` map
 * gives roles their tools as whole-name globs (the personas' rule, §4.7).
 * A tool some role claims is denied to every other role and to a node
 * without a role; a tool no role claims is open. Default deny for claimed
 * tools means a typo in a role never widens access.
 */
import { matchesToolPattern } from './glob.js';

export type AccessMap = Readonly<Record<string, readonly string[]>>;

/** Why `role` may not use `tool`, or null when it may. */
export function accessDenial(access: AccessMap | undefined, role: string | undefined, tool: string): string | null {
  const claimedBy = Object.entries(access ?? {})
    .filter(([, patterns]) => Array.isArray(patterns) && patterns.some((p) => typeof p === 'string' && matchesToolPattern(p, tool)))
    .map(([r]) => r);
  if (claimedBy.length === 0) return null;
  if (role !== undefined && claimedBy.includes(role)) return null;
  const owners = claimedBy.map((r) => `"${r}"`).join(', ');
  return role === undefined
    ? `tool "${tool}" belongs to role ${owners} in the workflow's access map, and this node names no agent role`
    : `role "${role}" may not use tool "${tool}": the workflow's access map gives it to ${owners}`;
}

/** The tools of `names` that `role` may use. */
export function toolsFor(access: AccessMap | undefined, role: string | undefined, names: readonly string[]): string[] {
  return names.filter((name) => accessDenial(access, role, name) === null);
}
