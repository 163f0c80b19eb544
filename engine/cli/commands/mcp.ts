import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { openStore } from '../../store/open.js';
import { serveStdio } from '../../hosts/mcp/server.js';
import { signalStatus } from '../signals.js';
import { workflowDirs } from '../../hosts/mcp/workflows.js';
import { VERSION } from '../help.js';
import { usage } from '../io.js';
import { workspaceDir, type Command } from './command.js';

export const command: Command = {
  usage:
    'countersign mcp [--store DIR] [--workflows DIR]... [--workspace DIR] [--allow-tool-modules]\n' +
    '  serves MCP over stdio (tools: list_workflows, validate, start, step, status, runs, trace) until the client closes stdin\n' +
    '  --workflows  a folder of workflows startable by name (repeatable; default ./workflows and, with --workspace, DIR/workflows, read on every call, so one created while the server runs is found); the shipped workflows come last\n' +
    '  --workspace  the default workspace of runs started without one (default: the current directory)\n' +
    '  --allow-tool-modules  load the toolModules workflows name (runs their code; off by default: E_TOOL_MODULE_BLOCKED)\n' +
    '  exit 0 when the client hangs up, 2 on usage errors, 130 / 143 / 129 when ended by SIGINT / SIGTERM / SIGHUP (after answering the calls still running)',
  options: {
    store: { type: 'string' },
    workflows: { type: 'string', multiple: true },
    workspace: { type: 'string' },
    'allow-tool-modules': { type: 'boolean' },
  },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw usage('mcp takes no arguments', 'countersign mcp [--store DIR] [--workflows DIR]... [--workspace DIR]');
    const given = (values.workflows as string[] | undefined) ?? [];
    for (const dir of given) {
      // An unset shell variable ("") is no folder: said, as an empty --store or --workspace is.
      if (dir.trim() === '') throw usage('--workflows "" names no folder', 'pass a folder that holds workflow files, or leave --workflows out');
      if (!isDirectory(resolve(io.cwd, dir))) {
        throw usage(`--workflows ${resolve(io.cwd, dir)} is not an existing directory`, 'name a folder that holds workflow files (.json, .yaml, .yml)');
      }
    }
    const workspace = workspaceDir(io, values.workspace as string | undefined);
    const store = openStore({ store: values.store as string | undefined, cwd: io.cwd, env: io.env });
    const { signal } = await serveStdio({
      store,
      cwd: io.cwd,
      workflowDirs: workflowDirs(io.cwd, given, values.workspace !== undefined ? workspace : undefined),
      workspace,
      allowToolModules: values['allow-tool-modules'] === true,
      version: VERSION,
      stdin: io.stdin as Readable,
      stdout: io.stdout as Writable,
      log: (line) => io.stderr.write(`${line}\n`),
    });
    // Ended by a signal: its conventional status, as every command has (130 for Ctrl-C, 143 for kill).
    return signal !== undefined ? signalStatus(signal) : 0;
  },
};

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
