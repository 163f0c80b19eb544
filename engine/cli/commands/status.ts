import { printJson, reportFailure, usage } from '../io.js';
import { noStore } from '../../store/open.js';
import { checkRunId } from '../../run/engine-checks.js';
import { renderState } from '../render.js';
import { journalMark, printToolsRun, toolsRunSince } from '../tools-run.js';
import { STORE_OPTIONS, TOOL_MODULE_OPTIONS, withEngine, type Command } from './command.js';

export const command: Command = {
  usage: 'countersign status <runId> [--allow-tool-modules] [--store DIR] [--json]\n  exit 0; 1 when a tool node this command ran failed the run; 2 when the run is unknown',
  options: { ...STORE_OPTIONS, ...TOOL_MODULE_OPTIONS },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw usage('status takes exactly one run id', 'countersign status <runId> (`countersign runs` lists them)');
    // Refused here, in the CLI's words (the fix is `countersign runs`), before any store is looked for.
    checkRunId(positionals[0]);
    const { state, toolsRun, toolModules } = await withEngine(values, io, async (engine, store) => {
      const mark = journalMark(store, positionals[0]);
      const now = await engine.status(positionals[0]);
      return { state: now, toolsRun: toolsRunSince(store, positionals[0], mark), toolModules: (await engine.info(positionals[0])).toolModules };
    }, (dir) => {
      throw noStore(positionals[0], dir);
    });
    printToolsRun(io, toolsRun);
    if (values.json) printJson(io, toolsRun.length > 0 ? { ...state, toolsRun } : state);
    else io.stdout.write(renderState(state, values.store as string | undefined, { toolModules }));
    // Like step: a run this command failed (through a tool node it ran) is exit 1.
    if (state.status === 'failed' && toolsRun.length > 0) {
      reportFailure(io, state.error);
      return 1;
    }
    return 0;
  },
};
