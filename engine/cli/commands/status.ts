import { printJson, usage } from '../io.js';
import { renderState } from '../render.js';
import { STORE_OPTIONS, TOOL_MODULE_OPTIONS, withEngine, type Command } from './command.js';

export const command: Command = {
  usage: 'countersign status <runId> [--allow-tool-modules] [--store DIR] [--json]\n  exit 0, or 2 when the run is unknown',
  options: { ...STORE_OPTIONS, ...TOOL_MODULE_OPTIONS },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw usage('status takes exactly one run id');
    const state = await withEngine(values, io, (engine) => engine.status(positionals[0]));
    if (values.json) printJson(io, state);
    else io.stdout.write(renderState(state));
    return 0;
  },
};
