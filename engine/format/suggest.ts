/**
 * "Did you mean …?" for misspelled variable names, node ids and fields.
 * Candidates may be plain names (`summary`) or whole dotted paths
 * (`review.summary`). For a dotted name compared against plain names only the
 * last segment is compared, and the suggestion is the whole corrected path.
 */

/** The closest candidate within max(1, floor(len/3)) edits, len the longer of the two names (none for a one-letter name); a case-insensitive match wins outright. */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  const dot = name.lastIndexOf('.');
  const prefix = dot >= 0 ? name.slice(0, dot + 1) : '';
  const last = dot >= 0 ? name.slice(dot + 1) : name;
  const lowerWhole = name.toLowerCase();
  const lowerLast = last.toLowerCase();

  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const whole = candidate.includes('.') || dot < 0;
    const target = whole ? lowerWhole : lowerLast;
    const lowerCandidate = candidate.toLowerCase();
    const proposal = whole ? candidate : prefix + candidate;
    if (lowerCandidate === target) return proposal;
    // One edit up to 5 letters, more for longer — counted on the longer of
    // the two, since dropped letters shorten the typo ("sumry" for
    // "summary"); a one-letter name is too short to tell a typo from
    // another name ("a" is not "n"; "nn" may be).
    const limit = target.length < 2 ? 0 : Math.max(1, Math.floor(Math.max(target.length, lowerCandidate.length) / 3));
    if (Math.abs(lowerCandidate.length - target.length) > limit) continue;
    const distance = damerauLevenshtein(target, lowerCandidate, limit);
    if (distance <= limit && distance < bestDistance) {
      best = proposal;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Optimal-string-alignment distance (Damerau-Levenshtein with adjacent
 * transpositions). Returns limit+1 as soon as every path exceeds `limit`.
 */
export function damerauLevenshtein(a: string, b: string, limit = Infinity): number {
  const n = a.length;
  const m = b.length;
  if (n === 0) return m;
  if (m === 0) return n;
  let prevPrev = new Array<number>(m + 1).fill(0);
  let prev = new Array<number>(m + 1);
  let curr = new Array<number>(m + 1).fill(0);
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    curr[0] = i;
    let rowMin = curr[0];
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(j - 1);
      const cost = ca === cb ? 0 : 1;
      let d = Math.min(prev[j] + 1, curr[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        d = Math.min(d, prevPrev[j - 2] + 1);
      }
      curr[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
    const recycled = prevPrev;
    prevPrev = prev;
    prev = curr;
    curr = recycled;
  }
  return prev[m];
}
