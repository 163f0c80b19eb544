/**
 * ajv's errors for a rejected value, as the `pointer: message` lines an
 * agent reads: one line per fault, the alternatives of a failed anyOf, oneOf
 * or contains folded into the choice they belong to, a key the schema
 * refuses at its own pointer, each keyword worded as what to change
 * (keyword-wording.ts) so one retry can fix the answer, an `if`'s own
 * "must match "then" schema" left out where the branch's faults are lines,
 * and the list capped so
 * a huge answer cannot make a huge rejection. Apart from answer-schema.ts
 * (which builds and compiles the schemas) because describing errors needs
 * no schema and no ajv, and the start, seed-value and tool checks use it
 * on errors of their own.
 */
import type { ErrorObject } from 'ajv';
import { KEYWORD_WORDING, wordingOf } from './keyword-wording.js';

/** How an error about the answer as a whole is labelled (its JSON pointer is the empty string). */
export const ROOT = '(root)';

/**
 * The JSON pointer of what an ajv error is about: an extra property, or a
 * key its object's propertyNames refuses, at its own pointer (the offending
 * key, `/o/extra`); anything else at ajv's instancePath.
 */
export function errorPointer(e: ErrorObject): string {
  const key = e.keyword === 'additionalProperties' ? String((e.params as { additionalProperty?: unknown }).additionalProperty) : refusedKeyOf(e);
  if (key === undefined) return e.instancePath;
  return `${e.instancePath}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * The key a propertyNames error is about: ajv puts it on the errors of the
 * propertyNames schema (`propertyName`) and in the params of its own
 * "property name must be valid".
 */
export function refusedKeyOf(e: ErrorObject): string | undefined {
  const own = (e as ErrorObject & { propertyName?: unknown }).propertyName;
  if (own !== undefined) return String(own);
  return e.keyword === 'propertyNames' ? String((e.params as { propertyName?: unknown }).propertyName) : undefined;
}

/** Error lines kept for one rejected answer: each is stored, journaled and returned, so an answer with 60,000 stray keys must not make 60,000 of them. */
export const MAX_ERROR_LINES = 100;
/** Characters kept of one error line (a property name may be long). */
const MAX_ERROR_LINE_CHARS = 500;

/** What the errors are about: `answer` when the whole value is a step's answer, whose root limits are the step's. */
export interface DescribeOptions {
  of?: 'answer';
}

/** ajv errors as the `pointer: message` lines an agent reads. */
export function describeErrors(errors: ErrorObject[] | null | undefined, options: DescribeOptions = {}): string[] {
  if (!errors) return [];
  return capErrorLines(allErrorLines(errors, options));
}

/** The first of the errors that is a line of its own (never an alternative of a choice, nor an error another line explains): what a single fix is about. */
export function leadingFault(errors: readonly ErrorObject[]): ErrorObject | undefined {
  return faultsOf(errors)[0];
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

/**
 * The errors that are lines of their own: not an alternative of a choice,
 * not propertyNames' own "property name must be valid" where the error
 * under it says why, not an `if`'s "must match "then" schema" (or a `false`
 * then/else under it) where the branch's own faults are lines.
 */
function faultsOf(errors: readonly ErrorObject[]): ErrorObject[] {
  const choices = failedChoices(errors);
  const explainedKeys = new Set(errors.filter((e) => e.keyword !== 'propertyNames').map(keyAt));
  return errors.filter((e) => !choiceOf(e, choices) && !(e.keyword === 'propertyNames' && explainedKeys.has(keyAt(e))) && !isExplainedCondition(e, errors));
}

/** An `if` whose failed branch has faults of its own, or a `false` then/else beside its `if` (whose line says what the condition wants). */
function isExplainedCondition(e: ErrorObject, errors: readonly ErrorObject[]): boolean {
  if (e.keyword === 'false schema') return /\/(then|else)\/false schema$/.test(e.schemaPath) && errors.some((c) => c.keyword === 'if' && c.instancePath === e.instancePath);
  if (e.keyword !== 'if') return false;
  const branch = `${e.schemaPath.slice(0, -'/if'.length)}/${String((e.params as { failingKeyword?: unknown }).failingKeyword)}/`;
  return errors.some((b) => b.schemaPath.startsWith(branch) && b.keyword !== 'false schema');
}

function allErrorLines(errors: readonly ErrorObject[], options: DescribeOptions = {}): string[] {
  // What a choice's alternatives said is one fault, of the value the choice
  // describes: "/v: must be string" and "/v: must be integer" as two lines
  // would ask for a value no answer can be. They are kept in the choice's line.
  const choices = failedChoices(errors);
  const alternatives = new Map<ErrorObject, ErrorObject[]>();
  for (const e of errors) {
    const c = choiceOf(e, choices);
    if (!c) continue;
    if (!alternatives.has(c)) alternatives.set(c, []);
    alternatives.get(c)!.push(e);
  }
  const faults = faultsOf(errors);
  // One line per fault: a global's declared type and the node's own (an allOf
  // of both) would otherwise say "/n: must be integer" twice.
  return [...new Set(faults.map((e) => {
    // `/` would be the JSON pointer of a property named "": the whole answer is `(root)`.
    const at = errorPointer(e) || ROOT;
    return `${at}: ${CHOICES.has(e.keyword) ? choiceMessage(e, alternatives.get(e) ?? [], options) : messageOf(e, options)}`;
  }))];
}

/** A refused key as "<object pointer> <key>", undefined for an error not about a key. */
function keyAt(e: ErrorObject): string | undefined {
  const key = refusedKeyOf(e);
  return key === undefined ? undefined : `${e.instancePath}\u0000${key}`;
}

/** What one (non-choice) error says is wrong, and what would be right: its keyword's wording (keyword-wording.ts). */
function messageOf(e: ErrorObject, options: DescribeOptions = {}): string {
  const key = refusedKeyOf(e);
  if (key !== undefined) {
    // The line is at the key: the rule is the key's name's, never the object's (`/o: must match pattern` read as if `o` were a string).
    const refused = e.keyword === 'propertyNames' || e.keyword === 'false schema';
    return `property name ${JSON.stringify(key)} ${refused ? 'is not allowed here' : wordingOf(e)}`;
  }
  // An answer's own root limit is the step's: a node without inputSchema takes `{}` (or null) only.
  if (options.of === 'answer' && e.keyword === 'maxProperties' && e.instancePath === '' && (e.params as { limit?: unknown }).limit === 0) {
    // The fields given are named (ajv's verbose errors carry the answer), so the agent sees what to drop.
    const data = (e as { data?: unknown }).data;
    const given = data !== null && typeof data === 'object' ? Object.keys(data).slice(0, 5) : [];
    const more = data !== null && typeof data === 'object' && Object.keys(data).length > 5 ? ', …' : '';
    return `this step takes no answer fields${given.length > 0 ? `, and got ${given.map((k) => JSON.stringify(k)).join(', ')}${more}` : ''}; answer {}`;
  }
  return wordingOf(e);
}

/**
 * A failed anyOf, oneOf or contains with what its alternatives said: the
 * types when each alternative only wanted another type, else each
 * alternative's faults (numbered from 1, as the schema lists them).
 * Alternatives reached through a $ref carry the $ref's schemaPath and are
 * lines of their own.
 */
function choiceMessage(c: ErrorObject, under: readonly ErrorObject[], options: DescribeOptions): string {
  if (c.keyword === 'contains') {
    // What each item said is why none fits, never "/0: must be …" as if every item had to.
    const why = [...new Set(under.filter((e) => !CHOICES.has(e.keyword)).map((e) => messageOf(e)))];
    const shown = why.slice(0, MAX_CONTAINS_REASONS).join(', ') + (why.length > MAX_CONTAINS_REASONS ? ', …' : '');
    // The item the list needs, from the contains schema: an empty list has no item to say why.
    return `${KEYWORD_WORDING.contains(c.params as Record<string, unknown>, c)}${why.length ? ` (no item does: ${shown})` : ''}`;
  }
  const passing = (c.params as { passingSchemas?: unknown }).passingSchemas;
  if (Array.isArray(passing)) {
    return `${wordingOf(c)}, but fits alternatives ${passing.map((i) => Number(i) + 1).join(' and ')}`;
  }
  const branches = new Map<number, ErrorObject[]>();
  for (const e of under) {
    const branch = Number(e.schemaPath.slice(c.schemaPath.length + 1).split('/')[0]);
    if (!branches.has(branch)) branches.set(branch, []);
    branches.get(branch)!.push(e);
  }
  if (branches.size === 0) return wordingOf(c);
  const wanted = [...branches.values()];
  if (wanted.every((b) => b.length === 1 && b[0].keyword === 'type' && b[0].instancePath === c.instancePath)) {
    const types = [...new Set(wanted.flatMap((b) => String((b[0].params as { type?: unknown }).type).split(',')))];
    return `must be ${types.join(' or ')} (it fits none of the ${c.keyword} alternatives)`;
  }
  const own = `${c.instancePath || ROOT}: `;
  const said = [...branches].map(([i, errs]) => `${i + 1}) ${allErrorLines(errs, options).map((l) => (l.startsWith(own) ? l.slice(own.length) : l)).join(', ')}`);
  return `${wordingOf(c)}; it fits none of the alternatives: ${said.join('; ')}`;
}
