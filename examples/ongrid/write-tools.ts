/**
 * The mutating tools of the seed's tool bag, unwrapped: the host chains each
 * one behind the review gate. `write`: host_restart_service (the canonical
 * mutating skill, A20), execute_skill (the marketplace shim: the gate cannot
 * read a skill's body, so it gates every skill, A21) and AgentTool (it
 * spawns a worker and so commits resources, A22). `destructive`:
 * kill_process and run_shell (A19). Their effect is recorded in the fleet's
 * audit history, where later reviews see it.
 */
import { CountersignError, defineTool, refuseReviewerSpawn, type Gate, type Tool, type ToolRunContext } from '../../engine/index.js';
import type { SimClock } from './clock.js';
import type { Fleet } from './fleet.js';

const DEVICE_ID = { type: 'integer', minimum: 1, description: 'The device id, e.g. 7' };
const UNIT = { type: 'string', pattern: '^[a-z0-9][a-z0-9_.@-]{0,63}$' };

export function writeTools(fleet: Fleet, clock: SimClock, gate: Pick<Gate, 'personas'>): Tool[] {
  const onDevice = (id: number) => {
    const d = fleet.device(id);
    if (!d) throw new CountersignError('E_TOOL_FAILED', `no device ${id} in the fleet`, { fix: 'check the device id; nothing was done' });
    return d;
  };
  // tenant_bind bound the operator; the chain hands it to the inner tool.
  const actor = (ctx: ToolRunContext) => ctx.operator ?? ctx.userId ?? 'unknown';

  const hostRestartService = defineTool<{ device_id: number; service: string }>({
    name: 'host_restart_service',
    class: 'write',
    blastRadius: 'single_device',
    description: 'Restarts a systemd service on one edge device.',
    inputSchema: { type: 'object', properties: { device_id: DEVICE_ID, service: UNIT }, required: ['device_id', 'service'], additionalProperties: false },
    run: ({ device_id, service }, ctx) => {
      const d = onDevice(device_id);
      const op = fleet.recordOperation({ device_id, actor: actor(ctx), action: 'host_restart_service', subject: service });
      return { device: d.name, service, restarted: true, at: op.at };
    },
  });

  const executeSkill = defineTool<{ device_id: number; skill: string; params?: Record<string, string | number | boolean> }>({
    name: 'execute_skill',
    class: 'write',
    blastRadius: 'single_device',
    description: 'Runs a marketplace-installed skill on one device.',
    inputSchema: {
      type: 'object',
      properties: {
        device_id: DEVICE_ID,
        skill: UNIT,
        params: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } },
      },
      required: ['device_id', 'skill'],
      additionalProperties: false,
    },
    run: ({ device_id, skill, params }, ctx) => {
      const d = onDevice(device_id);
      const op = fleet.recordOperation({ device_id, actor: actor(ctx), action: 'execute_skill', subject: skill });
      return { device: d.name, skill, params: params ?? {}, completed: true, at: op.at };
    },
  });

  const agentTool = defineTool<{ persona: string; task: string }>({
    name: 'AgentTool',
    class: 'write',
    blastRadius: 'single_device',
    description: 'Spawns a worker persona for a task.',
    inputSchema: {
      type: 'object',
      properties: { persona: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' }, task: { type: 'string', minLength: 1, maxLength: 2000 } },
      required: ['persona', 'task'],
      additionalProperties: false,
    },
    run: ({ persona, task }, ctx) => {
      // The host refuses this before the chain; refusing here too means an
      // approved call can never start a reviewer either (A2, A3).
      refuseReviewerSpawn(persona, gate);
      return { worker: fleet.spawnWorker(persona, task, actor(ctx)), persona, started_at: clock.iso() };
    },
  });

  const killProcess = defineTool<{ device_id: number; process: string; pid: number }>({
    name: 'kill_process',
    class: 'destructive',
    blastRadius: 'single_device',
    description: 'Kills one process on a device (SIGKILL).',
    inputSchema: {
      type: 'object',
      properties: { device_id: DEVICE_ID, process: UNIT, pid: { type: 'integer', minimum: 2 } },
      required: ['device_id', 'process', 'pid'],
      additionalProperties: false,
    },
    run: ({ device_id, process, pid }, ctx) => {
      const d = onDevice(device_id);
      const op = fleet.recordOperation({ device_id, actor: actor(ctx), action: 'kill_process', subject: process });
      return { device: d.name, process, pid, killed: true, at: op.at };
    },
  });

  const runShell = defineTool<{ device_id: number; command: string }>({
    name: 'run_shell',
    class: 'destructive',
    blastRadius: 'single_device',
    description: 'Runs a shell command on a device.',
    inputSchema: {
      type: 'object',
      properties: { device_id: DEVICE_ID, command: { type: 'string', minLength: 1, maxLength: 1000 } },
      required: ['device_id', 'command'],
      additionalProperties: false,
    },
    run: ({ device_id, command }, ctx) => {
      const d = onDevice(device_id);
      const op = fleet.recordOperation({ device_id, actor: actor(ctx), action: 'run_shell', subject: command });
      return { device: d.name, command, exit_code: 0, at: op.at };
    },
  });

  return [hostRestartService, executeSkill, agentTool, killProcess, runShell];
}
