/**
 * The read tools of the seed's tool bag (class `read`): they pass the gate
 * straight through (A17, F8) and they are all the reviewer may call (B10,
 * B16). Each answers from the simulated fleet and says `as_of`, the
 * simulated time it answered at, so the reviewer can judge ages itself.
 */
import { CountersignError, defineTool, type Tool } from '../../engine/index.js';
import type { SimClock } from './clock.js';
import type { AuditEntry, Fleet } from './fleet.js';

/** A service crash-looping restarts this often per hour or more. */
export const RESTART_LOOP_PER_HOUR = 3;

const DEVICE_ID = { type: 'integer', minimum: 1, description: 'The device id, e.g. 7' };
const TOOL_NAME = { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' };

export function readTools(fleet: Fleet, clock: SimClock): Tool[] {
  const deviceOrFail = (id: number) => {
    const d = fleet.device(id);
    if (!d) {
      throw new CountersignError('E_TOOL_FAILED', `no device ${id} in the fleet`, { fix: 'use a device id from the incident or the edge summary' });
    }
    return d;
  };

  const getSopText = defineTool<{ action: string }>({
    name: 'get_sop_text',
    class: 'read',
    description: 'The official procedures (SOPs) for an action, with what each covers and its rollback.',
    inputSchema: { type: 'object', properties: { action: TOOL_NAME }, required: ['action'], additionalProperties: false },
    run: ({ action }) => ({
      action,
      sops: fleet.sopsFor(action).map((s) => ({ sop_id: s.sop_id, title: s.title, covers: s.covers, procedure: s.body, rollback: s.rollback })),
    }),
  });

  const getEdgeSummary = defineTool<{ device_id: number }>({
    name: 'get_edge_summary',
    class: 'read',
    description: 'A device\'s status, tags, restart count and its last mutating action.',
    inputSchema: { type: 'object', properties: { device_id: DEVICE_ID }, required: ['device_id'], additionalProperties: false },
    run: ({ device_id }) => {
      const d = deviceOrFail(device_id);
      const last = fleet.lastOperation(device_id);
      return {
        device_id,
        name: d.name,
        status: d.status,
        tags: d.tags,
        restarts_last_hour: d.restarts_last_hour,
        restart_loop: d.restarts_last_hour >= RESTART_LOOP_PER_HOUR,
        last_seen: d.last_seen,
        last_mutating: last ? { at: last.at, action: last.action, subject: last.subject, actor: last.actor, status: last.status } : null,
        as_of: clock.iso(),
      };
    },
  });

  const getIncidentDetail = defineTool<{ incident_id?: string; device_id?: number }>({
    name: 'get_incident_detail',
    class: 'read',
    description: 'An incident by id, or the open incidents on a device: title, symptoms and alerts.',
    inputSchema: {
      type: 'object',
      properties: { incident_id: { type: 'string', pattern: '^INC-[0-9]+$' }, device_id: DEVICE_ID },
      minProperties: 1,
      additionalProperties: false,
    },
    run: ({ incident_id, device_id }) => {
      const found = incident_id !== undefined ? [fleet.incident(incident_id)].filter((i) => i !== undefined) : fleet.openIncidentsOn(device_id!);
      return {
        incidents: found
          .filter((i) => device_id === undefined || i.device_id === device_id)
          .map((i) => ({ ...i, device: fleet.device(i.device_id)?.name ?? String(i.device_id) })),
      };
    },
  });

  const queryLogql = defineTool<{ query: string; range: string }>({
    name: 'query_logql',
    class: 'read',
    description: 'LogQL over the fleet\'s audit stream: {job="audit", device_id="7"} |= "nginx", over a range like 10m.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', minLength: 1, maxLength: 500 }, range: { type: 'string', pattern: '^[0-9]{1,4}[smh]$' } },
      required: ['query', 'range'],
      additionalProperties: false,
    },
    run: ({ query, range }) => {
      const { labels, filters } = parseLogql(query);
      const device = labels.device_id !== undefined ? fleet.device(Number(labels.device_id)) : undefined;
      if (!device) {
        throw new CountersignError('E_TOOL_ARGS', `query_logql: the selector must name a known device with device_id="<id>", got ${query}`, {
          fix: 'query one device\'s audit stream, e.g. {job="audit", device_id="7"}',
        });
      }
      const since = new Date(clock.ms() - rangeMs(range)).toISOString();
      const entries = fleet
        .auditSince(device.device_id, since)
        .map((e) => logEntry(e, device.name))
        .filter((e) => Object.entries(labels).every(([k, v]) => e.labels[k] === v))
        .filter((e) => filters.every((f) => e.line.includes(f)));
      return { as_of: clock.iso(), range, entries };
    },
  });

  const queryPromql = defineTool<{ query: string }>({
    name: 'query_promql',
    class: 'read',
    description: 'An instant PromQL query over the fleet\'s metrics: up, node_memory_used_ratio, optionally {device="node-07"}.',
    inputSchema: { type: 'object', properties: { query: { type: 'string', minLength: 1, maxLength: 500 } }, required: ['query'], additionalProperties: false },
    run: ({ query }) => {
      const m = /^\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?:\{\s*device\s*=\s*"([^"]*)"\s*\})?\s*$/.exec(query);
      if (!m) {
        throw new CountersignError('E_TOOL_ARGS', `query_promql understands a metric name with an optional {device="…"} selector, got ${query}`, {
          fix: 'e.g. node_memory_used_ratio{device="node-07"}',
        });
      }
      const [, name, deviceName] = m;
      const t = clock.ms() / 1000;
      const result = fleet
        .metric(name)
        .filter((s) => deviceName === undefined || s.device === deviceName)
        .map((s) => ({ metric: { __name__: name, device: s.device }, value: [t, String(s.value)] }));
      return { resultType: 'vector', result };
    },
  });

  return [getIncidentDetail, getEdgeSummary, queryPromql, queryLogql, getSopText];
}

/** The audit stream's line for an entry, as the reviewer reads it. */
function logEntry(e: AuditEntry, device: string) {
  return {
    ts: e.at,
    labels: { job: 'audit', device, device_id: String(e.device_id), actor: e.actor, action: e.action, subject: e.subject, status: e.status } as Record<string, string>,
    line: `audit: ${e.action} ${e.subject} on ${device} by ${e.actor} status=${e.status}`,
  };
}

/** `{k="v", …} |= "text" |= "more"` — equality matchers and line filters only. */
function parseLogql(query: string): { labels: Record<string, string>; filters: string[] } {
  const bad = (why: string): never => {
    throw new CountersignError('E_TOOL_ARGS', `query_logql: ${why} in ${query}`, {
      fix: 'write {job="audit", device_id="7"} optionally followed by |= "text" filters',
    });
  };
  const m = /^\s*\{([^}]*)\}(.*)$/s.exec(query) ?? bad('no {…} stream selector');
  const labels: Record<string, string> = {};
  for (const part of m[1].split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const lm = /^([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"([^"]*)"$/.exec(part) ?? bad(`matcher ${part} is not label="value"`);
    labels[lm[1]] = lm[2];
  }
  if (labels.job !== 'audit') bad('the only stream is job="audit"');
  const filters: string[] = [];
  let rest = m[2].trim();
  while (rest !== '') {
    const fm = /^\|=\s*"([^"]*)"\s*(.*)$/s.exec(rest) ?? bad(`"${rest}" is not a |= "text" line filter`);
    filters.push(fm[1]);
    rest = fm[2].trim();
  }
  return { labels, filters };
}

function rangeMs(range: string): number {
  const n = Number(range.slice(0, -1));
  return n * { s: 1_000, m: 60_000, h: 3_600_000 }[range.slice(-1) as 's' | 'm' | 'h'];
}
