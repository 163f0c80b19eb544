import type { Command } from './command.js';
import { graph } from './graph.js';
import { run } from './run.js';
import { runs } from './runs.js';
import { start } from './start.js';
import { status } from './status.js';
import { step } from './step.js';
import { trace } from './trace.js';
import { validate } from './validate.js';

export type { Command };
export const COMMANDS: Readonly<Record<string, Command>> = { validate, start, step, status, runs, trace, graph, run };
