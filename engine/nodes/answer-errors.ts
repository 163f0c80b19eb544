/**
 * ajv's errors for a rejected value, as the `pointer: message` lines an
 * agent reads: one line per fault, the alternatives of a failed anyOf, oneOf
 * or contains folded into the choice they belong to, and the list capped so
 * a huge answer cannot make a huge rejection. Apart from answer-schema.ts
 * (which builds and compiles the schemas) because describing errors needs
 * no schema and no ajv, and the start, seed-value and tool checks use it
 * on errors of their own.
 */
import type { ErrorObject } from 'ajv';

/** How an error about the answer as a whole is labelled (its JSON pointer is the empty string). */
export const ROOT = '(root)';

/**
 * The JSON pointer of what an ajv error is about: an extra property at its
 * own pointer (the offending field), anything else at ajv's instancePath.
 */
export function errorPointer(e: ErrorObject): string {
  if (e.keyword !== 'additionalProperties') return e.instancePath;
  const key = String((e.params as { additionalProperty?: unknown }).additionalProperty);
  return `${e.instancePath}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Error lines kept for one rejected answer: each is stored, journaled and returned, so an answer with 60,000 stray keys must not make 60,000 of them. */
export const MAX_ERROR_LINES = 100;
/** Characters kept of one error line (a property name may be long). */
const MAX_ERROR_LINE_CHARS = 500;

/** ajv errors as the `pointer: message` lines an agent reads. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  if (!errors) return [];
  return capErrorLines(allErrorLines(errors));
}

/** At most MAX_ERROR_LINES lines of at most MAX_ERROR_LINE_CHARS, then how many more (idempotent: a capped list comes back as it is). */
export function capErrorLines(lines: readonly string[]): string[] {
  const more = lines.length > MAX_ERROR_LINES + 1 || (lines.length === MAX_ERROR_LINES + 1 && !MORE_LINE.test(lines[MAX_ERROR_LINES]));
  const kept = (more ? lines.slice(0, MAX_ERROR_LINES) : [...lines]).map((l) => (l.length > MAX_ERROR_LINE_CHARS && !(l.length <= MAX_ERROR_LINE_CHARS + 1 && l.endsWith('…')) ? `${cutAt(l, MAX_ERROR_LINE_CHARS)}…` : l));
  if (more) kept.push(`${ROOT}: and ${lines.length - MAX_ERROR_LINES} more errors (only the first ${MAX_ERROR_LINES} are listed): fix these and answer again`);
  return kept;
}

/** The first `n` UTF-16 units of `text`, one fewer when the n-th would split a surrogate pair (never half a character). */
function cutAt(text: string, n: number): string {
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

const MORE_LINE = /^\(root\): and \d+ more errors \(only the first \d+ are listed\)/;

/**
 * Keywords whose subschema's errors are alternatives, not faults: a value
 * fitting any one anyOf/oneOf branch, or a list with any one item fitting
 * `contains`, would do. What the alternatives say is one fault, of the
 * value the choice describes.
 */
const CHOICES: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'contains']);

const isAlternativeOf = (e: ErrorObject, c: ErrorObject) =>
  c !== e && e.schemaPath.startsWith(`${c.schemaPath}/`) && (e.instancePath === c.instancePath || e.instancePath.startsWith(`${c.instancePath}/`));

/** The failed choices (anyOf, oneOf, contains) among ajv's errors: what choiceOf looks in. */
export function failedChoices(errors: readonly ErrorObject[]): ErrorObject[] {
  return errors.filter((c) => CHOICES.has(c.keyword));
}

/**
 * The outermost of `choices` (failedChoices of the same errors) that `e`
 * is an alternative of; undefined when `e` is a fault of its own. Branches
 * reached through a $ref carry the $ref's schemaPath and keep their own place.
 */
export function choiceOf(e: ErrorObject, choices: readonly ErrorObject[]): ErrorObject | undefined {
  let outer: ErrorObject | undefined;
  for (const c of choices) {
    if (isAlternativeOf(e, c) && (!outer || c.schemaPath.length < outer.schemaPath.length)) outer = c;
  }
  return outer;
}

/** Distinct messages of what no item fitting `contains` said, kept in a line. */
const MAX_CONTAINS_REASONS = 3;

function allErrorLines(errors: ErrorObject[]): string[] {
  // A failed `contains` is one line at the list: what each item said under it
  // is why none fits (kept in that line), never "/0: must be …" as if every item had to.
  const containers = errors.filter((e) => e.keyword === 'contains');
  const reasons = new Map<ErrorObject, Set<string>>();
  const folded = new Set<ErrorObject>();
  if (containers.length > 0) {
    for (const e of errors) {
      const c = containers.find((k) => isAlternativeOf(e, k));
      if (!c) continue;
      folded.add(e);
      if (e.keyword === 'contains' || CHOICES.has(e.keyword)) continue;
      if (!reasons.has(c)) reasons.set(c, new Set());
      reasons.get(c)!.add(e.message ?? `fails "${e.keyword}"`);
    }
  }
  // One line per fault: a global's declared type and the node's own (an allOf
  // of both) would otherwise say "/n: must be integer" twice.
  return [...new Set(errors.filter((e) => !folded.has(e)).map((e) => {
    // `/` would be the JSON pointer of a property named "": the whole answer is `(root)`.
    const at = errorPointer(e) || ROOT;
    const p = e.params as Record<string, unknown>;
    if (e.keyword === 'additionalProperties') {
      return `${at}: property "${String(p.additionalProperty)}" is not allowed here`;
    }
    if (e.keyword === 'enum') {
      return `${at}: must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    }
    if (e.keyword === 'required') {
      return `${at}: missing required property "${String(p.missingProperty)}"`;
    }
    if (e.keyword === 'contains') {
      const why = [...(reasons.get(e) ?? [])];
      const shown = why.slice(0, MAX_CONTAINS_REASONS).join(', ') + (why.length > MAX_CONTAINS_REASONS ? ', …' : '');
      return `${at}: ${e.message ?? 'must contain a valid item'}${why.length ? ` (no item does: ${shown})` : ''}`;
    }
    if (e.keyword === 'maxProperties' && p.limit === 0) {
      return `${at}: this step takes no answer fields; answer {}`;
    }
    return `${at}: ${e.message ?? e.keyword}`;
  }))];
}
