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

const scopeCache = new WeakMap<RunContext, Scope>();

/** The runtime scope of a run context (contexts are immutable, so it is cached per context). */
export function scopeOf(ctx: RunContext, workflow: Workflow): Scope {
  let scope = scopeCache.get(ctx);
  if (!scope) {
    const facts = workflowFacts(workflow);
    scope = runtimeScope(ctx, facts.nodeIds, facts.globals);
    scopeCache.set(ctx, scope);
  }
  return scope;
}

/** Reads a path from a run context with the one resolver. */
export function lookup(ctx: RunContext, workflow: Workflow, path: string | Segment[]): Resolution {
  return resolve(path, scopeOf(ctx, workflow));
}
