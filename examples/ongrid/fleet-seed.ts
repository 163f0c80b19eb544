/**
 * The fleet's starting state. Each device is set up for one scenario, and
 * its history is dated relative to the simulation's start so the 5-minute
 * (last mutating action) and 10-minute (parallel operation) rules fall where
 * the scenario needs them.
 */
import type Database from 'better-sqlite3';
import { minutesBeforeStart } from './clock.js';

type Tags = 'production' | 'staging';

// [id, name, status, tags, restarts in the last hour, minutes since last seen]
const DEVICES: Array<[number, string, 'online' | 'offline', Tags[], number, number]> = [
  [3, 'node-03', 'online', ['production'], 0, 0],
  [4, 'node-04', 'online', ['production'], 0, 0],
  [5, 'node-05', 'online', ['staging'], 0, 0],
  [6, 'node-06', 'online', ['production'], 0, 0],
  [7, 'node-07', 'online', ['production'], 0, 0],
  [8, 'node-08', 'online', ['production'], 0, 0],
  [9, 'node-09', 'offline', ['production'], 0, 42],
  [10, 'node-10', 'online', ['production'], 0, 0],
  [11, 'node-11', 'online', ['staging'], 6, 0],
  [12, 'edge-12', 'online', ['staging'], 0, 0],
  [14, 'node-14', 'online', ['production'], 0, 0],
];

// The corpus is sparse on purpose (seed 000 F4): nothing covers run_shell,
// AgentTool or the ongrid-agent service.
const SOPS: Array<[string, string, string[], string, string, string]> = [
  ['SOP-007', 'host_restart_service', ['nginx'], 'Restart nginx on an edge node',
    'Check the error log, drain the node from the balancer, systemctl restart nginx, verify /healthz.', 'systemctl start nginx'],
  ['SOP-009', 'host_restart_service', ['redis'], 'Restart redis on an edge node',
    'Confirm no replication is in progress, systemctl restart redis, verify PING.', 'systemctl start redis'],
  ['SOP-012', 'kill_process', ['nginx'], 'Kill a hung nginx worker',
    'Confirm the worker is pinned (top), kill -9 the worker pid; the master respawns it.', 'systemctl start nginx'],
  ['SOP-031', 'execute_skill', ['rotate_logs'], 'Rotate logs when /var/log runs full',
    'Snapshot /var/log, run the rotate_logs skill, verify free space above 30%.', 'restore /var/log from the pre-rotation snapshot'],
];

// [id, device, title, symptoms, alerts, minutes since opened]
const INCIDENTS: Array<[string, number, string, string[], string[], number]> = [
  ['INC-4411', 7, 'nginx OOM-killed on node-07; users see 502', ['oom', 'http_5xx'], ['NginxOOMKilled on node-07', 'HTTP 502 rate > 5% on node-07'], 12],
  ['INC-4412', 9, '502s from node-09', ['http_5xx'], ['HTTP 502 rate > 5% on node-09', 'NodeDown node-09'], 40],
  ['INC-4413', 11, 'nginx crash-looping on node-11', ['crash'], ['nginx restarted 6 times in 1h on node-11'], 30],
  ['INC-4414', 5, 'nginx 502 on node-05', ['http_5xx'], ['HTTP 502 rate > 5% on node-05'], 6],
  ['INC-4415', 12, 'nginx cache filled /var on edge-12', ['disk_full'], ['/var 97% full on edge-12'], 20],
  ['INC-4416', 10, '502s from node-10', ['http_5xx'], ['HTTP 502 rate > 5% on node-10'], 9],
  ['INC-4417', 3, 'ongrid-agent crashed on node-03', ['crash'], ['ongrid-agent down on node-03'], 15],
  ['INC-4418', 4, 'ongrid-agent crashed on node-04', ['crash'], ['ongrid-agent down on node-04'], 14],
  ['INC-4420', 6, 'nginx worker pinned at 100% CPU on node-06', ['cpu'], ['CPU > 95% for 10m on node-06'], 11],
  ['INC-4430', 8, '/var full on node-08: nginx cannot write logs', ['disk_full'], ['/var 99% full on node-08', 'nginx: No space left on device'], 7],
  ['INC-4440', 14, '/var/log at 92% on node-14', ['disk_full'], ['/var/log 92% full on node-14'], 25],
];

// [device, minutes before start, actor, action, subject, status]
const HISTORY: Array<[number, number, string, string, string, 'in_progress' | 'completed']> = [
  [7, 17, 'user_9', 'execute_skill', 'rotate_logs', 'completed'],
  [5, 3, 'user_7', 'host_restart_service', 'redis', 'completed'],
  [6, 25, 'user_9', 'kill_process', 'php-fpm', 'completed'],
  [6, 8, 'user_7', 'host_restart_service', 'nginx', 'in_progress'],
  [11, 50, 'user_9', 'host_restart_service', 'nginx', 'completed'],
];

const OPERATORS: Array<[string, string]> = [
  ['user_42', 'operator'],
  ['user_7', 'operator'],
  ['user_9', 'operator'],
  ['admin_1', 'admin'],
];

export function seedFleet(db: Database.Database): void {
  const device = db.prepare('INSERT INTO devices VALUES (?, ?, ?, ?, ?, ?)');
  const sop = db.prepare('INSERT INTO sops VALUES (?, ?, ?, ?, ?, ?)');
  const incident = db.prepare("INSERT INTO incidents VALUES (?, ?, ?, ?, ?, ?, 'open')");
  const audit = db.prepare('INSERT INTO audit_log (at, device_id, actor, action, subject, status) VALUES (?, ?, ?, ?, ?, ?)');
  const metric = db.prepare('INSERT INTO metrics VALUES (?, ?, ?)');
  const operator = db.prepare('INSERT INTO operators VALUES (?, ?)');
  db.transaction(() => {
    for (const [id, name, status, tags, restarts, seen] of DEVICES) {
      device.run(id, name, status, JSON.stringify(tags), restarts, minutesBeforeStart(seen));
      metric.run(id, 'up', status === 'online' ? 1 : 0);
      // node-07 is the OOM incident: its memory is the one near the ceiling.
      metric.run(id, 'node_memory_used_ratio', id === 7 ? 0.97 : 0.41 + (id % 5) / 20);
    }
    for (const [id, action, covers, title, body, rollback] of SOPS) sop.run(id, action, JSON.stringify(covers), title, body, rollback);
    for (const [id, dev, title, symptoms, alerts, opened] of INCIDENTS) {
      incident.run(id, dev, title, JSON.stringify(symptoms), JSON.stringify(alerts), minutesBeforeStart(opened));
    }
    for (const [dev, ago, actor, action, subject, status] of HISTORY) audit.run(minutesBeforeStart(ago), dev, actor, action, subject, status);
    for (const [user, role] of OPERATORS) operator.run(user, role);
  })();
}
