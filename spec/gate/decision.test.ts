/**
 * Reading the reviewer's reply (seed D2–D8, C8, C10, F12, §4.1–4.3): the
 * first non-blank line alone decides, only an exact "Decision: approve"
 * approves, and the row fields come from the Gates and Notes sections.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseDecision } from '../../engine/review/decision.js';

/** The seed's reply template (000 L120–129) with approve filled in. */
const SEED_APPROVE = [
  '**Decision: approve**',
  '',
  '**Gates**',
  '- ✓ SOP-007 covers restart nginx',
  '- ✓ node-01 status online; last mutating 17min ago',
  '- ✓ No parallel operation',
  '- ✓ Rollback: `systemctl start nginx`',
  '',
  '**Notes**',
  'nginx restarts drop in-flight requests for a few seconds.',
].join('\n');

const REJECT = [
  '**Decision: reject**',
  '',
  '**Gates**',
  '- ✓ SOP-007 covers restart nginx',
  '- ✗ node-01 is in a restart loop (3 restarts in 10 min)',
  '- ✗ parallel operation detected; wait for restart of nginx by user_7 to complete',
  '- ✓ Rollback: `systemctl start nginx`',
  '',
  '**Notes**',
  'node-01 is flapping and another restart is running.',
  'Wait for it to settle.',
].join('\n');

const First = suite('§4.1 the decision line');

First('D2/D3/D4: the seed template filled with approve is an approve', () => {
  assert.is(parseDecision(SEED_APPROVE).decision, 'approve');
});

const APPROVES = [
  'Decision: approve',
  'decision: approve',
  'DECISION: APPROVE',
  'Decision:approve',
  'Decision:\tapprove',
  'Decision: approve.',
  '**Decision: approve**',
  '**Decision: approve.**',
  '__Decision: approve__',
  '**Decision:** approve',
  '`Decision: approve`',
  '   **Decision: Approve**   ',
];

for (const line of APPROVES) {
  First(`D5: ${JSON.stringify(line)} approves`, () => {
    assert.is(parseDecision(`${line}\n\n**Gates**\n- ✓ SOP-1 x`).decision, 'approve');
  });
}

First('D6: blank lines before the decision line are skipped (spaces, tabs, CRLF)', () => {
  assert.is(parseDecision('\n\n   \n\t\r\n**Decision: approve**\r\n\r\n**Gates**').decision, 'approve');
});

First('D6: a decision on line 2 is a reject, even when line 1 is only a preamble', () => {
  assert.is(parseDecision('Here is my review.\n**Decision: approve**').decision, 'reject');
  assert.is(parseDecision('**Review**\n**Decision: approve**').decision, 'reject');
});

const NEAR_MISSES = [
  'Decision: approve with caveats',
  '**Decision: approve | reject**',
  'Decision: approve | reject',
  'Decision: approve/reject',
  'Decision: approved',
  'Decision: approve!',
  'Decision: approve?',
  'Decision: approve..',
  'Decision: approve (tentatively)',
  'Decision: approve, but watch the error rate',
  'Decision: probably approve',
  'Decision: not approve',
  'Decision: do not approve',
  'Decision: reject',
  'Decision: REJECT',
  'Decision - approve',
  'Decision approve',
  'Decision : approve',
  'Decision：approve',
  'Decision: approve ✓',
  'Decision: ap prove',
  'Decision: approve\u200b',
  '# Decision: approve',
  '> Decision: approve',
  '- Decision: approve',
  'Final decision: approve',
  'My decision: approve',
  'approve',
  'Approve.',
  'LGTM',
  'Decision:',
  '**Decision: TBD**',
  '**',
  // Markup inside a word is no emphasis around it: never an approval.
  'Decision: ap_prove',
  'Decision: a*p*p*r*o*v*e',
  'De`cision: approve',
  'Decision: appro**ve**',
];

First('D2/D7: emphasis between the decision line\'s words (or around it all) is markup, and the line still approves', () => {
  for (const line of ['**Decision: approve**', '**Decision:** approve', 'Decision: **approve**', '`Decision: approve`', '__Decision__: approve.', '*Decision: approve*']) {
    assert.is(parseDecision(line).decision, 'approve', line);
  }
});

for (const line of NEAR_MISSES) {
  First(`D7/C10: near miss ${JSON.stringify(line)} is a reject`, () => {
    assert.is(parseDecision(`${line}\n\n**Gates**\n- ✓ SOP-1 covers it\n- ✓ Rollback: undo`).decision, 'reject');
  });
}

First('C8: an empty, blank or malformed reply is a reject', () => {
  for (const reply of ['', '   ', '\n\n\n', '{"decision": "approve"}', '<approve/>']) assert.is(parseDecision(reply).decision, 'reject', JSON.stringify(reply));
  assert.is(parseDecision(undefined as unknown as string).decision, 'reject', 'a non-string reply fails closed');
});

First('C8: an empty reply has no gates and every field null', () => {
  assert.equal(parseDecision(''), { decision: 'reject', gates: [], sop_id: null, rollback: null, missing_gates: null, reason: null });
});

First.run();

const Gates = suite('D8/§4.2 the gate does not count ✓ lines');

Gates('D8: an approve whose gates include a ✗ line is still an approve (the reviewer\'s checklist is its own)', () => {
  const reply = SEED_APPROVE.replace('- ✓ No parallel operation', '- ✗ parallel operation detected; wait for X to complete');
  const parsed = parseDecision(reply);
  assert.is(parsed.decision, 'approve');
  assert.equal(parsed.missing_gates, ['parallel operation detected; wait for X to complete']);
});

Gates('D8: a reject whose gates are all ✓ is still a reject; no gates at all does not reject an approve', () => {
  assert.is(parseDecision(SEED_APPROVE.replace('approve**', 'reject**')).decision, 'reject');
  assert.is(parseDecision('**Decision: approve**').decision, 'approve');
});

Gates('F12: extra sections (team checklists) before and after the known ones change neither the decision nor the fields', () => {
  const extra = ['**PCI scope**', '- ✗ card data host: out of scope', 'SOP-999 applies to PCI hosts', '', '## Change freeze', '- ✓ no freeze this week', ''].join('\n');
  const base = parseDecision(REJECT);
  const withExtras = parseDecision(REJECT.replace('**Gates**', `${extra}\n**Gates**`).replace('**Notes**', `${extra}\n**Notes**`) + `\n\n${extra}`);
  assert.equal(withExtras, base);
  const approve = parseDecision(SEED_APPROVE + `\n\n${extra}`);
  assert.equal(approve, parseDecision(SEED_APPROVE));
});

Gates.run();

const Fields = suite('§4.3 the fields of the reply');

Fields('§4.3/D3: the seed template gives its gates, sop_id, rollback and the Notes as reason; no ✗ lines → missing_gates null', () => {
  assert.equal(parseDecision(SEED_APPROVE), {
    decision: 'approve',
    gates: [
      { passed: true, text: 'SOP-007 covers restart nginx' },
      { passed: true, text: 'node-01 status online; last mutating 17min ago' },
      { passed: true, text: 'No parallel operation' },
      { passed: true, text: 'Rollback: `systemctl start nginx`' },
    ],
    sop_id: 'SOP-007',
    rollback: 'systemctl start nginx',
    missing_gates: null,
    reason: 'nginx restarts drop in-flight requests for a few seconds.',
  });
});

Fields('§4.3/E5: a reject gives the ✗ line texts as missing_gates and the Notes (as one line) as reason', () => {
  const parsed = parseDecision(REJECT);
  assert.equal(parsed.missing_gates, ['node-01 is in a restart loop (3 restarts in 10 min)', 'parallel operation detected; wait for restart of nginx by user_7 to complete']);
  assert.is(parsed.reason, 'node-01 is flapping and another restart is running. Wait for it to settle.');
});

Fields('§4.3: without Notes the reason is the first ✗ line; without either it is null', () => {
  const noNotes = REJECT.slice(0, REJECT.indexOf('**Notes**'));
  assert.is(parseDecision(noNotes).reason, 'node-01 is in a restart loop (3 restarts in 10 min)');
  assert.is(parseDecision(REJECT.replace(/\n\*\*Notes\*\*\n[\s\S]*$/, '\n**Notes**\n\n')).reason, 'node-01 is in a restart loop (3 restarts in 10 min)');
  assert.is(parseDecision('**Decision: reject**\n\n**Gates**\n- ✓ SOP-1 covers it').reason, null);
});

Fields('C2/§4.3: "no SOP" leaves sop_id null; sop_id is the first SOP-<n> on a passed line of the Gates section only', () => {
  const noSop = parseDecision('**Decision: reject**\n\n**Gates**\n- ✗ no SOP for action host_restart_service\n\n**Notes**\nno SOP for action host_restart_service (see SOP-12 for a similar case)');
  assert.is(noSop.sop_id, null);
  assert.is(noSop.reason, 'no SOP for action host_restart_service (see SOP-12 for a similar case)');
  assert.equal(noSop.missing_gates, ['no SOP for action host_restart_service']);
  const two = parseDecision('Decision: approve\n**Notes**\nSOP-1\n**Gates**\n- ✓ node ok\n- ✓ SOP-42 and SOP-43 cover it\n- ✓ SOP-7');
  assert.is(two.sop_id, 'SOP-42');
  assert.is(parseDecision('Decision: approve\n**Gates**\n- ✓ SOP-0042x covers it').sop_id, null, 'SOP-<n> is a whole token');
  // An SOP named on a failed line is one that does not apply: never the row's sop_id.
  const notCovered = parseDecision('Decision: reject\n**Gates**\n- ✓ node ok\n- ✗ SOP-007 does not cover a restart during a migration');
  assert.is(notCovered.sop_id, null);
  assert.is(parseDecision('Decision: approve\n**Gates**\n- ✗ SOP-3 is for another service\n- ✓ SOP-9 covers it').sop_id, 'SOP-9');
});

Fields('§4.3/F3: rollback comes from a ✓ "Rollback:" gate line; a ✗ one means the rollback is not known', () => {
  assert.is(parseDecision('Decision: approve\n**Gates**\n- ✓ **Rollback:** restore the previous config').rollback, 'restore the previous config');
  assert.is(parseDecision('Decision: approve\n**Gates**\n- ✓ rollback: `kubectl rollout undo deploy/web`').rollback, 'kubectl rollout undo deploy/web');
  assert.is(parseDecision('Decision: reject\n**Gates**\n- ✗ Rollback: no known way to undo kill_process').rollback, null);
  assert.is(parseDecision('Decision: approve\n**Gates**\n- ✓ Rollback:').rollback, null);
  assert.is(parseDecision('Decision: approve\n**Notes**\nRollback: reboot').rollback, null, 'only gate lines count');
});

Fields('gate lines: ✓/✔/✅ pass, ✗/✘/❌ fail, any bullet; other lines of the section are not gates', () => {
  const parsed = parseDecision(['Decision: reject', '## Gates', '* ✔ a', '+ ✅ b', '- ✘ c', '- ❌ d', '- ✔️ e', 'a sentence', '- plain bullet', '-✓ no space after the bullet'].join('\n'));
  assert.equal(parsed.gates, [
    { passed: true, text: 'a' },
    { passed: true, text: 'b' },
    { passed: false, text: 'c' },
    { passed: false, text: 'd' },
    { passed: true, text: 'e' },
  ]);
  assert.equal(parsed.missing_gates, ['c', 'd']);
});

Fields('section titles: **Gates:**, __Gates__, "### Gates" and bullets in Notes are read; a second Gates section is ignored', () => {
  for (const title of ['**Gates:**', '**Gates**:', '__Gates__', '### Gates', '**GATES**']) {
    assert.equal(parseDecision(`Decision: approve\n${title}\n- ✓ SOP-3 fits`).sop_id, 'SOP-3', title);
  }
  assert.is(parseDecision('Decision: reject\n**Notes**\n- risk one\n- risk two').reason, 'risk one risk two');
  assert.equal(parseDecision('Decision: reject\n**Gates**\n- ✗ a\n**Notes**\nn\n**Gates**\n- ✗ b').missing_gates, ['a']);
});

Fields('§4.3: a Notes label with its text on the same line ("**Notes:** text", "Notes: text") is the reason, never "no reason given"', () => {
  assert.is(parseDecision('**Decision: reject**\n\n**Notes:** node-01 is offline').reason, 'node-01 is offline');
  assert.is(parseDecision('Decision: reject\nNotes: parallel operation detected').reason, 'parallel operation detected');
  assert.is(parseDecision('**Decision: reject**\n\n**Notes**: see the logs').reason, 'see the logs');
});

Fields('§4.3: gate lines in a numbered list are read as bullets are: a numbered ✗ "no SOP" line is the missing gate and the reason, a numbered ✓ line names the SOP', () => {
  const numbered = parseDecision('**Decision: reject**\n\n**Gates**\n1. ✓ SOP-007 covers restart\n2) ✗ no SOP for action host_restart_service\n\n**Notes**\n1. wait for the incident to close');
  assert.equal(numbered.gates, [{ passed: true, text: 'SOP-007 covers restart' }, { passed: false, text: 'no SOP for action host_restart_service' }]);
  assert.is(numbered.sop_id, 'SOP-007');
  assert.equal(numbered.missing_gates, ['no SOP for action host_restart_service']);
  assert.is(numbered.reason, 'wait for the incident to close');
  assert.is(parseDecision('Decision: reject\n## Gates\n3. ✗ node-01 is flapping').reason, 'node-01 is flapping');
});

Fields('§4.3: a bare "- ✗" with no text names no missing gate and is no reason: the reason stays null (never an empty string)', () => {
  const bare = parseDecision('**Decision: reject**\n\n**Gates**\n- ✗\n- ✗   \n');
  assert.equal(bare.gates, [{ passed: false, text: '' }, { passed: false, text: '' }]);
  assert.is(bare.missing_gates, null);
  assert.is(bare.reason, null);
  const mixed = parseDecision('**Decision: reject**\n\n**Gates**\n- ✗\n- ✗ node-01 is flapping');
  assert.equal([mixed.missing_gates, mixed.reason], [['node-01 is flapping'], 'node-01 is flapping']);
});

Fields('§4.3: a line in the Notes that starts with a label already read ("Gates: …", "Notes: …") is more of the Notes, never the end of them', () => {
  const approve = parseDecision('**Decision: approve**\n\n**Gates**\n- ✓ SOP-007 ok\n\n**Notes**\nLow risk.\nGates: all five were checked against live data.\nRestart drops requests for 2s.\n');
  assert.is(approve.reason, 'Low risk. Gates: all five were checked against live data. Restart drops requests for 2s.');
  const reject = parseDecision('**Decision: reject**\n\n**Gates**\n- ✗ no SOP\n\n**Notes**\nNotes: the device is offline.\nSecond line of notes.\n');
  assert.is(reject.reason, 'the device is offline. Second line of notes.');
  assert.equal(reject.missing_gates, ['no SOP']);
});

Fields('D2: a final "." after the closing emphasis approves as one inside it does ("**Decision: approve**."); two dots are no exact decision', () => {
  for (const line of ['**Decision: approve**.', '**Decision: approve.**', 'Decision: approve.']) assert.is(parseDecision(line).decision, 'approve', line);
  for (const line of ['Decision: approve..', '**Decision: approve**..']) assert.is(parseDecision(line).decision, 'reject', line);
});

Fields.run();
