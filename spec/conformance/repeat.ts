/**
 * The one construct fixtures have beyond plain YAML: a value too large to
 * write out. Anywhere in a step's `answer` (and in a CLI fixture's `stdin`),
 * an object with exactly the two keys
 *
 *   { $repeat: "<text>", times: <whole number ≥ 0> }
 *
 * stands for the string `<text>` repeated `times` times, so an answer over
 * the documented 1 MiB limit is one line: `note: { $repeat: x, times: 1048566 }`.
 * Any other object (a `$repeat` with a third key, or without `times`) is
 * left as it is, so fixtures can still send `$` keys the protocol refuses.
 */
export function expandRepeats(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expandRepeats);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 2 && keys.includes('$repeat') && keys.includes('times')) {
    if (typeof o.$repeat !== 'string' || !Number.isInteger(o.times) || (o.times as number) < 0) {
      throw new Error(`a fixture's {$repeat, times} needs a string and a whole number ≥ 0, got ${JSON.stringify(o)}`);
    }
    return o.$repeat.repeat(o.times as number);
  }
  return Object.fromEntries(keys.map((k) => [k, expandRepeats(o[k])]));
}

/** A parsed fixture with every step's answer expanded (see expandRepeats). */
export function withRepeatsExpanded<T extends { steps?: Array<{ answer?: unknown }> }>(fixture: T): T {
  for (const step of fixture.steps ?? []) if (step.answer !== undefined) step.answer = expandRepeats(step.answer);
  return fixture;
}
