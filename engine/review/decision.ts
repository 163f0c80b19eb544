/**
 * Reading the reviewer's reply (§4.1, §4.3, D2–D8). The first non-blank
 * line alone decides, and only an exact "Decision: approve" approves:
 * anything else, including a hedge, the echoed template or an empty reply,
 * is a reject (C8, C10). The other fields are read from the reply's
 * sections for the ledger row and never change the decision: the gate does
 * not count ✓ lines (D8, §4.2).
 */

export interface ReviewGateLine {
  passed: boolean;
  /** The line after its ✓/✗ mark, trimmed. */
  text: string;
}

export interface ParsedDecision {
  decision: 'approve' | 'reject';
  /** The ✓/✗ lines of the Gates section, in order. */
  gates: ReviewGateLine[];
  /** The first `SOP-<n>` on a passed (✓) line of the Gates section. */
  sop_id: string | null;
  /** The text after `Rollback:` on a passed (✓) gate line; a failed one says the rollback is not known. */
  rollback: string | null;
  /** The texts of the ✗ lines; null when there are none. */
  missing_gates: string[] | null;
  /** The Notes section as one line, else the first ✗ line's text. */
  reason: string | null;
}

/**
 * The decision line: markdown emphasis (`**`, `__`, backticks) may sit only
 * between its words (`**Decision:** approve`, `` `Decision: approve` ``),
 * never inside one: `Decision: ap_prove` is no approval.
 */
const MARK = '[*_`]*';
// White space only after the colon (as "Decision: approve" has it): "Decision : approve" stays a near miss.
// A final "." inside the emphasis or after it: "**Decision: approve.**" and "**Decision: approve**." alike.
const APPROVE = new RegExp(`^${MARK}decision${MARK}:[*_\`\\s]*approve(?:\\.${MARK}|${MARK}\\.?)$`, 'i');
const REJECT = new RegExp(`^${MARK}decision${MARK}:[*_\`\\s]*reject(?:\\.${MARK}|${MARK}\\.?)$`, 'i');

/**
 * Why a reply is a reject when it names no reason (no Notes, no ✗ line with text):
 * the reviewer's own "Decision: reject", or a first line that is no
 * decision at all (garbled, hedged, empty), which an audit must tell apart.
 */
export function unexplainedReject(reply: string): string {
  const first = lines(typeof reply === 'string' ? reply : '').find((line) => line.trim() !== '');
  return first !== undefined && REJECT.test(first.trim())
    ? 'the reviewer rejected without giving a reason (no Notes, no ✗ line with text)'
    : 'the reply does not open with "Decision: approve"';
}

/** Whether the first non-blank line is exactly "Decision: approve", give or take emphasis between its words and white space around it. */
export function decisionOf(reply: string): 'approve' | 'reject' {
  const first = lines(reply).find((line) => line.trim() !== '');
  if (first === undefined) return 'reject';
  return APPROVE.test(first.trim()) ? 'approve' : 'reject';
}

export function parseDecision(reply: string): ParsedDecision {
  // A reply that is not text (a host bug) fails closed, as an empty one does.
  const text = typeof reply === 'string' ? reply : '';
  const { gates, notes } = sections(text);
  // A bare "- ✗" names nothing: it is no missing gate and no reason (the fallback reason then says so).
  const failed = gates.filter((g) => !g.passed && g.text !== '').map((g) => g.text);
  // The SOP the call follows is named on a passed gate; one on a failed line is one that does not apply.
  const sop = gates.filter((g) => g.passed).map((g) => /\bSOP-\d+\b/.exec(g.text)?.[0]).find((id) => id !== undefined);
  const rollback = gates
    .filter((g) => g.passed)
    .map((g) => ROLLBACK.exec(g.text)?.[1])
    .find((text) => text !== undefined && text !== '');
  const noteText = notes.join(' ').trim();
  return {
    decision: decisionOf(text),
    gates,
    sop_id: sop ?? null,
    rollback: rollback === undefined ? null : unquote(rollback),
    missing_gates: failed.length > 0 ? failed : null,
    reason: noteText !== '' ? noteText : failed[0] ?? null,
  };
}

const ROLLBACK = /^[*_]*rollback[*_]*\s*:[*_]*\s*(.*?)\s*$/i;
// ✓ ✔ ✅ ✗ ✘ ❌, escaped: the CLI bundle is kept ASCII.
// A gate line is a bullet or a numbered item ("- ✗ …", "2. ✗ …", "2) ✗ …").
const GATE_LINE = /^\s*(?:[-*+]|\d{1,9}[.)])\s+(\u2713|\u2714|\u2705|\u2717|\u2718|\u274C)\uFE0F?\s*(.*?)\s*$/u;
const PASSED = new Set(['✓', '✔', '✅']);
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)[\s#]*$/;
const BOLD_LINE = /^\s*(\*\*|__)(.+?)\1\s*:?\s*$/;
const INLINE_LABEL = /^\s*(?:\*\*|__)?(gates|notes)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*)$/i;

/**
 * The first Gates and Notes sections. A section starts at a heading line
 * (`## Gates`) or a line that is bold as a whole (`**Gates**`) and runs to
 * the next such line; any other section (a team's own checklist, F12) is
 * skipped.
 */
function sections(reply: string): { gates: ReviewGateLine[]; notes: string[] } {
  const gates: ReviewGateLine[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  let current: string | undefined;
  for (const line of lines(reply)) {
    const title = sectionTitle(line);
    if (title !== undefined) {
      current = seen.has(title) ? undefined : title;
      seen.add(title);
      continue;
    }
    // A label with its text on the same line: "**Notes:** text", "Notes: text".
    const inline = INLINE_LABEL.exec(line);
    // A label of a section already under way or already read is text, not a
    // section: "Notes: …" under a Notes heading, "Gates: all five checked"
    // in the Notes. Only a section's first label opens it.
    if (inline && !seen.has(inline[1].toLowerCase())) {
      const label = inline[1].toLowerCase();
      current = label;
      seen.add(label);
      if (current === 'notes' && inline[2].trim() !== '') notes.push(inline[2].trim());
      continue;
    }
    if (inline && current === 'notes') {
      const text = inline[1].toLowerCase() === 'notes' ? inline[2].trim() : line.trim();
      if (text !== '') notes.push(text);
      continue;
    }
    if (current === 'gates') {
      const gate = GATE_LINE.exec(line);
      if (gate) gates.push({ passed: PASSED.has(gate[1]), text: gate[2] });
    } else if (current === 'notes' && line.trim() !== '') {
      notes.push(line.trim().replace(/^(?:[-*+]|\d{1,9}[.)])\s+/, ''));
    }
  }
  return { gates, notes };
}

function sectionTitle(line: string): string | undefined {
  const title = HEADING.exec(line)?.[1] ?? BOLD_LINE.exec(line)?.[2];
  return title?.replace(/[*_`]/g, '').replace(/:\s*$/, '').trim().toLowerCase();
}

function lines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** `` `systemctl start nginx` `` → `systemctl start nginx`. */
function unquote(text: string): string {
  const quoted = /^(`+)([^`]+)\1$/.exec(text);
  return quoted ? quoted[2].trim() : text;
}
