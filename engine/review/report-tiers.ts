/**
 * Severity-tier headings in a Markdown review report (seed 003 G15: the
 * report is one flat list, every issue mandatory). A heading that names a
 * tier — "Major issues", "P1 (must fix)", "Priority: high", "Nits" — is
 * refused by the report reader; topic headings that merely start with such
 * a word ("Critical path", "Optional parameters") are not.
 */
// Tier words as reviewers write them: severities, MoSCoW-style "must/should fix", nits, and P0–P4 / SEV-1 (digits are stripped by tierLabel).
const TIER = '(?:blocking|blockers?|major|minor|critical|less critical|not critical|severe|urgent|showstoppers?|high|medium|moderate|low|important|less important|unimportant|(?:top|first|second|third) priority|secondary|required|recommended|nice to haves?|optional|must(?: fix| haves?)?|should(?: fix| haves?)?|could(?: fix| haves?)?|won\'?t(?: fix| haves?)?|nits?|nitpicks?|trivial|cosmetic|suggestions?|p|sev|priority|tier)';
/** Words for findings that a tier label may name ("P0 blockers", "High priority fixes"). */
const FINDINGS = '(?:issues?|findings?|problems?|concerns?|improvements?|suggestions?|changes?|fixes|items?|notes?|comments?|points?|remarks?|nits?|bugs?|defects?|errors?|blockers?|tasks?|todos?|things)';
/** A whole heading that names a severity tier, after normalising (see tierLabel). */
const TIER_LABEL = new RegExp(`^(?:severity(?: ${TIER})?|${TIER}(?: ?\\d+)?(?: (?:severity|priority))?)(?: ${FINDINGS})?$`);
/** A qualifier that is only a severity ("Follow-up (optional)", "Tests - minor"): the part before it is a tier. */
const TIER_QUALIFIER = /^(?:optional|minor|major|blocking|non[- ]?blocking|(?:not|less|non)[- ]?critical|critical|trivial|cosmetic|must[- ]fix|should[- ]fix|could[- ]fix|nice[- ]to[- ]have|nits?|(?:low|medium|moderate|high)(?:[- ]priority)?|p[0-4]|sev[- ]?[0-4])$/i;
/**
 * A heading that opens with an unambiguous severity word groups findings
 * by it, whatever follows ("Minor improvements", "Non-blocking", "Must fix
 * before merge", "Nits (optional)"). Words that also open ordinary
 * headings (low, high, medium) count only as a whole tier label above.
 */
const TIER_LEAD = new RegExp(
  // Words that are a tier whatever follows them.
  '^(?:non ?blocking|blockers?|nits?|nitpicks?|must fix|should fix|could fix|nice to have)(?![\\p{L}\\p{N}])'
  // Words that also open ordinary headings ("Optional parameters", "Major version bump"): a tier only before a word for findings.
  + '|^(?:(?:additional|other|remaining|more|further|some) )?(?:blocking|major|minor|critical|severe|urgent|moderate|important|small|big|optional|trivial|cosmetic|secondary|required|recommended) (?:issues?|findings?|problems?|concerns?|improvements?|suggestions?|changes?|fixes|items?|notes?|comments?|points?|remarks?|nits?|bugs?|defects?|errors?|things|stuff|bits)$'
  // Nits of any kind ("Style nits", "Doc nitpicks").
  + '|(?:^|\\s)(?<!\\b(?:on|about|regarding|re|for|of|with) )(?:nits?|nitpicks?)$'
  + '|^(?:major|minor|critical|optional|trivial|cosmetic) (?:nits?|issues?)(?: |$)'
  // Two tiers joined ("Minor / nits", "Major & minor").
  + '|^(?:major|minor|critical|optional|trivial|cosmetic) ?[/&+] ?',
  'u',
);

/**
 * Whether a heading names a severity tier: as a whole ("Major issues",
 * "P1"), or in its first part with a qualifier after it ("P1 (must fix)",
 * "Critical (P0)", "P2 - Medium", "[P1] issues"), or as a priority,
 * severity or tier with a level ("Priority: high"). A topic that only
 * starts with such a word ("Critical path", "High availability") is none.
 */
export function isTierHeading(label: string): boolean {
  const tier = (text: string): boolean => {
    const normal = tierLabel(text);
    return normal !== '' && (TIER_LABEL.test(normal) || TIER_LEAD.test(normal));
  };
  if (tier(label)) return true;
  // Words that name a tier wherever they stand in a heading ("Follow-ups (non-blocking)", "Not blocking").
  if (/(?:^|[\s(\[/-])(?:non[- ]?blocking|not blocking|non[- ]?critical|nice[- ]to[- ]haves?|lower[- ]priority|higher[- ]priority|(?<!\b(?:on|about|regarding|re|for|of|with) )(?:nits?|nitpicks?))(?=$|[\s)\]/:,.-])/i.test(label.replace(/[*_`]/g, ''))) return true;
  // [-\u2013\u2014] between spaces: a dash that separates parts, not one inside a word.
  const parts = label.replace(/[*_`]/g, '').split(/[()[\]:/|]|\s[-\u2013\u2014]\s/).map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length < 2) return false;
  if (tier(parts[0])) return true;
  if (parts.slice(1).some((part) => TIER_QUALIFIER.test(part))) return true;
  return /^(?:priority|severity|tier|level)$/i.test(parts[0]) && parts.slice(1).some(tier);
}

/**
 * "**Major issues (3):**" → "major issues": emphasis, trailing colon and
 * count removed, separators collapsed. What a heading is numbered or
 * decorated with does not change what it names: "1. Blocking", "IV)
 * Minor", "🔴 Blocking" and "> Blocking" are "blocking".
 */
function tierLabel(text: string): string {
  return text
    // An underscore between letters joins words ("must_fix"); elsewhere it is emphasis.
    .replace(/(?<=\p{L})_(?=\p{L})/gu, ' ')
    .replace(/[*_`]/g, '')
    .trim()
    .replace(/^[^\p{L}]+/u, '')
    .replace(/^(?:[ivx]+|[a-z])[.)]\s+/i, '')
    .replace(/[^\p{L}\p{N})]+$/u, '')
    // [-\u2013\u2014]: hyphen, en dash, em dash (escaped: the CLI bundle is kept ASCII).
    .replace(/\s*:?\s*(?:\(\s*\d+\s*\)|[-\u2013\u2014]?\s*\d+)?\s*:?\s*$/, '')
    .toLowerCase()
    .replace(/[\s:=-]+/g, ' ')
    .trim();
}

/** Whether text is only a severity ("high", "P2", "optional"): the value of a label such as "Priority: high". */
export function isTierQualifier(text: string): boolean {
  return TIER_QUALIFIER.test(text.replace(/[*_`.!]/g, '').trim());
}
