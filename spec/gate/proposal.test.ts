/** The review proposal payload and its published schema (A23, A24, F2). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertProposal, BLAST_RADII, PROPOSAL_KEYS, validateProposal, type Proposal } from '../../engine/gate/proposal.js';
import { thrownWithCode } from '../helpers/errors.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const schema = JSON.parse(readFileSync(join(ROOT, 'schemas/proposal.schema.json'), 'utf8'));

/** The seed's example payload, verbatim (000 L40–49). */
const GOLDEN: Proposal = {
  action: 'host_restart_service',
  target: { device_id: 7, service: 'nginx' },
  reason: 'User reported 502; nginx error log shows OOM',
  blast_radius: 'single_device',
  operator: 'user_42',
  context_summary: "<coordinator's running summary of the conversation>",
};

const test = suite('proposal');

test('A23: the seed\'s golden payload is a valid proposal', () => {
  assert.equal(validateProposal(GOLDEN), []);
  assert.is(assertProposal(GOLDEN), GOLDEN);
});

test('A23: the schema requires exactly the seed\'s six keys; the F6 flag and its confirmation id are optional', () => {
  assert.equal([...schema.required].sort(), ['action', 'blast_radius', 'context_summary', 'operator', 'reason', 'target']);
  assert.equal(PROPOSAL_KEYS, Object.keys(schema.properties));
  assert.equal(validateProposal({ ...GOLDEN, force_approve_no_sop: true, confirmation_id: 'confirm-1' }), []);
  assert.equal(validateProposal({ ...GOLDEN, context_summary: '' }), [], 'an empty running summary is allowed');
});

test('A23: a missing key is named by its pointer, with a fix that shows an example value', () => {
  for (const key of schema.required as (keyof Proposal)[]) {
    const { [key]: _gone, ...rest } = GOLDEN;
    const problems = validateProposal(rest);
    assert.is(problems.length, 1, key);
    assert.is(problems[0].code, 'E_PROPOSAL');
    assert.is(problems[0].pointer, `/${key}`);
    assert.match(problems[0].message, `"${key}"`);
    assert.match(problems[0].fix, `"${key}"`);
  }
});

test('A24: blast_radius accepts single_device, cluster and tenant_wide, and nothing else', () => {
  assert.equal([...BLAST_RADII], ['single_device', 'cluster', 'tenant_wide']);
  assert.equal(schema.properties.blast_radius.enum, ['single_device', 'cluster', 'tenant_wide']);
  for (const radius of BLAST_RADII) assert.equal(validateProposal({ ...GOLDEN, blast_radius: radius }), [], radius);
  for (const bad of ['global', 'Single_Device', 'single-device', '', 3, null]) {
    const problems = validateProposal({ ...GOLDEN, blast_radius: bad });
    assert.is(problems.length, 1, String(bad));
    assert.is(problems[0].pointer, '/blast_radius');
    assert.match(problems[0].message, 'single_device, cluster, tenant_wide');
    assert.match(problems[0].fix, 'single_device, cluster, tenant_wide');
  }
});

test('F2: no key can skip the review: an admin-bypass flag is an unknown key, refused at its pointer', () => {
  assert.is(schema.additionalProperties, false);
  assert.not.ok(Object.keys(schema.properties).some((k) => /admin|skip|bypass|override/i.test(k)));
  for (const flag of ['admin_override', 'skip_review', 'is_admin', 'bypass']) {
    const problems = validateProposal({ ...GOLDEN, [flag]: true });
    assert.equal(problems.map((p) => p.pointer), [`/${flag}`]);
    assert.match(problems[0].message, `"${flag}" is not a proposal key`);
    assert.match(problems[0].fix, `remove "${flag}"`);
    assert.match(problems[0].fix, 'reviewed like anyone');
  }
});

test('F2: a misspelled optional key is refused with a did-you-mean, never silently ignored', () => {
  const problems = validateProposal({ ...GOLDEN, force_approve_no_sops: true });
  assert.is(problems[0].pointer, '/force_approve_no_sops');
  assert.match(problems[0].message, 'did you mean "force_approve_no_sop"?');
});

test('A23: wrong types and blank texts are named by pointer, in the proposal\'s key order', () => {
  const problems = validateProposal({ ...GOLDEN, target: [7, 'nginx'], reason: '   ', operator: 42, force_approve_no_sop: 'yes', extra: 1 });
  assert.equal(problems.map((p) => p.pointer), ['/target', '/reason', '/operator', '/force_approve_no_sop', '/extra']);
  assert.match(problems[0].message, '"target" must be an object, not an array');
  assert.match(problems[1].message, '"reason" must not be blank');
  assert.match(problems[2].message, '"operator" must be a string, not a number (42)');
  for (const p of problems) assert.ok(p.fix.length > 10, p.pointer);
});

test('a proposal that is not an object is one problem at the root pointer', () => {
  for (const v of [null, [], 'host_restart_service', 7]) {
    const problems = validateProposal(v);
    assert.equal(problems.map((p) => p.pointer), ['']);
    assert.match(problems[0].message, 'a proposal must be a JSON object');
  }
});

test('assertProposal throws E_PROPOSAL naming the first problem, with every problem in its data', () => {
  const e = thrownWithCode(() => assertProposal({ ...GOLDEN, blast_radius: 'global', admin_override: true }), 'E_PROPOSAL');
  assert.is(e.pointer, '/blast_radius');
  assert.match(e.message, 'invalid proposal: "blast_radius" must be one of');
  assert.match(e.message, '(and 1 more problem)');
  assert.equal((e.data as { pointer: string }[]).map((p) => p.pointer), ['/blast_radius', '/admin_override']);
});

test.run();
