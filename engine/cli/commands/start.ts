import { printJson, readInputArg, reportFailure, usage } from '../io.js';
import { renderState } from '../render.js';
import { printToolsRun, toolsRunSince } from '../tools-run.js';
import { STORE_OPTIONS, TOOL_MODULE_OPTIONS, withEngine, workspaceDir, type Command } from './command.js';
import type { JsonObject } from '../../format/model.js';
import { resolve } from 'node:path';

export const command: Command = {
  usage: 'countersign start <file> [--input JSON|@file] [--as ID] [--workspace DIR] [--allow-tool-modules] [--store DIR] [--json]\n  exit 0 started (waiting or completed), 1 the run failed, 2 usage or invalid workflow',
  options: { ...STORE_OPTIONS, ...TOOL_MODULE_OPTIONS, input: { type: 'string' }, as: { type: 'string' }, workspace: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw usage('start takes exactly one workflow file', 'countersign start workflows/review-fix-loop.json');
    const input = await readInputArg(values.input as string | undefined, io);
    // Checked before the store opens: a usage error leaves no store behind.
    const workspace = workspaceDir(io, values.workspace as string | undefined);
    const { state, toolsRun, toolModules } = await withEngine(values, io, async (engine, store) => {
      const started = await engine.start(resolve(io.cwd, positionals[0]), {
        input: input as JsonObject,
        as: values.as as string | undefined,
        workspace,
      });
      return { state: started, toolsRun: toolsRunSince(store, started.runId, 0), toolModules: (await engine.info(started.runId)).toolModules };
    });
    printToolsRun(io, toolsRun);
    if (values.json) printJson(io, toolsRun.length > 0 ? { ...state, toolsRun } : state);
    else io.stdout.write(renderState(state, values.store as string | undefined, { toolModules }));
    if (state.status === 'failed') reportFailure(io, state.error);
    return state.status === 'failed' ? 1 : 0;
  },
};
