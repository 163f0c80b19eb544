/**
 * The commands, loaded on demand: a `status` should not pay for parsing
 * YAML or compiling the workflow schema, which only `validate` and `start`
 * need.
 */
import type { Command } from './command.js';

export type { Command };

type Loader = () => Promise<{ command: Command }>;

export const COMMANDS: Readonly<Record<string, Loader>> = {
  validate: () => import('./validate.js'),
  start: () => import('./start.js'),
  step: () => import('./step.js'),
  status: () => import('./status.js'),
  runs: () => import('./runs.js'),
  trace: () => import('./trace.js'),
  graph: () => import('./graph.js'),
  run: () => import('./run.js'),
  mcp: () => import('./mcp.js'),
  gate: () => import('./gate.js'),
  audit: () => import('./audit.js'),
  confirm: () => import('./confirm.js'),
  'pr-status': () => import('./pr-status.js'),
};
