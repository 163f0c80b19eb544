/**
 * Static wording lints for a delegate-review node (issue 3 §7). They read
 * only the text the engine puts in front of the reviewer that the workflow
 * author wrote: `reviewer` and each `criteria[i]`. Directive text of
 * agent-directive nodes is never scanned.
 *
 * E_BIASED_REVIEW (seed 003 G36, G37, G38): words that tell the reviewer
 * what to conclude — improvement(s), improved, fixed, added — and phrases
 * about authorship or effort — "we made", "our work", "your work",
 * "hard work". Whole words, any case; a phrase matches across any
 * whitespace ("we\n made"). A loaded word that is the first part of a
 * hyphenated compound ("fixed-point", "fixed-width") is a different word
 * and passes.
 *
 * E_SEVERITY_TIER (G15): the report is a flat list, every issue mandatory.
 * Plain English uses "minor", "major" and "blocking" innocently ("handles
 * minor versions", "non-blocking I/O"), so the tier words are matched only
 * where they read as tiers:
 * - BLOCKING, MAJOR, MINOR written in capitals (whole word), except where
 *   `.` joins them to another word, as in the semver pattern
 *   "MAJOR.MINOR.PATCH", and BLOCKING in NON-BLOCKING (which reads like
 *   non-blocking);
 * - blocking, major, minor in any case when followed by `:` or by
 *   issue(s), finding(s), problem(s), defect(s), bug(s), severity, tier(s);
 * - Blocking, Major, Minor in title case inside a sentence (after a word,
 *   not after `.`/`:`), where they read as labels ("tag each finding as
 *   Blocking") — not before another capitalised word (a name such as
 *   "Minor Planet Center"), and with the same exceptions as a pair below;
 * - a tier word (blocking, non-blocking, major, minor) paired with another
 *   by "or", "and", "vs", `/` or a comma ("major or minor", "blocking or
 *   non-blocking", "major/minor", "Major, Minor or Trivial"), except:
 *   - when `.` joins either word of the pair to another word, as in
 *     "major.minor" and "major.minor.patch";
 *   - when the pair goes on to "patch" (through `/`, `.`, "and" or "or"),
 *     as in "major/minor/patch";
 *   - when the pair, or such a longer list of major, minor and patch,
 *     qualifies version(s), release(s), bump(s), update(s), upgrade(s),
 *     number(s) ("major and minor versions", "major/minor/patch version
 *     components") or I/O: read(s), write(s), call(s), mode(s), I/O, IO,
 *     socket(s), operation(s), API(s) ("blocking and non-blocking reads");
 * - severity, severities in any case (whole word);
 * - the other schemes a report's headings are refused for (report-markdown):
 *   nits, nitpicks, blockers; nice-to-have / should-fix (and must-fix
 *   beside them); P0–P4 paired or assigned; severity levels listed after a
 *   colon, "critical" beside another level, or a list said of findings.
 * One finding per occurrence, even when several of these rules match it,
 * and one per list: tier words joined into one list ("P0, P1 or P2",
 * "high or low", "BLOCKING, MAJOR or MINOR") are one scheme, reported once
 * at its first word and naming the whole list, however many of its words
 * the rules above match.
 * The advice fits the field: a role label is renamed, a criterion restated.
 */
import type { Finding } from '../nodes/node-type.js';

/** Letters, digits and `_` continue a word; anything else (space, `-`, `:`) ends it. */
const BEFORE = '(?<![\\p{L}\\p{N}_])';
const AFTER = '(?![\\p{L}\\p{N}_])';
/** Not the first part of a hyphenated compound ("fixed-point"). */
const NOT_COMPOUND = '(?!-[\\p{L}\\p{N}])';
/** Not joined by `.` to the word before or after ("MAJOR.MINOR.PATCH"). */
const NOT_DOTTED_BEFORE = '(?<![\\p{L}\\p{N}_]\\.)';
const NOT_DOTTED_AFTER = '(?!\\.[\\p{L}\\p{N}_])';

/** Which field the text came from: the advice differs for a role label and a criterion. */
type Field = 'reviewer' | 'criterion';

interface Rule {
  code: 'E_BIASED_REVIEW' | 'E_SEVERITY_TIER';
  pattern: RegExp;
  explain: (word: string, field: Field) => string;
  /** Only when no other rule of the same code found anything in the string (a last resort, never a second report). */
  fallback?: true;
}

const NAME_ROLE = 'name the role neutrally, e.g. "api reviewer"';

const PRESUPPOSES = (word: string, field: Field) =>
  `"${word}" presupposes a positive result: it tells the reviewer the change succeeded before they read the artifact (seed 003: no mention of "improved/added/fixed"); ${
    field === 'reviewer' ? NAME_ROLE : 'state what to check neutrally, e.g. "the parser meets the grammar in docs/grammar.md"'}`;

const SWAYS = (word: string, field: Field) =>
  `"${word}" points at who made the artifact or how much effort went into it, which sways the reviewer's judgement (seed 003: pass paths and criteria, never explanations of the work); ${
    field === 'reviewer' ? NAME_ROLE : 'state the criterion alone, e.g. "the report meets the template in docs/report.md"'}`;

const TIERS = (word: string, field: Field) =>
  `"${word}" introduces severity tiers, but a review returns a flat list in which every issue is mandatory and the loop passes only at issues_count 0 (seed 003: no BLOCKING / MAJOR / MINOR tiers); drop the tier and ${
    field === 'reviewer' ? NAME_ROLE : 'state the criterion itself, e.g. "every public function meets the naming rule"'}`;

const TIER_NOUNS = '(?:issues?|findings?|problems?|defects?|bugs?|severity|tiers?)';
const TIER_WORD = '(?:non-?blocking|blocking|non-?critical|critical|major|minor)';
/** What a tier word is paired with in a scheme: another tier word, or the lower tier it is set against ("blocking and advisory"). */
const PARTNER = '(?:non-?blocking|blocking|non-?critical|critical|major|minor|advisory|optional|cosmetic|trivial)';
/**
 * A list of plain words matched in any letter case by a rule compiled
 * without the `i` flag (one that tells capitals and title case apart):
 * "Major and Minor keys" reads as prose as "major and minor keys" does.
 */
const anyCase = (words: string): string => words.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
type Casing = (words: string) => string;
const asWritten: Casing = (words) => words;
const pairedWith = (w: Casing) => `(?:\\s*[/,]\\s*|,?\\s+(?:or|and|vs\\.?)\\s+)${w(PARTNER)}${AFTER}${NOT_DOTTED_AFTER}`;
const PAIRED_WITH = pairedWith(asWritten);
/** How a version list goes on after the pair: "/patch", ".patch", ", patch", " and patch", ", or patch". */
const LIST_JOIN = '(?:\\s*[/,]\\s*|\\.|,?\\s+(?:or|and)\\s+)';
const moreParts = (w: Casing) => `(?:${LIST_JOIN}${w('(?:major|minor|patch)')}${AFTER})*`;
const MORE_PARTS = moreParts(asWritten);
/**
 * Words a tier word is followed by when it labels findings: a finding noun,
 * a connective, or nothing. Any other word after it makes it ordinary prose
 * about that thing ("major and minor versions", "minor page faults",
 * "blocking and non-blocking queues", "critical sections").
 */
const TIER_CONTEXT = '(?:or|and|vs|if|when|where|unless|depending|based|according|for|to|in|by|per|as|first|last|then|above|below|otherwise|issues?|findings?|problems?|defects?|bugs?|ones?|items?|severity|severities|tiers?|priority|priorities|impact|changes?|comments?|categor(?:y|ies)|labels?|levels?|ratings?|class(?:es)?)';
/** A word after the tier that is none of those: the tier word describes something else. */
const proseNouns = (w: Casing) => `\\s+(?!${w(TIER_CONTEXT)}${AFTER})(?:[\\p{L}]|I/O)`;
const PROSE_NOUNS = proseNouns(asWritten);
/** "major/minor/patch": a version list, whatever follows. */
const notProse = (w: Casing) =>
  `(?!${pairedWith(w)}${moreParts(w)}${proseNouns(w)})(?!${pairedWith(w)}${moreParts(w)}${LIST_JOIN}${w('patch')}${AFTER})`;
const NOT_PROSE = notProse(asWritten);
/** For the rules that read capitals and title case (no `i` flag): prose in any case. */
const PROSE_NOUNS_ANY_CASE = proseNouns(anyCase);
const NOT_PROSE_ANY_CASE = notProse(anyCase);

/** Severity levels as a scheme names them, and how a list of them is joined. */
const LEVEL = '(?:critical|high|medium|moderate|low|major|minor|trivial|cosmetic)';
const LEVEL_JOIN = '(?:\\s*[/,]\\s*|,?\\s+(?:or|and|to)\\s+)';

/** Nouns "fixed" describes as a property, not a result: "a fixed seed", "a fixed size", "fixed costs". */
const PROPERTY_NOUNS = '(?:size|sizes|width|height|length|seed|point|number|rate|rates|interval|timeout|delay|position|format|order|value|values|price|cost|costs|port|window|header|footer|layout|string|amount|offset|budget|schedule|fee|term)';
/** A changelog's own category ("the Added section" in Keep a Changelog): "Added" in title case before these. */
const CHANGELOG_NOUNS = '(?:section|heading|entry|entries|category|list)';

let compiledRules: readonly Rule[] | undefined;
/** Built on first use: Unicode property classes (\p{L}) cost milliseconds to compile, and most commands never check wording. */
const rules = (): readonly Rule[] => (compiledRules ??= [
  { code: 'E_BIASED_REVIEW', pattern: new RegExp(`${BEFORE}(?:improvements?|improved)${AFTER}${NOT_COMPOUND}`, 'giu'), explain: PRESUPPOSES },
  // "fixed" as a property ("a fixed seed", "position: fixed") presupposes nothing.
  { code: 'E_BIASED_REVIEW', pattern: new RegExp(`${BEFORE}(?<!position:?\\s*)fixed${AFTER}${NOT_COMPOUND}(?!\\s+${PROPERTY_NOUNS}${AFTER})`, 'giu'), explain: PRESUPPOSES },
  // "added" always does, but for a changelog's category in title case ("the Added section").
  { code: 'E_BIASED_REVIEW', pattern: new RegExp(`${BEFORE}(?:added|ADDED|Added(?!\\s+${CHANGELOG_NOUNS}${AFTER}))${AFTER}${NOT_COMPOUND}`, 'gu'), explain: PRESUPPOSES },
  // "we made" in any tense or contraction: "we have made", "we've made", "we had made".
  { code: 'E_BIASED_REVIEW', pattern: new RegExp(`${BEFORE}(?:we(?:\\s+(?:have|had)|['’]ve|['’]d)?\\s+made|our\\s+work|your\\s+work|hard\\s+work)${AFTER}`, 'giu'), explain: SWAYS },
  // Capitals are a label whatever follows ("No MAJOR gaps", "BLOCKING sockets"): a literal mention goes in backticks.
  { code: 'E_SEVERITY_TIER', pattern: new RegExp(`${BEFORE}${NOT_DOTTED_BEFORE}(?<![Nn][Oo][Nn]-)(?:BLOCKING|MAJOR|MINOR|CRITICAL)${AFTER}${NOT_DOTTED_AFTER}`, 'gu'), explain: TIERS },
  {
    code: 'E_SEVERITY_TIER',
    pattern: new RegExp(`${BEFORE}(?<!non-)(?:blocking|major|minor|critical|cosmetic|trivial|(?:low|high|medium)[- ](?:priority|severity))(?=\\s*:|\\s+${TIER_NOUNS}${AFTER})`, 'giu'),
    explain: TIERS,
  },
  {
    code: 'E_SEVERITY_TIER',
    pattern: new RegExp(`${BEFORE}${NOT_DOTTED_BEFORE}${TIER_WORD}(?=${PAIRED_WITH})${NOT_PROSE}`, 'giu'),
    explain: TIERS,
  },
  {
    // Title case inside a sentence is a label, not prose ("tag it as Blocking");
    // at the start of a sentence it is just a capital ("Minor edits pass"),
    // and before another capitalised word it is part of a name ("Minor Planet Center").
    code: 'E_SEVERITY_TIER',
    pattern: new RegExp(`(?<=[\\p{L}\\p{N},;)]\\s+["'“‘]?)(?:Blocking|Major|Minor)${AFTER}${NOT_DOTTED_AFTER}${NOT_COMPOUND}(?!\\s+\\p{Lu}\\p{Ll})(?!${PROSE_NOUNS_ANY_CASE})${NOT_PROSE_ANY_CASE}`, 'gu'),
    explain: TIERS,
  },
  // Not a compound ("severity-free") nor one denied ("no severities").
  { code: 'E_SEVERITY_TIER', pattern: new RegExp(`${BEFORE}(?<!\\bno\\s+)(?:severity|severities)${AFTER}${NOT_COMPOUND}`, 'giu'), explain: TIERS },
  {
    // The tier as the head of a phrase, or said of findings: "the minor
    // ones", "report issues that are blocking." ("the bump is minor" is
    // about a version, not a finding.)
    code: 'E_SEVERITY_TIER',
    pattern: new RegExp(`(?<=\\bthe\\s+)(?:blocking|major|minor)(?=\\s+ones?\\b)|(?<=\\b(?:that|which|issues?|findings?|problems?|ones?)\\s+(?:are|is|be)\\s+)(?:blocking|major|minor)(?=\\s*(?:[.,;:!?)]|$))`, 'giu'),
    explain: TIERS,
  },
  // Review-speak that is a tier whatever surrounds it: nits, nitpicks, blockers.
  // Not a unit of brightness ("500 nits") nor an ad blocker.
  { code: 'E_SEVERITY_TIER', pattern: new RegExp(`${BEFORE}(?<!\\p{N}\\s*)(?:nits?|nit-?picks?)${AFTER}|${BEFORE}(?<!\\bad\\s+)blockers?${AFTER}`, 'giu'), explain: TIERS },
  // The lower tiers of a must-fix scheme; "must-fix" itself only beside one of them ("every finding is a must-fix" is G15's own rule).
  { code: 'E_SEVERITY_TIER', pattern: new RegExp(`${BEFORE}(?:nice[- ]to[- ]haves?|(?:should|could)[- ]fix(?:es)?)${AFTER}`, 'giu'), explain: TIERS },
  { code: 'E_SEVERITY_TIER', pattern: new RegExp(`${BEFORE}must[- ]fix(?:es)?${AFTER}(?=[\\s\\S]*${BEFORE}(?:nice[- ]to[- ]haves?|(?:should|could)[- ]fix(?:es)?|optional)${AFTER})`, 'giu'), explain: TIERS },
  // Priority levels in a list or pair: "P0, P1 or P2", "P1/P2".
  { code: 'E_SEVERITY_TIER', pattern: new RegExp(`${BEFORE}(?:P|[Ss]ev|SEV)[0-4](?=${LEVEL_JOIN}(?:P|[Ss]ev|SEV)[0-4]${AFTER})`, 'gu'), explain: TIERS },
  // Severity levels as a scheme: a list after a colon ("Rank findings: high, medium, low"),
  // "critical" beside another level, or a list said of findings. A list said
  // of something else stays prose ("high, medium and low contrast themes").
  {
    code: 'E_SEVERITY_TIER',
    pattern: new RegExp(`(?<=[:(]\\s*)${LEVEL}(?=${LEVEL_JOIN}${LEVEL}${AFTER}${NOT_COMPOUND})|${BEFORE}critical(?=${LEVEL_JOIN}${LEVEL}${AFTER}${NOT_COMPOUND})|${BEFORE}${LEVEL}(?=${LEVEL_JOIN}${LEVEL}${AFTER}(?:${LEVEL_JOIN}${LEVEL}${AFTER})?\\s+(?:issues?|findings?|problems?|defects?|bugs?|priority|priorities|severity|impact)${AFTER})`, 'giu'),
    explain: TIERS,
  },
  {
    // Lower case too when a verb of sorting assigns the tier: "mark cosmetic
    // findings as minor", "label a finding blocking when …". Reported at the
    // tier word, so a capitalised one found by the rules above is not counted twice.
    code: 'E_SEVERITY_TIER',
    fallback: true,
    // A version list or a tier word said of something else is prose here too ("tag releases as major, minor or patch").
    pattern: new RegExp(`(?<=\\b(?:[Mm]ark|[Ll]abel|[Tt]ag|[Cc]lassify|[Rr]ate|[Ff]lag|[Gg]rade|[Rr]ank)(?:s|ed|ing)?\\s+(?:[\\p{L}-]+[:,]?\\s+){0,4}?(?:as\\s+)?)(?:[Nn]on-?[Bb]locking|[Bb]locking|[Mm]ajor|[Mm]inor|[Cc]ritical|[Hh]igh|[Mm]edium|[Ll]ow|P[0-4]|[Ss]ev[0-4])${AFTER}${NOT_COMPOUND}${NOT_DOTTED_AFTER}(?!${PROSE_NOUNS})${NOT_PROSE}(?!${LIST_JOIN}(?:[\\p{L}]+${LIST_JOIN}){0,2}patch${AFTER})`, 'gu'),
    explain: TIERS,
  },
]);

/** Whether two offsets lie in one sentence: no full stop, question or exclamation mark, semicolon or line break between them. */
function sameSentence(text: string, a: number, b: number): boolean {
  return !/[.!?;\n]/.test(text.slice(Math.min(a, b), Math.max(a, b)));
}

/** Findings for one string, ordered by position; one per (code, offset). */
function scan(text: string, pointer: string, field: Field): Finding[] {
  const byKey = new Map<string, Finding>();
  const spans = new Map<string, { end: number; explain: Rule['explain'] }>();
  // Text in backticks is a literal mention (`Added`, `position: fixed`), not
  // wording aimed at the reviewer: blanked out, so offsets stay the same.
  const scanned = text.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length));
  for (const rule of rules()) {
    // A fallback finds what the rules above missed: in a sentence where they
    // already found a tier of this code ("major or minor": the pair), its
    // match is the same scheme again; in another sentence it is one of its own.
    const earlier = rule.fallback ? [...byKey.values()].filter((f) => f.code === rule.code).map((f) => f.offset ?? 0) : [];
    for (const match of scanned.matchAll(rule.pattern)) {
      const offset = match.index ?? 0;
      const key = `${rule.code}@${offset}`;
      if (byKey.has(key)) continue;
      if (earlier.some((at) => sameSentence(scanned, at, offset))) continue;
      byKey.set(key, { code: rule.code, message: '', pointer, severity: 'error', offset });
      spans.set(key, { end: offset + match[0].length, explain: rule.explain });
    }
  }
  const found = [...byKey.entries()].sort(([, a], [, b]) => (a.offset ?? 0) - (b.offset ?? 0));
  const out: Finding[] = [];
  let list: { finding: Finding; start: number; end: number; explain: Rule['explain'] } | undefined;
  for (const [key, finding] of found) {
    const start = finding.offset ?? 0;
    const { end, explain } = spans.get(key)!;
    // The next word of a list already reported (" or low", ", P1 or P2"): the same scheme, not another.
    if (list && finding.code === 'E_SEVERITY_TIER' && list.finding.code === 'E_SEVERITY_TIER' && ONE_LIST.test(scanned.slice(list.start, start))) {
      list.end = Math.max(list.end, end);
    } else {
      if (list) out.push(named(list, scanned, field));
      list = { finding, start, end, explain };
    }
  }
  if (list) out.push(named(list, scanned, field));
  return out;
}

/** What lies between the first word of a list and a later one: words joined by `/`, `,`, "or", "and", "vs", "to". */
const ONE_LIST = /^[\p{L}\p{N}_-]+(?:(?:\s*[/,]\s*|,?\s+(?:or|and|vs\.?|to)\s+)[\p{L}\p{N}_-]+)*(?:\s*[/,]\s*|,?\s+(?:or|and|vs\.?|to)\s+)$/iu;

/** The tier words that may follow in the same list. */
const LIST_REST = /^(?:(?:\s*[/,]\s*|,?\s+(?:or|and|vs\.?|to)\s+)(?:non-?blocking|blocking|non-?critical|critical|major|minor|advisory|optional|cosmetic|trivial|high|medium|moderate|low|P[0-4]|sev[0-4])(?![\p{L}\p{N}_-]))+/iu;

/** The finding's message, naming the words it covers ("high or low"). */
function named(list: { finding: Finding; start: number; end: number; explain: Rule['explain'] }, scanned: string, field: Field): Finding {
  // The list goes on past the last word a rule matched: "major or minor", "P0, P1 or P2".
  const rest = LIST_REST.exec(scanned.slice(list.end));
  const word = scanned.slice(list.start, list.end + (rest?.[0].length ?? 0)).replace(/\s+/g, ' ');
  return { ...list.finding, message: list.explain(word, field) };
}

/**
 * Wording findings for a delegate-review node at `pointer` (`/nodes/<i>`).
 * Fields of the wrong type are left to the schema check.
 */
export function wordingFindings(node: { reviewer?: unknown; criteria?: unknown }, pointer: string): Finding[] {
  const out: Finding[] = [];
  if (typeof node.reviewer === 'string') out.push(...scan(node.reviewer, `${pointer}/reviewer`, 'reviewer'));
  if (Array.isArray(node.criteria)) {
    node.criteria.forEach((criterion: unknown, i: number) => {
      if (typeof criterion === 'string') out.push(...scan(criterion, `${pointer}/criteria/${i}`, 'criterion'));
    });
  }
  return out;
}
