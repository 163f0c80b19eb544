/**
 * The simulated fleet Ongrid manages, in SQLite (one temp file per run):
 * edge devices with tags and status, the SOP corpus, open incidents, the
 * devices' audit history (what was done to them, and when), metrics, the
 * operators the host knows and the workers AgentTool spawns. The read tools
 * query it; the mutating tools, once approved, record their effect in it,
 * so a later review sees what an earlier approval did.
 */
import Database from 'better-sqlite3';
import type { SimClock } from './clock.js';
import { seedFleet } from './fleet-seed.js';

const SCHEMA = `
CREATE TABLE devices (
  device_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('online', 'offline')),
  tags TEXT NOT NULL,                       -- JSON array, e.g. ["production"]
  restarts_last_hour INTEGER NOT NULL,      -- a service crash-looping shows here
  last_seen TEXT NOT NULL
);
CREATE TABLE sops (
  sop_id TEXT PRIMARY KEY,
  action TEXT NOT NULL,                     -- the tool the SOP is a procedure for
  covers TEXT NOT NULL,                     -- JSON array of services, processes or skills
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  rollback TEXT NOT NULL
);
CREATE TABLE incidents (
  incident_id TEXT PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(device_id),
  title TEXT NOT NULL,
  symptoms TEXT NOT NULL,                   -- JSON array: oom, http_5xx, disk_full, cpu, crash, latency
  alerts TEXT NOT NULL,                     -- JSON array of alert texts
  opened_at TEXT NOT NULL,
  status TEXT NOT NULL
);
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices(device_id),
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  subject TEXT NOT NULL,                    -- the service, process, skill or command acted on
  status TEXT NOT NULL                      -- in_progress | completed
);
CREATE INDEX audit_by_device ON audit_log (device_id, at);
CREATE TABLE metrics (
  device_id INTEGER NOT NULL REFERENCES devices(device_id),
  name TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (device_id, name)
);
CREATE TABLE operators (
  user_id TEXT PRIMARY KEY,
  role TEXT NOT NULL
);
CREATE TABLE workers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  persona TEXT NOT NULL,
  task TEXT NOT NULL,
  operator TEXT NOT NULL
);
`;

export interface Device {
  device_id: number;
  name: string;
  status: 'online' | 'offline';
  tags: string[];
  restarts_last_hour: number;
  last_seen: string;
}

export interface Sop {
  sop_id: string;
  action: string;
  covers: string[];
  title: string;
  body: string;
  rollback: string;
}

export interface Incident {
  incident_id: string;
  device_id: number;
  title: string;
  symptoms: string[];
  alerts: string[];
  opened_at: string;
  status: string;
}

export interface AuditEntry {
  id: number;
  at: string;
  device_id: number;
  actor: string;
  action: string;
  subject: string;
  status: string;
}

export interface Operation {
  device_id: number;
  actor: string;
  action: string;
  subject: string;
  status?: 'in_progress' | 'completed';
}

export interface Fleet {
  readonly file: string;
  device(id: number): Device | undefined;
  sopsFor(action: string): Sop[];
  incident(id: string): Incident | undefined;
  openIncidentsOn(deviceId: number): Incident[];
  /** Audit entries on a device since `sinceIso`, oldest first. */
  auditSince(deviceId: number, sinceIso: string): AuditEntry[];
  lastOperation(deviceId: number): AuditEntry | undefined;
  /** Records what a mutating tool did to a device (its effect in the simulated world). */
  recordOperation(op: Operation): AuditEntry;
  metric(name: string, deviceId?: number): Array<{ device: string; value: number }>;
  operatorRole(userId: string): string | undefined;
  spawnWorker(persona: string, task: string, operator: string): number;
  close(): void;
}

type Row = Record<string, unknown>;

export function openFleet(file: string, clock: SimClock): Fleet {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA);
  seedFleet(db);

  const q = {
    device: db.prepare<[number], Row>('SELECT * FROM devices WHERE device_id = ?'),
    sops: db.prepare<[string], Row>('SELECT * FROM sops WHERE action = ? ORDER BY sop_id'),
    incident: db.prepare<[string], Row>('SELECT * FROM incidents WHERE incident_id = ?'),
    openIncidents: db.prepare<[number], Row>("SELECT * FROM incidents WHERE device_id = ? AND status = 'open' ORDER BY opened_at DESC"),
    auditSince: db.prepare<[number, string], AuditEntry>('SELECT * FROM audit_log WHERE device_id = ? AND at >= ? ORDER BY at, id'),
    lastOp: db.prepare<[number], AuditEntry>('SELECT * FROM audit_log WHERE device_id = ? ORDER BY at DESC, id DESC LIMIT 1'),
    insertOp: db.prepare<[string, number, string, string, string, string]>(
      'INSERT INTO audit_log (at, device_id, actor, action, subject, status) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    metric: db.prepare<[string], { device: string; value: number }>(
      'SELECT d.name AS device, m.value FROM metrics m JOIN devices d USING (device_id) WHERE m.name = ? ORDER BY d.device_id',
    ),
    metricOn: db.prepare<[string, number], { device: string; value: number }>(
      'SELECT d.name AS device, m.value FROM metrics m JOIN devices d USING (device_id) WHERE m.name = ? AND m.device_id = ?',
    ),
    role: db.prepare<[string], string>('SELECT role FROM operators WHERE user_id = ?').pluck(),
    worker: db.prepare<[string, string, string, string]>('INSERT INTO workers (at, persona, task, operator) VALUES (?, ?, ?, ?)'),
    touchDevice: db.prepare<[string, number]>('UPDATE devices SET last_seen = ? WHERE device_id = ?'),
  };

  const json = (v: unknown): string[] => JSON.parse(String(v)) as string[];
  const toDevice = (r: Row): Device => ({ ...(r as unknown as Device), tags: json(r.tags) });
  const toSop = (r: Row): Sop => ({ ...(r as unknown as Sop), covers: json(r.covers) });
  const toIncident = (r: Row): Incident => ({ ...(r as unknown as Incident), symptoms: json(r.symptoms), alerts: json(r.alerts) });

  return {
    file,
    device: (id) => {
      const r = q.device.get(id);
      return r ? toDevice(r) : undefined;
    },
    sopsFor: (action) => q.sops.all(action).map(toSop),
    incident: (id) => {
      const r = q.incident.get(id);
      return r ? toIncident(r) : undefined;
    },
    openIncidentsOn: (deviceId) => q.openIncidents.all(deviceId).map(toIncident),
    auditSince: (deviceId, sinceIso) => q.auditSince.all(deviceId, sinceIso),
    lastOperation: (deviceId) => q.lastOp.get(deviceId),
    recordOperation(op) {
      const at = clock.iso();
      const status = op.status ?? 'completed';
      const info = q.insertOp.run(at, op.device_id, op.actor, op.action, op.subject, status);
      q.touchDevice.run(at, op.device_id);
      return { id: Number(info.lastInsertRowid), at, ...op, status };
    },
    metric: (name, deviceId) => (deviceId === undefined ? q.metric.all(name) : q.metricOn.all(name, deviceId)),
    operatorRole: (userId) => q.role.get(userId),
    spawnWorker: (persona, task, operator) => Number(q.worker.run(clock.iso(), persona, task, operator).lastInsertRowid),
    close: () => db.close(),
  };
}
