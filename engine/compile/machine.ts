/**
 * Compiles a validated workflow to an xstate v5 machine. Waiting nodes
 * wait for SUBMIT (or TIMEOUT); start, condition and expression nodes are
 * transient (`always`); end nodes and the failure state are final. The
 * machine is pure: the engine drives it with `initialTransition` /
 * `transition` and persists the snapshot, one step per transaction.
 */
import { assign, setup, type AnyStateMachine } from 'xstate';
import type { JsonObject, Workflow, WorkflowNode } from '../format/model.js';
import { nodeType } from '../nodes/index.js';
import type { EnterOutcome, RunContext, StartType, Submission, TransientType, WaitingType } from '../nodes/node-type.js';
import { decideAnswer, decideEnter, decideTimeout, decideTransient, type Decision } from './decisions.js';

/** The final state a failed run rests in. `@` cannot occur in a node id. */
export const FAILED_STATE = '@failed';

/** The run's first context, computed by `initialContext` before the machine starts. */
export interface MachineInput {
  context: RunContext;
}

export type MachineEvent =
  | ({ type: 'SUBMIT' } & Submission)
  | { type: 'TIMEOUT' }
  /** The outcome of a waiting node's entry work (WaitingType.enter), computed by the engine. */
  | { type: 'ENTER'; outcome: EnterOutcome };

export interface CompiledWorkflow {
  workflow: Workflow;
  hash: string;
  machine: AnyStateMachine;
  byId: ReadonlyMap<string, WorkflowNode>;
  /** Seeds a new run's context: registry defaults, initialData, then the start input (E_INPUT on a bad input). */
  initialContext(meta: RunContext['meta'], input: JsonObject): RunContext;
}

const EMPTY_CONTEXT: RunContext = { vars: {}, nodes: {}, meta: { executionId: '', workflowId: '', userId: '' }, attempt: 0 };

const byHash = new Map<string, CompiledWorkflow>();
const MAX_CACHED = 64;

/** Compiles once per workflow hash; the same hash always means the same graph. */
export function compileWorkflow(workflow: Workflow, hash: string): CompiledWorkflow {
  const hit = byHash.get(hash);
  if (hit) return hit;
  const compiled = build(workflow, hash);
  if (byHash.size >= MAX_CACHED) byHash.delete(byHash.keys().next().value as string);
  byHash.set(hash, compiled);
  return compiled;
}

function build(workflow: Workflow, hash: string): CompiledWorkflow {
  const byId = new Map(workflow.nodes.map((n) => [n.id, n]));
  const startNode = workflow.nodes.find((n) => n.type === 'start');
  if (!startNode) throw new Error('compileWorkflow needs a validated workflow (no start node)');
  const startType = nodeType('start') as StartType;

  const states: Record<string, unknown> = {};
  for (const node of workflow.nodes) {
    const type = nodeType(node.type);
    if (!type) throw new Error(`compileWorkflow needs a validated workflow (unknown type ${node.type})`);
    switch (type.kind) {
      case 'start':
      case 'transient':
        states[node.id] = { always: branches(node, type.kind === 'start' ? decideStart : (ctx) => decideTransient(type as TransientType, node, ctx, workflow)) };
        break;
      case 'waiting': {
        const waiting = type as WaitingType;
        states[node.id] = {
          entry: assign({ attempt: 0, errors: undefined, entered: undefined }),
          on: {
            SUBMIT: eventBranches(node, (ctx, ev) => decideAnswer(waiting, node, ctx, ev as Extract<MachineEvent, { type: 'SUBMIT' }>, workflow)),
            TIMEOUT: eventBranches(node, (ctx) => decideTimeout(node, ctx)),
            ...(waiting.enter ? { ENTER: eventBranches(node, (ctx, ev) => decideEnter(node, ctx, (ev as Extract<MachineEvent, { type: 'ENTER' }>).outcome)) } : {}),
          },
        };
        break;
      }
      case 'final':
        states[node.id] = { type: 'final' };
        break;
    }
  }
  states[FAILED_STATE] = { type: 'final' };

  const machine = setup({
    types: {} as { context: RunContext; events: MachineEvent; input: MachineInput },
    actions: {
      // Executed by the engine: the pure transition API hands it back with resolved params.
      journal: (_: unknown, _params: { events: JsonObject[] }) => {},
    },
  }).createMachine({
    id: 'run',
    initial: startNode.id,
    // xstate evaluates this factory for every pure `transition()` call (its
    // inert actor scope builds an initial snapshot), so it must be trivial:
    // the engine seeds the context once, in initialContext().
    context: ({ input }: { input?: MachineInput }) => input?.context ?? EMPTY_CONTEXT,
    states: states as never,
    // Validation rejects transient cycles; this is the backstop that turns a
    // runaway into E_RUNAWAY instead of a hung process.
    options: { maxIterations: Math.max(1000, workflow.nodes.length * 4) },
  } as never);
  const initialContext = (meta: RunContext['meta'], input: JsonObject): RunContext => ({
    vars: startType.seed(startNode as Parameters<StartType['seed']>[0], workflow, input),
    nodes: {},
    meta,
    attempt: 0,
  });
  return { workflow, hash, machine: machine as unknown as AnyStateMachine, byId, initialContext };

  function decideStart(): Decision {
    const to = startNode!.connections?.default ?? FAILED_STATE;
    return { target: to, via: 'default', events: [{ type: 'route', nodeId: startNode!.id, from: startNode!.id, to, via: 'default' }] };
  }
}

type Decide = (ctx: RunContext, event: MachineEvent) => Decision;

/**
 * One guarded branch per possible target: the decision is computed once
 * (memoised per context and event) and each branch's guard asks whether it
 * is the chosen one.
 */
function branchesFor(
  node: WorkflowNode,
  decide: Decide,
  memo: (ctx: RunContext, ev: MachineEvent, f: Decide) => Decision,
  canStay: boolean,
) {
  // Only targets a decision can produce; xstate tries guards in order, so
  // the usual outcome (the first connection) comes first.
  const targets = new Set<string>([...Object.values(node.connections ?? {}), FAILED_STATE]);
  const chosen = ({ context, event }: { context: RunContext; event: MachineEvent }) => memo(context, event, decide);
  const actions = [
    { type: 'journal', params: (args: { context: RunContext; event: MachineEvent }) => ({ events: chosen(args).events }) },
    assign((args: { context: RunContext; event: MachineEvent }) => chosen(args).assign ?? {}),
  ];
  const list: unknown[] = [...targets].map((target) => ({
    guard: (args: { context: RunContext; event: MachineEvent }) => chosen(args).target === target,
    target,
    reenter: true,
    actions,
  }));
  if (canStay) list.push({ guard: (args: { context: RunContext; event: MachineEvent }) => chosen(args).stay === true, actions });
  return list;
}

/**
 * One-slot memo: xstate evaluates a state's guards and then the chosen
 * branch's actions back to back, all with the same context and event, and
 * machines are evaluated synchronously one at a time. A single slot keyed
 * by (node, context, event) identity is exact and, unlike WeakMaps keyed by
 * short-lived objects, costs the garbage collector nothing.
 */
let slot: { node: WorkflowNode; ctx: RunContext; event: MachineEvent; decision: Decision } | undefined;

function memoised(node: WorkflowNode, ctx: RunContext, event: MachineEvent, decide: Decide): Decision {
  if (slot && slot.node === node && slot.ctx === ctx && slot.event === event) return slot.decision;
  const decision = decide(ctx, event);
  slot = { node, ctx, event, decision };
  return decision;
}

function branches(node: WorkflowNode, decide: (ctx: RunContext) => Decision) {
  return branchesFor(node, decide, (ctx, ev, f) => memoised(node, ctx, ev, f), false);
}

function eventBranches(node: WorkflowNode, decide: Decide) {
  return branchesFor(node, decide, (ctx, ev, f) => memoised(node, ctx, ev, f), true);
}
