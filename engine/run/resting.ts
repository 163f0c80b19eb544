/**
 * What a step leaves in the run's context for the steps behind tool nodes.
 * A run resting at a tool node is moved on by the engine itself, with no
 * agent in between, and two things must outlast those steps:
 * - what the agent answer that led there replaced, and what the transient
 *   nodes it led through since changed (an expression between two tools),
 *   so that a review behind the tools that refuses it can take it back
 *   (answer-undo.ts);
 * - the waiting nodes whose entry routed the run on, so that entering one
 *   again the same way stops the run (runaway.ts) instead of running the
 *   tools on the way once more.
 * Resting anywhere else (a node someone answers) drops the second.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { CompiledWorkflow } from '../compile/machine.js';
import { nodeType } from '../nodes/index.js';
import type { LeadIn, Rerouted, RunContext, WaitingType } from '../nodes/node-type.js';
import { undoOf, withLaterStep } from './answer-undo.js';
import type { Actions } from './step-journal.js';

export type EntryRoute = Rerouted['routes'][number];

export interface StepTrail {
  /** The snapshot an agent's answer was given at (absent for the engine's own tool outcomes, timeouts, a first step). */
  answeredAt?: AnyMachineSnapshot;
  /** The snapshot a tool node's outcome (the engine's own answer) was given at. */
  toolOutcomeAt?: AnyMachineSnapshot;
  /** The entry routes carried in from the steps since the run last rested at a node someone answers. */
  carried?: Rerouted;
  /** The entry routes this step took. */
  routes: EntryRoute[];
}

export function restingContext(compiled: CompiledWorkflow, result: [AnyMachineSnapshot, Actions], trail: StepTrail): [AnyMachineSnapshot, Actions] {
  const [snap, actions] = result;
  if (snap.status !== 'active') return result;
  const ctx = snap.context as RunContext;
  const node = compiled.byId.get(snap.value as string);
  const atTool = node !== undefined && (nodeType(node.type) as WaitingType | undefined)?.answeredByEngine === true;
  const next: Partial<RunContext> = {};
  let changed = false;
  const lead = ctx.leadIn;
  if (atTool && trail.answeredAt !== undefined && lead !== undefined && lead.nodeId === trail.answeredAt.value) {
    next.leadIn = { ...lead, before: undoOf(trail.answeredAt.context as RunContext, ctx, lead) };
    changed = true;
  } else if (atTool && trail.toolOutcomeAt !== undefined && lead?.before !== undefined && sameAnswer((trail.toolOutcomeAt.context as RunContext).leadIn, lead)) {
    // Still led on by the same answer (a tool's outcome passes its leadIn on as is): this step's globals go back with it too.
    const before = withLaterStep(lead.before, trail.toolOutcomeAt.context as RunContext, ctx);
    if (before !== lead.before) {
      next.leadIn = { ...lead, before };
      changed = true;
    }
  }
  const rerouted = atTool ? reroutedOn(trail, node!.id) : undefined;
  if (rerouted !== undefined || ctx.rerouted !== undefined) {
    next.rerouted = rerouted;
    changed = true;
  }
  if (!changed) return result;
  return [compiled.machine.resolveState({ value: snap.value, context: { ...ctx, ...next } }), actions];
}

/** The entry routes and tool nodes since the run last rested at a node someone answers, now that it rests at tool node `toolId`. */
function reroutedOn(trail: StepTrail, toolId: string): Rerouted | undefined {
  if (trail.carried === undefined && trail.routes.length === 0) return undefined;
  const routes = [...(trail.carried?.routes ?? [])];
  for (const r of trail.routes) {
    if (!routes.some((known) => known.nodeId === r.nodeId && known.via === r.via && known.code === r.code)) routes.push(r);
  }
  const tools = trail.carried?.tools.includes(toolId) ? trail.carried.tools : [...(trail.carried?.tools ?? []), toolId];
  return { routes, tools };
}

/** Whether two leadIns are the same accepted answer (its node, attempt and identity). */
function sameAnswer(a: LeadIn | undefined, b: LeadIn): boolean {
  return a !== undefined && a.nodeId === b.nodeId && a.attempt === b.attempt && a.userId === b.userId;
}
