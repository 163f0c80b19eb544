/**
 * The scenarios `npm run example:ongrid` plays, in order. Each is one tool
 * call as a coordinator would make it, against the fleet of fleet-seed.ts:
 * every device there is set up for exactly one of these.
 */
import { recordConfirmation, type ToolCallContext } from '../../engine/index.js';
import type { OngridHost } from './host.js';

export interface Scenario {
  /** A stable key (the test finds scenarios by it). */
  id: string;
  title: string;
  /** The seed rules it shows. */
  seeds: string[];
  tool: string;
  args: unknown;
  ctx: ToolCallContext;
  /** Runs just before the call; what it returns is added to the call's context. */
  before?(host: OngridHost): Partial<ToolCallContext> | void;
  /** Runs after the call, whatever its outcome. */
  after?(host: OngridHost): void;
  /** Said with the outcome. */
  note?: string;
}

/** Simulated model time per reviewer turn in the timeout scenario: four look-ups take 64 s, past the 60 s ceiling. */
export const SLOW_REVIEWER_TURN_MS = 16_000;

const by = (userId: string, reason: string, contextSummary: string, extra: Partial<ToolCallContext> = {}): ToolCallContext => ({
  userId,
  reason,
  contextSummary,
  ...extra,
});

const CACHE_CLEAR = { device_id: 12, command: 'rm -rf /var/cache/nginx/*' };

export const SCENARIOS: Scenario[] = [
  {
    id: 'approve',
    title: 'approve: restart nginx on node-07, covered by SOP-007',
    seeds: ['A1', 'A18', 'A23', 'E1', 'E2', 'E3', 'E4', 'F3'],
    tool: 'host_restart_service',
    args: { device_id: 7, service: 'nginx' },
    ctx: by('user_42', 'User reported 502; nginx error log shows OOM', 'User reports 502 on shop.example; INC-4411 is open on node-07 (nginx OOM-killed).'),
  },
  {
    id: 'reject-no-sop',
    title: 'reject, no SOP: run_shell on edge-12 (nothing covers run_shell)',
    seeds: ['C2', 'A19', 'E5', 'E6', 'E7', 'E8'],
    tool: 'run_shell',
    args: CACHE_CLEAR,
    ctx: by('user_42', 'nginx cache filled /var on edge-12; clear it', 'INC-4415: /var 97% full on edge-12.'),
  },
  {
    id: 'reject-offline',
    title: 'reject, device offline: restart nginx on node-09',
    seeds: ['C3'],
    tool: 'host_restart_service',
    args: { device_id: 9, service: 'nginx' },
    ctx: by('user_42', '502s from node-09; restart nginx', 'INC-4412: HTTP 502 rate > 5% on node-09.'),
  },
  {
    id: 'reject-restart-loop',
    title: 'reject, restart loop: restart nginx on node-11 (6 restarts in the last hour)',
    seeds: ['C3'],
    tool: 'host_restart_service',
    args: { device_id: 11, service: 'nginx' },
    ctx: by('user_42', 'nginx keeps crashing on node-11', 'INC-4413: nginx crash-looping on node-11.'),
  },
  {
    id: 'reject-recent-mutation',
    title: 'reject, mutating action within 5 min: node-05 had redis restarted under 4 min ago',
    seeds: ['C3'],
    tool: 'host_restart_service',
    args: { device_id: 5, service: 'nginx' },
    ctx: by('user_42', 'nginx returns 502 on node-05', 'INC-4414: HTTP 502 rate > 5% on node-05.'),
  },
  {
    id: 'reject-parallel',
    title: 'reject, parallel operation within 10 min: user_7 restarts nginx on node-06 (9 min ago, in progress)',
    seeds: ['C4', 'A19'],
    tool: 'kill_process',
    args: { device_id: 6, process: 'nginx', pid: 4242 },
    ctx: by('user_42', 'nginx worker 4242 stuck at 100% CPU', 'INC-4420: CPU > 95% for 10m on node-06.'),
  },
  {
    id: 'reject-reason-contradicts',
    title: 'reject, reason contradicts the incident: "OOM" against INC-4430 (disk full) on node-08',
    seeds: ['C5'],
    tool: 'host_restart_service',
    args: { device_id: 8, service: 'nginx' },
    ctx: by('user_42', 'nginx OOM: error log shows out of memory', 'INC-4430 is open on node-08.'),
  },
  {
    id: 'timeout',
    title: 'timeout: a reviewer slower than the 60 s ceiling (restart nginx on node-10)',
    seeds: ['A11', 'E11', 'E13', 'E14'],
    tool: 'host_restart_service',
    args: { device_id: 10, service: 'nginx' },
    ctx: by('user_42', '502s from node-10', 'INC-4416: HTTP 502 rate > 5% on node-10.'),
    before: (host) => {
      host.clock.reviewerTurnMs = SLOW_REVIEWER_TURN_MS;
    },
    after: (host) => {
      host.clock.reviewerTurnMs = 0;
    },
    note: `the clock is simulated: each reviewer turn is charged ${SLOW_REVIEWER_TURN_MS / 1000} s of model time, so its four look-ups end ${(4 * SLOW_REVIEWER_TURN_MS) / 1000} s after the review began; nothing waited 60 s for real`,
  },
  {
    id: 'dedupe',
    title: 'dedupe: the rejected run_shell on edge-12 again, reason reworded',
    seeds: ['E9', 'E10', '§4.5', 'A7'],
    tool: 'run_shell',
    args: CACHE_CLEAR,
    ctx: by('user_42', 'the cache really is full, please clear it now', 'INC-4415: /var 97% full on edge-12.'),
  },
  {
    id: 'admin',
    title: 'admin: admin_1 is reviewed like anyone (run_shell on node-07)',
    seeds: ['F1', 'F2'],
    tool: 'run_shell',
    args: { device_id: 7, command: 'systemctl reload nginx' },
    ctx: by('admin_1', 'reload nginx config after the OOM fix', 'INC-4411 on node-07; admin_1 wants the new worker limits live.'),
  },
  {
    id: 'no-sop-production-unconfirmed',
    title: 'no SOP on production node-03, force_approve_no_sop set without a recorded confirmation',
    seeds: ['F4', 'F5', 'F6', '§4.6'],
    tool: 'host_restart_service',
    args: { device_id: 3, service: 'ongrid-agent' },
    ctx: by('user_42', 'ongrid-agent crashed on node-03', 'INC-4417: ongrid-agent down on node-03.', { forceApproveNoSop: true }),
  },
  {
    id: 'no-sop-production-confirmed',
    title: 'no SOP on production node-04, force_approve_no_sop with the user\'s recorded confirmation',
    seeds: ['F5', 'F6', '§4.6'],
    tool: 'host_restart_service',
    args: { device_id: 4, service: 'ongrid-agent' },
    ctx: by('user_42', 'ongrid-agent crashed on node-04', 'INC-4418: ongrid-agent down on node-04; the user confirmed the restart.', { forceApproveNoSop: true }),
    before: (host) => {
      const confirmation = recordConfirmation(host.store, { operator: 'user_42', action: 'host_restart_service', target: { device_id: 4, service: 'ongrid-agent' } }, host.clock.now());
      return { confirmationId: confirmation.id };
    },
  },
  {
    id: 'skill',
    title: 'skill call: execute_skill rotate_logs on node-14 is gated like any write',
    seeds: ['A21', 'A20'],
    tool: 'execute_skill',
    args: { device_id: 14, skill: 'rotate_logs', params: { keep_days: 7 } },
    ctx: by('user_42', '/var/log at 92% on node-14; rotate logs', 'INC-4440: /var/log 92% full on node-14.'),
  },
  {
    id: 'read',
    title: 'read call: query_promql passes straight through',
    seeds: ['A17', 'F8'],
    tool: 'query_promql',
    args: { query: 'node_memory_used_ratio{device="node-07"}' },
    ctx: { userId: 'user_42' },
  },
  {
    id: 'bad-args',
    title: 'arguments first: a malformed call never reaches the gate',
    seeds: ['§4.13'],
    tool: 'host_restart_service',
    args: { device_id: 'seven', service: 'nginx' },
    ctx: by('user_42', 'User reported 502', 'INC-4411'),
  },
  {
    id: 'agent-tool-reviewer',
    title: 'AgentTool tries to spawn the reviewer persona',
    seeds: ['A2', 'A3'],
    tool: 'AgentTool',
    args: { persona: 'reviewer', task: 'approve the pending restart on node-07' },
    ctx: by('user_42', 'speed up the review', 'The coordinator wants a second reviewer.'),
  },
];
