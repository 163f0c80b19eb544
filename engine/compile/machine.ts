/**
 * Compiles a validated workflow to an xstate v5 machine. Waiting nodes
 * wait for SUBMIT (or TIMEOUT); start, condition and expression nodes are
 * transient (`always`); end nodes and the failure state are final. The
 * machine is pure: the engine drives it with `initialTransition` /
 * `transition` and persists the snapshot, one step per transaction.
 */
import { assign, setup, type AnyStateMachine } from 'xstate';
import type { JsonObject, JsonValue, Workflow, WorkflowNode } from '../format/model.js';
import { nodeType } from '../nodes/index.js';
import type { EnterOutcome, RunContext, StartType, Submission, TransientType, WaitingType } from '../nodes/node-type.js';
import { ownWorkflow } from '../nodes/answer-schema.js';
import { decideAnswer, decideEnter, decideTimeout, decideTransient, type Decision } from './decisions.js';

/** The final state a failed run rests in. `@` cannot occur in a node id. */
export const FAILED_STATE = '@failed';

/** The run's first context, computed by `initialContext` before the machine starts. */
export interface MachineInput {
  context: RunContext;
}

export type MachineEvent =
  | ({ type: 'SUBMIT' } & Submission)
  | { type: 'TIMEOUT'; observed?: JsonValue }
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
  // The engine's own copy, kept by its runs: frozen, and cached from by identity.
  ownWorkflow(workflow);
  const byId = new Map(workflow.nodes.map((n) => [n.id, n]));
  const startNode = workflow.nodes.find((n) => n.type === 'start');
  if (!startNode) throw new Error('compileWorkflow needs a validated workflow (no start node)');
  const startType = nodeType('start') as StartType;

  // Validation rejects transient cycles; this bound turns a runaway into
  // E_RUNAWAY (the same message xstate uses) instead of a hung process.
  const maxHops = Math.max(1000, workflow.nodes.length * 4);
  const transient = (id: string | undefined) => {
    const node = id === undefined ? undefined : byId.get(id);
    const type = node && nodeType(node.type);
    return type?.kind === 'transient' ? { node: node!, type: type as TransientType } : undefined;
  };
  /**
   * Folds the transient nodes a decision leads into (conditions,
   * expressions) into the same transition: one xstate microstep per step
   * instead of one per node, with the same context updates and journal
   * events in the same order.
   */
  const follow = (first: Decision, ctx: RunContext): Decision => {
    let decision = first;
    let assign = first.assign;
    let events = first.events;
    let owned = false; // events is a copy of first.events this fold may append to
    for (let hops = 0, next = transient(first.target); next; next = transient(decision.target)) {
      if (++hops > maxHops) throw new Error(`Infinite loop detected: more than ${maxHops} transient nodes in one step`);
      // Object.assign, not spreads: V8 is slow on a spread that adds keys.
      decision = decideTransient(next.type, next.node, assign ? Object.assign({}, ctx, assign) : ctx, workflow);
      assign = decision.assign ? Object.assign({}, assign, decision.assign) : assign;
      if (!owned) {
        events = events.slice();
        owned = true;
      }
      for (const e of decision.events) events.push(e);
    }
    return decision === first ? first : { ...decision, assign, events };
  };
  const reach = landingTargets(byId);
  const waits = (id: string) => {
    const node = byId.get(id);
    return node !== undefined && nodeType(node.type)?.kind === 'waiting';
  };

  const states: Record<string, unknown> = {};
  for (const node of workflow.nodes) {
    const type = nodeType(node.type);
    if (!type) throw new Error(`compileWorkflow needs a validated workflow (unknown type ${node.type})`);
    const targets = reach(node);
    switch (type.kind) {
      case 'start':
      case 'transient': {
        const decide = type.kind === 'start' ? decideStart : (ctx: RunContext) => decideTransient(type as TransientType, node, ctx, workflow);
        states[node.id] = { always: branches(node, targets, (ctx) => follow(decide(ctx), ctx), waits) };
        break;
      }
      case 'waiting': {
        const waiting = type as WaitingType;
        const on = (decide: Decide) => eventBranches(node, targets, (ctx, ev) => follow(decide(ctx, ev), ctx), waits);
        // No entry action: every transition into a waiting node carries its
        // visit reset in its own assign (branchesFor), one context copy fewer.
        states[node.id] = {
          on: {
            SUBMIT: on((ctx, ev) => decideAnswer(waiting, node, ctx, ev as Extract<MachineEvent, { type: 'SUBMIT' }>, workflow)),
            TIMEOUT: on((ctx, ev) => decideTimeout(waiting, node, ctx, ev as Extract<MachineEvent, { type: 'TIMEOUT' }>)),
            ...(waiting.enter ? { ENTER: on((ctx, ev) => decideEnter(node, ctx, (ev as Extract<MachineEvent, { type: 'ENTER' }>).outcome)) } : {}),
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
    options: { maxIterations: maxHops },
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

/** What entering a waiting node resets: a new visit starts with no answers, errors or entry work. */
const VISIT_RESET: Partial<RunContext> = { attempt: 0, errors: undefined, entered: undefined, stayed: undefined };

/**
 * One guarded branch per possible target: the decision is computed once
 * (memoised per context and event) and each branch's guard asks whether it
 * is the chosen one. A branch into a waiting node also starts its visit
 * (VISIT_RESET), after the decision's own assignments, as an entry action
 * would.
 */
function branchesFor(
  node: WorkflowNode,
  targets: ReadonlySet<string>,
  decide: Decide,
  memo: (ctx: RunContext, ev: MachineEvent, f: Decide) => Decision,
  canStay: boolean,
  waits: (id: string) => boolean,
) {
  const chosen = ({ context, event }: { context: RunContext; event: MachineEvent }) => memo(context, event, decide);
  const journal = { type: 'journal', params: (args: { context: RunContext; event: MachineEvent }) => ({ events: chosen(args).events }) };
  const stayActions = [journal, assign((args: { context: RunContext; event: MachineEvent }) => chosen(args).assign ?? {})];
  const enterActions = [journal, assign((args: { context: RunContext; event: MachineEvent }) => Object.assign({}, chosen(args).assign, VISIT_RESET))];
  const list: unknown[] = [...targets].map((target) => ({
    guard: (args: { context: RunContext; event: MachineEvent }) => chosen(args).target === target,
    target,
    reenter: true,
    actions: waits(target) ? enterActions : stayActions,
  }));
  if (canStay) list.push({ guard: (args: { context: RunContext; event: MachineEvent }) => chosen(args).stay === true, actions: stayActions });
  return list;
}

/**
 * One-slot memo: xstate evaluates a state's guards and then the chosen
 * branch's actions back to back, all with the same context and event, and
 * machines are evaluated synchronously one at a time. A single slot keyed
 * by (node, context, event) identity is exact and, unlike WeakMaps keyed by
 * short-lived objects, costs the garbage collector nothing.
 */
const slot: { node?: WorkflowNode; ctx?: RunContext; event?: MachineEvent; decision?: Decision } = {};

function memoised(node: WorkflowNode, ctx: RunContext, event: MachineEvent, decide: Decide): Decision {
  if (slot.node === node && slot.ctx === ctx && slot.event === event) return slot.decision!;
  const decision = decide(ctx, event);
  // Filled in place: one object for the process, nothing for the collector.
  slot.node = node;
  slot.ctx = ctx;
  slot.event = event;
  slot.decision = decision;
  return decision;
}

function branches(node: WorkflowNode, targets: ReadonlySet<string>, decide: (ctx: RunContext) => Decision, waits: (id: string) => boolean) {
  return branchesFor(node, targets, decide, (ctx, ev, f) => memoised(node, ctx, ev, f), false, waits);
}

function eventBranches(node: WorkflowNode, targets: ReadonlySet<string>, decide: Decide, waits: (id: string) => boolean) {
  return branchesFor(node, targets, decide, (ctx, ev, f) => memoised(node, ctx, ev, f), true, waits);
}

/**
 * The states a node's transition can land in once transient nodes are
 * folded in: its connections' targets, followed through transient nodes to
 * the waiting and final nodes behind them, plus the failure state. xstate
 * tries guards in order, so the usual outcome (the first connection) comes
 * first.
 */
function landingTargets(byId: ReadonlyMap<string, WorkflowNode>) {
  const isTransient = (id: string) => {
    const node = byId.get(id);
    return node !== undefined && nodeType(node.type)?.kind === 'transient';
  };
  return (node: WorkflowNode): ReadonlySet<string> => {
    const out = new Set<string>();
    const seen = new Set<string>();
    const visit = (id: string) => {
      if (seen.has(id)) return;
      seen.add(id);
      if (!isTransient(id)) {
        out.add(id);
        return;
      }
      for (const next of Object.values(byId.get(id)!.connections ?? {})) visit(next);
    };
    for (const target of Object.values(node.connections ?? {})) visit(target);
    out.add(FAILED_STATE);
    return out;
  };
}
