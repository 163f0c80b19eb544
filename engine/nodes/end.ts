/**
 * `end`: completes the run. `finalOutput` names the variables returned as
 * the run's output; a name that resolves to nothing is left out (the
 * validator warns about it).
 */
import type { EndNode, JsonObject, JsonValue } from '../format/model.js';
import type { FinalType, VariableRead } from './node-type.js';
import { lookup } from './workflow-facts.js';

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
      const r = lookup(ctx, workflow, name);
      if (r.found && r.value !== undefined) out[name] = r.value as JsonValue;
    }
    return out;
  },
};
