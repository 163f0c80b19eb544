/** Tool-name patterns, shared by persona tool lists (§4.7) and workflow access maps (ADR-019). */

/**
 * Whole-name glob: `*` matches any run of characters (also none), every
 * other character matches itself, and the pattern must cover the whole
 * name. `*_skill` matches `execute_skill`, not `skill_list` or
 * `host_restart_service`. Greedy matching with one backtrack point, so a
 * pattern of many `*` stays linear (no regular expression to blow up).
 */
export function matchesToolPattern(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}
