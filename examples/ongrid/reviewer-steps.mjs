// @ts-check
/**
 * The reviewer persona's five steps (agents/reviewer.md, seed 000 C1–C10),
 * as rules: which look-up each step makes, and how the results become the
 * reply. Pure functions, so the same proposal and the same fleet always give
 * the same reply. Steps 1–4 take one look-up each and step 5 is the reply,
 * five turns in all (max_turns: 5).
 */

export const LAST_MUTATION_MS = 5 * 60_000;
export const PARALLEL_WINDOW_MS = 10 * 60_000;

/**
 * Words in a reason, mapped to the symptoms an incident records.
 * @type {Array<[string, RegExp]>}
 */
const SYMPTOMS = [
  ['oom', /\b(oom|out of memory|memory)\b/i],
  ['http_5xx', /\b5\d\d(?!\d)|\b5xx\b|bad gateway/i],
  ['disk_full', /\bdisk\b|no space|\/var\b|\bfull\b|inode/i],
  ['cpu', /\bcpu\b|\bpinned\b|\bhung\b|\bstuck\b/i],
  ['crash', /crash|segfault|\bdown\b/i],
  ['latency', /latency|\bslow\b/i],
];

/**
 * @typedef {{action: string, target: Record<string, unknown>, reason: string, blast_radius: string,
 *   operator: string, context_summary: string, force_approve_no_sop?: boolean}} Proposal
 * @typedef {{step: string, tool: string, args: Record<string, unknown>} | {step: string, unavailable: string}} LookUp
 * @typedef {{result?: any, error?: {code: string, message: string}, unavailable?: string}} Looked
 * @typedef {{ok: boolean, text: string}} Gate
 * @typedef {{sop_id: string, covers: string[], rollback: string}} Sop
 */

/**
 * What the target is about: a service, a process, a skill; null for a whole device (a shell command).
 * @param {Record<string, unknown>} target
 * @returns {string | null}
 */
export function subjectOf(target) {
  for (const key of ['service', 'process', 'skill']) {
    const value = target[key];
    if (typeof value === 'string') return value;
  }
  return null;
}

/**
 * Steps 1–4: one look-up each, in order.
 * @param {Proposal} p
 * @returns {LookUp[]}
 */
export function lookUps(p) {
  const device = p.target.device_id;
  const onDevice = Number.isInteger(device);
  const subject = subjectOf(p.target);
  const incident = /\bINC-\d+\b/.exec(`${p.reason}\n${p.context_summary}`)?.[0];
  return [
    { step: 'sop', tool: 'get_sop_text', args: { action: p.action } },
    onDevice ? { step: 'target_state', tool: 'get_edge_summary', args: { device_id: device } } : { step: 'target_state', unavailable: 'the target names no device' },
    onDevice
      ? { step: 'no_parallel', tool: 'query_logql', args: { query: `{job="audit", device_id="${device}"}${subject ? ` |= "${subject}"` : ''}`, range: '10m' } }
      : { step: 'no_parallel', unavailable: 'the target names no device' },
    incident
      ? { step: 'reason_matches_alerts', tool: 'get_incident_detail', args: { incident_id: incident } }
      : onDevice
        ? { step: 'reason_matches_alerts', tool: 'get_incident_detail', args: { device_id: device } }
        : { step: 'reason_matches_alerts', unavailable: 'neither an incident nor a device is named' },
  ];
}

/**
 * Step 5: the reply, in the seed's format (D2–D4).
 * @param {Proposal} p
 * @param {Record<string, Looked>} looked by step
 * @returns {string}
 */
export function reply(p, looked) {
  const edge = looked.target_state?.result;
  const device = edge?.name ?? (Number.isInteger(p.target.device_id) ? `device ${p.target.device_id}` : 'the target');
  const sop = coveringSop(p, looked.sop);
  const rollback = sop?.rollback ?? inverseOf(p.action, p.target);
  const gates = [
    sopGate(p, looked.sop, sop, edge, device),
    stateGate(looked.target_state, device),
    parallelGate(looked.no_parallel, device),
    reasonGate(p, looked.reason_matches_alerts, device),
    rollback ? pass(`Rollback: \`${rollback}\``) : fail(`rollback path unknown: no SOP and no plain inverse of ${p.action}`),
  ];
  const failed = gates.filter((g) => !g.ok);
  const approve = failed.length === 0;
  const reach = { single_device: `only ${device}`, cluster: 'a whole cluster', tenant_wide: 'every device of the tenant' }[p.blast_radius] ?? p.blast_radius;
  const notes = approve
    ? `Blast radius ${p.blast_radius}: ${p.action} touches ${reach}; if it misbehaves, roll back with \`${rollback}\`.`
    : failed[0].text;
  return [
    `**Decision: ${approve ? 'approve' : 'reject'}**`,
    '',
    '**Gates**',
    ...gates.map((g) => `- ${g.ok ? '✓' : '✗'} ${g.text}`),
    '',
    '**Notes**',
    notes,
  ].join('\n');
}

/** @param {string} text @returns {Gate} */
function pass(text) {
  return { ok: true, text };
}
/** @param {string} text @returns {Gate} */
function fail(text) {
  return { ok: false, text };
}

/**
 * The SOP that explicitly covers this action on this subject, or null (an SOP that does not cover the scenario is no SOP).
 * @param {Proposal} p @param {Looked | undefined} looked @returns {Sop | null}
 */
function coveringSop(p, looked) {
  const subject = subjectOf(p.target);
  const sops = looked?.result?.sops;
  if (!Array.isArray(sops) || subject === null) return null;
  return sops.find((s) => Array.isArray(s.covers) && s.covers.includes(subject)) ?? null;
}

/**
 * The plain inverse of an action, when there is one (a stopped service is started again).
 * @param {string} action @param {Record<string, unknown>} target @returns {string | null}
 */
function inverseOf(action, target) {
  if (action === 'host_restart_service' && typeof target.service === 'string') return `systemctl start ${target.service}`;
  if (action === 'kill_process' && typeof target.process === 'string') return `systemctl start ${target.process}`;
  return null;
}

// Step 1 (gate sop). A failing line never names an SOP id: the ledger takes
// the first SOP-<n> of the Gates as the row's sop_id.
/** @param {Proposal} p @param {Looked | undefined} looked @param {Sop | null} sop @param {any} edge @param {string} device @returns {Gate} */
function sopGate(p, looked, sop, edge, device) {
  if (!looked?.result) return fail(`SOP look-up failed (${why(looked)}); no SOP for action ${p.action} can be confirmed`);
  const subject = subjectOf(p.target);
  if (sop) return pass(`${sop.sop_id} covers ${p.action} of ${subject}`);
  const what = `no SOP for action ${p.action}${subject ? ` covering ${subject}` : ''}`;
  const production = Array.isArray(edge?.tags) && edge.tags.includes('production');
  if (p.force_approve_no_sop === true) {
    if (p.blast_radius !== 'single_device') return fail(`${what}; force_approve_no_sop does not stretch to a ${p.blast_radius} action`);
    return pass(`${what}; force_approve_no_sop: true, confirmed by the user${production ? ` (${device} is tagged production)` : ''}`);
  }
  return fail(production ? `${what}; ${device} is tagged production and needs a user-confirmed force_approve_no_sop` : what);
}

// Step 2 (gate target_state).
/** @param {Looked | undefined} looked @param {string} device @returns {Gate} */
function stateGate(looked, device) {
  if (!looked?.result) return fail(`${device} state unknown: ${why(looked)}`);
  const e = looked.result;
  if (e.status !== 'online') return fail(`${e.name} is ${e.status} (last seen ${ago(e.as_of, e.last_seen)} ago)`);
  if (e.restart_loop) return fail(`${e.name} is in a restart loop (${e.restarts_last_hour} restarts in the last hour)`);
  const last = e.last_mutating;
  if (last && age(e.as_of, last.at) < LAST_MUTATION_MS) {
    return fail(`${e.name} had a mutating action ${ago(e.as_of, last.at)} ago (${last.action} ${last.subject} by ${last.actor}); wait until 5min have passed`);
  }
  return pass(`${e.name} status online; ${last ? `last mutating ${ago(e.as_of, last.at)} ago` : 'no mutating action on record'}`);
}

// Step 3 (gate no_parallel).
/** @param {Looked | undefined} looked @param {string} device @returns {Gate} */
function parallelGate(looked, device) {
  if (!looked?.result) return fail(`parallel operations unknown: ${why(looked)}`);
  const { as_of: asOf, entries } = looked.result;
  const recent = entries.filter((/** @type {{ts: string}} */ x) => age(asOf, x.ts) < PARALLEL_WINDOW_MS);
  if (recent.length > 0) {
    const x = recent[recent.length - 1].labels;
    return fail(`parallel operation detected; wait for ${x.action} of ${x.subject} by ${x.actor} to complete`);
  }
  return pass(`No parallel operation on ${device} in the last 10min`);
}

// Step 4 (gate reason_matches_alerts).
/** @param {Proposal} p @param {Looked | undefined} looked @param {string} device @returns {Gate} */
function reasonGate(p, looked, device) {
  const misread = 'operator may have misread the symptom';
  if (!looked?.result) return fail(`${misread}: the incident look-up failed (${why(looked)})`);
  const incident = looked.result.incidents[0];
  if (!incident) return fail(`${misread}: no open incident confirms the reason`);
  if (incident.device_id !== p.target.device_id) return fail(`${misread}: incident ${incident.incident_id} is on ${incident.device}, not ${device}`);
  const claimed = SYMPTOMS.filter(([, re]) => re.test(p.reason)).map(([name]) => name);
  if (claimed.length === 0) return fail(`${misread}: the reason names no symptom incident ${incident.incident_id} could confirm`);
  if (!claimed.some((s) => incident.symptoms.includes(s))) {
    return fail(`${misread}: the reason says ${claimed.join(', ')}, incident ${incident.incident_id} reports ${incident.symptoms.join(', ')} (${incident.title})`);
  }
  return pass(`Reason matches incident ${incident.incident_id}: ${incident.title}`);
}

/**
 * Why a look-up gave no result: it failed, or it could not be made.
 * @param {Looked | undefined} looked
 */
function why(looked) {
  return looked?.error ? `${looked.error.code}: ${looked.error.message}` : (looked?.unavailable ?? 'it was not made');
}

/** @param {string} asOf @param {string} at */
function age(asOf, at) {
  return Date.parse(asOf) - Date.parse(at);
}

/** @param {string} asOf @param {string} at */
function ago(asOf, at) {
  const ms = age(asOf, at);
  return ms >= 60_000 ? `${Math.floor(ms / 60_000)}min` : `${Math.max(0, Math.floor(ms / 1000))}s`;
}
