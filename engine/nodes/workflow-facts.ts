/**
 * Facts derived once per workflow object and shared by every step: node
 * lookup, declared globals, and the runtime scope over a run's context.
 */
import type { Workflow, WorkflowNode } from '../format/model.js';
import { resolve, runtimeScope, type Resolution, type Scope } from '../format/resolver.js';
import type { Segment } from '../format/path.js';
import type { RunContext } from './node-type.js';

export interface WorkflowFacts {
  nodeIds: ReadonlySet<string>;
  byId: ReadonlyMap<string, WorkflowNode>;
  /** Registry names plus initialData names plus names node types declare. */
  globals: ReadonlySet<string>;
}

const factsCache = new WeakMap<Workflow, WorkflowFacts>();
let globalsOfNode: (node: WorkflowNode) => string[] = () => [];

/** Set by the node registry so facts know what each node type declares globally. */
export function setGlobalsOfNode(fn: (node: WorkflowNode) => string[]): void {
  globalsOfNode = fn;
}

export function workflowFacts(workflow: Workflow): WorkflowFacts {
  let facts = factsCache.get(workflow);
  if (facts) return facts;
  const byId = new Map<string, WorkflowNode>();
  const globals = new Set<string>(Object.keys(workflow.variableRegistry ?? {}));
  for (const node of workflow.nodes) {
    byId.set(node.id, node);
    if (node.type === 'start') {
      for (const name of Object.keys(node.initialData?.variables ?? {})) globals.add(name);
    }
    for (const name of globalsOfNode(node)) globals.add(name);
  }
  facts = { nodeIds: new Set(byId.keys()), byId, globals };
  factsCache.set(workflow, facts);
  return facts;
}

// One slot, not a WeakMap: contexts are short-lived and consecutive reads
// (a directive's templates, a condition's operands) share one context.
let lastScope: { ctx: RunContext; workflow: Workflow; scope: Scope } | undefined;

/** The runtime scope of a run context (contexts are immutable, so the last one is reused). */
export function scopeOf(ctx: RunContext, workflow: Workflow): Scope {
  if (lastScope && lastScope.ctx === ctx && lastScope.workflow === workflow) return lastScope.scope;
  const facts = workflowFacts(workflow);
  const scope = runtimeScope(ctx, facts.nodeIds, facts.globals);
  lastScope = { ctx, workflow, scope };
  return scope;
}

/** Reads a path from a run context with the one resolver. */
export function lookup(ctx: RunContext, workflow: Workflow, path: string | Segment[]): Resolution {
  return resolve(path, scopeOf(ctx, workflow));
}
