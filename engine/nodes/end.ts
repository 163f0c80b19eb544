/**
 * `end`: completes the run. `finalOutput` names the variables returned as
 * the run's output; a name that resolves to nothing is left out (the
 * validator warns about it).
 */
import type { EndNode, JsonObject, JsonValue } from '../format/model.js';
import type { FinalType, VariableRead } from './node-type.js';
import { lookup } from './workflow-facts.js';
import { parsePath } from '../format/path.js';

/**
 * Validation refuses a name that is not a path; a run stored before it did
 * leaves such a name out, as it does any name that resolves to nothing,
 * instead of failing every answer that would complete it.
 */
function resolvable(name: string): boolean {
  try {
    parsePath(name);
    return true;
  } catch {
    return false;
  }
}

export const end: FinalType = {
  type: 'end',
  kind: 'final',
  connections: { required: [], optional: [] },
  declares() {
    return { local: [], globals: [] };
  },
  // finalOutput names are checked by the validator as warnings, not as reads.
  reads(): VariableRead[] {
    return [];
  },
  check() {
    return [];
  },
  output(node: EndNode, ctx, workflow) {
    const out: JsonObject = {};
    for (const name of node.finalOutput ?? []) {
      const r = resolvable(name) ? lookup(ctx, workflow, name) : undefined;
      if (r?.found && r.value !== undefined) out[name] = r.value as JsonValue;
    }
    return out;
  },
};
