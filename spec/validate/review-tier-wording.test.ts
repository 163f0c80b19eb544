/**
 * E_SEVERITY_TIER on tier labels written in title case or as a comma list
 * (issue 3 §7; seed 003 G15: no BLOCKING / MAJOR / MINOR tiers, every
 * issue mandatory), without flagging sentence-initial capitals, names or
 * version wording.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { wordingFindings } from '../../engine/review/wording.js';

const tiers = (criterion: string) =>
  wordingFindings({ criteria: [criterion] }, '/nodes/2').filter((f) => f.code === 'E_SEVERITY_TIER').map((f) => criterion.slice(f.offset, (f.offset ?? 0) + 8).split(/[\s,"]/)[0]);

const test = suite('review wording: tier labels in title case and comma lists');

test('G15: a comma list of tier words in title case sets up tiers, one finding per list: "Major, Minor or Trivial", "Blocking, Major or Cosmetic"', () => {
  assert.equal(tiers('Label each finding Major, Minor or Trivial'), ['Major']);
  assert.equal(tiers('Label each finding Blocking, Major or Cosmetic'), ['Blocking']);
  assert.equal(tiers('label each finding major, minor or trivial'), ['major']);
});

test('G15: comma lists with an Oxford comma or a word that is no tier in front are tiers too', () => {
  assert.equal(tiers('Label each finding Blocking, Major, or Minor'), ['Blocking']);
  assert.equal(tiers('Group issues as blocking, major, minor'), ['blocking']);
  assert.equal(tiers('group issues as major, or minor'), ['major']);
  assert.equal(tiers('Rank by Criticality: Blocker, Major, Minor'), ['Blocker']);
});

test('G15: a title-case tier word inside a sentence is a label: "as Blocking when it stops the release", "as \\"Minor\\""', () => {
  assert.equal(tiers('Tag each finding as Blocking when it stops the release'), ['Blocking']);
  assert.equal(tiers('Tag each finding as "Minor" when it is cosmetic'), ['Minor']);
});

test('G15: a capital at the start of a sentence, a name, a compound and version wording are not tiers', () => {
  for (const prose of [
    'Minor edits to prose are fine',
    'Every link works. Major sections have a summary',
    'The Minor Planet Center list is current',
    'Use Major.Minor.Patch versions',
    'Bump the Major version on breaking changes',
    'The changelog lists major, minor and patch versions',
    'Non-Blocking reads only',
  ]) assert.equal(tiers(prose), [], prose);
});

test('G15: the tier schemes a report check refuses are refused in criteria too: nits and blockers, must-fix beside nice-to-have, P0/P1/P2, a list of severity levels', () => {
  assert.equal(tiers('List blockers first, then nits'), ['blockers', 'nits']);
  assert.equal(tiers('Separate must-fix issues from nice-to-have ones'), ['must-fix', 'nice-to-']);
  assert.equal(tiers('Tag findings as P0, P1 or P2'), ['P0']);
  assert.equal(tiers('Rank each finding: critical, high, low'), ['critical']);
  assert.equal(tiers('Report high or low priority issues'), ['high']);
  assert.equal(tiers('Tag each finding P1'), ['P1']);
});

test('G15: the same words in prose are not tiers: one must-fix rule, levels said of something else, a P-number alone', () => {
  for (const prose of [
    'Every finding is a must-fix',
    'high and low values are both handled',
    'Handles high, medium and low contrast themes',
    'Low-level API docs are complete',
    'The critical path is documented',
    'pass P1 to the function',
  ]) assert.equal(tiers(prose), [], prose);
});

test('G15: prose about other things passes — a tier word followed by a word that is no finding noun or connective, a unit, an ad blocker, a version list after a sorting verb, non-blocking:', () => {
  for (const prose of [
    'The benchmark reports minor and major page faults per run',
    'major and minor device numbers are read from /proc/partitions',
    'The chart draws major and minor ticks on both axes',
    'Major and minor GC pauses stay under 10 ms',
    'The queue offers blocking and non-blocking queues',
    'Tests cover the critical and high-traffic endpoints',
    'Marking critical sections with a mutex is required',
    'The display reaches at least 500 nits of brightness',
    'The page works with ad blockers enabled',
    'Tag releases as major, minor or patch following semver',
    'The socket option non-blocking: true is set before connect',
    'Rate limiting protects major endpoints',
    'The ellipse exposes its major/minor axis lengths',
  ]) assert.equal(tiers(prose), [], prose);
});

test('G15: a tier a sorting verb assigns is found in its own sentence even when another sentence holds a capitalised tier: one finding per occurrence, all in one validate', () => {
  assert.equal(tiers('Mark style findings as minor. Report any MAJOR problem.'), ['minor.', 'MAJOR']);
});

test('G15: "critical and non-critical" is a tier pair without a sorting verb, as "blocking and non-blocking" is; critical sections and paths stay prose', () => {
  assert.equal(tiers('sort issues into critical and non-critical ones'), ['critical']);
  assert.equal(tiers('split findings into critical/non-critical'), ['critical']);
  for (const prose of ['Keep critical and non-critical sections apart', 'the critical and non-critical paths differ']) assert.equal(tiers(prose), [], prose);
});

test('G15: tiering said in other words is refused: blocking and advisory, a priority (high/medium/low), levels a sorting verb assigns, CRITICAL, Sev levels, must-fix and optional', () => {
  assert.equal(tiers('Split the findings into blocking and advisory'), ['blocking']);
  assert.equal(tiers('Assign each issue a priority (high/medium/low)'), ['high/med']);
  assert.equal(tiers('Mark each finding high or low'), ['high']);
  assert.equal(tiers('Flag anything Critical first'), ['Critical']);
  assert.equal(tiers('Prefix each finding with CRITICAL or WARNING'), ['CRITICAL']);
  assert.equal(tiers('Prefix each finding with Sev1, Sev2 or Sev3'), ['Sev1']);
  assert.equal(tiers('Split findings into must-fix and optional'), ['must-fix']);
});

test('text in backticks is a literal mention and never scanned: `Added`, `position: fixed`, `major:`', () => {
  const all = (criterion: string) => wordingFindings({ criteria: [criterion] }, '/nodes/2').map((f) => f.code);
  assert.equal(all('CHANGELOG.md groups entries under `Added` and `Fixed`'), []);
  assert.equal(all('The header uses `position: fixed`'), []);
  assert.equal(all('The version object has the keys `major:` and `minor:`'), []);
  assert.equal(all('CHANGELOG.md groups entries under Added and Fixed'), ['E_BIASED_REVIEW', 'E_BIASED_REVIEW']);
});

test('G15 G37: critical, cosmetic, trivial and low-priority issues are tiers; a fixed seed, position: fixed, an Added section, no severities and severity-free fields are not findings', () => {
  for (const [criterion, word] of [['report only critical issues', 'critical'], ['ignore cosmetic issues', 'cosmetic'], ['ignore trivial issues', 'trivial'], ['report low-priority issues separately', 'low-prio']] as const) {
    assert.equal(tiers(criterion), [word], criterion);
  }
  const all = (criterion: string) => wordingFindings({ criteria: [criterion] }, '/nodes/2').map((f) => f.code);
  for (const prose of ['Tests use a fixed seed', 'the buffer has a fixed size of 10', 'the header uses position: fixed', 'the changelog has an Added section', 'there are no severities', 'log records have severity-free fields']) {
    assert.equal(all(prose), [], prose);
  }
  assert.equal(all('verify the fixed parser'), ['E_BIASED_REVIEW']);
});

test('G15: one scheme is one finding whatever its words, naming the whole list: "major or minor", "high or low", "P0, P1 or P2", "BLOCKING, MAJOR or MINOR"', () => {
  const messages = (criterion: string) => wordingFindings({ criteria: [criterion] }, '/nodes/2').filter((f) => f.code === 'E_SEVERITY_TIER').map((f) => f.message.split('" ')[0] + '"');
  assert.equal(messages('rate each finding major or minor'), ['"major or minor"']);
  assert.equal(messages('rate each finding high or low'), ['"high or low"']);
  assert.equal(messages('classify findings into high and low'), ['"high and low"']);
  assert.equal(messages('rank findings P0, P1 or P2'), ['"P0, P1 or P2"']);
  assert.equal(messages('tag findings as BLOCKING, MAJOR or MINOR'), ['"BLOCKING, MAJOR or MINOR"']);
  assert.equal(messages('high, medium or low findings'), ['"high, medium or low"']);
  // Two mentions that are no one list stay two findings.
  assert.equal(messages('List blockers first, then nits'), ['"blockers"', '"nits"']);
  assert.equal(messages('Report BLOCKING issues and MAJOR refactors'), ['"BLOCKING"', '"MAJOR"']);
});

test.run();
