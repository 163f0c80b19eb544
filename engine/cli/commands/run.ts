import { interruptible } from '../signals.js';
import { handOverSignals } from '../interrupted.js';
import { noStore } from '../../store/open.js';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { Agent } from '../../hosts/agent.js';
import { readSource } from '../../format/source.js';
import { validateDocument } from '../../validate/index.js';
import { answeredNodeIds, asksAgents } from '../../nodes/index.js';
import { CountersignError } from '../../errors.js';
import { adapterLabel, createAgent } from '../../hosts/adapters.js';
import { answersTaken } from '../../hosts/scripted.js';
import type { JsonObject } from '../../format/model.js';
import { printJson, readInputArg, reportFailure, usage } from '../io.js';
import { indent, storeArg, withStore, withToolModules } from '../render.js';
import { progressPrinter } from '../progress.js';
import { reportForcedStop, type ForcedStop } from './run-forced.js';
import { STORE_OPTIONS, TOOL_MODULE_OPTIONS, withEngine, workspaceDir, type Command } from './command.js';
import { reviewerFor, timeoutFrom } from './gate.js';
import { gateToolChain } from '../../gate/gate-chain.js';
import { answerHint } from '../../run/step-hint.js';
import { workspaceStillThere } from '../../run/engine-checks.js';

export const command: Command = {
  usage: [
    'countersign run <file> [--agent <adapter>] [--reviewer <adapter>] [--input JSON|@file] [--max-steps N] [--agent-timeout S] [--workspace DIR] [--agent-id ID] [--reviewer-id ID] [--allow-tool-modules] [--store DIR] [--json]',
    'countersign run --resume <runId> --agent <adapter> [--reviewer <adapter>] [...]',
    '  [--gate-reviewer <adapter>|reply:<file> [--agents DIR] [--gate-timeout-ms N]]: a review gate for the write and destructive',
    '  tools agents request with $tool lines (refused without one, E_GATE_REQUIRED); proposal and execution rows go to the store.',
    '  adapters: scripted:<file> | jsonl:<command> | exec:<command> | interactive (--agent may be left out for a workflow of tool nodes only)',
    '  review items go to --reviewer (required when the workflow has review-loop nodes; a decision review goes to --agent without one); every other item to --agent.',
    '  identities: the agent answers as local, the reviewer as a digest of its adapter (<kind>-<12 hex>), unless --agent-id',
    '  (alias --as) / --reviewer-id say otherwise; they must differ.',
    '  exit 0 completed, 1 failed, 2 usage or invalid workflow, 3 stopped while still waiting (resumable)',
  ].join('\n'),
  options: {
    ...STORE_OPTIONS,
    ...TOOL_MODULE_OPTIONS,
    agent: { type: 'string' },
    reviewer: { type: 'string' },
    'agent-id': { type: 'string' },
    'reviewer-id': { type: 'string' },
    input: { type: 'string' },
    'max-steps': { type: 'string' },
    'agent-timeout': { type: 'string' },
    workspace: { type: 'string' },
    as: { type: 'string' },
    resume: { type: 'string' },
    'gate-reviewer': { type: 'string' },
    agents: { type: 'string' },
    'gate-timeout-ms': { type: 'string' },
  },
  async run(values, positionals, io) {
    const resumeId = values.resume as string | undefined;
    // An unset shell variable (`--resume "$RID"`) is no run id: refused, never read as "start a new run".
    if (resumeId !== undefined && resumeId.trim() === '') {
      throw usage('--resume needs a run id, and was given an empty value', 'pass the runId of the run to continue (`countersign runs` lists them; is the shell variable you passed unset?), or leave --resume out to start a new run from a workflow file');
    }
    if (resumeId ? positionals.length !== 0 : positionals.length !== 1) {
      throw usage('run takes exactly one workflow file (or --resume <runId>)', 'countersign run workflows/review-fix-loop.json --agent scripted:answers.yaml');
    }
    if (values.agent !== undefined && String(values.agent).trim() === '') throw usage('--agent needs an adapter', 'use --agent scripted:<file>, jsonl:<command>, exec:<command> or interactive');
    const maxSteps = positiveNumber(values['max-steps'], '--max-steps', true);
    const timeoutS = positiveNumber(values['agent-timeout'], '--agent-timeout', false);
    // As long as a node's own deadline may be: a longer wait is no limit at all (and in milliseconds may not even be a finite number).
    if (timeoutS !== undefined && timeoutS > MAX_AGENT_TIMEOUT_S) {
      throw usage(`--agent-timeout must be at most ${MAX_AGENT_TIMEOUT_S} seconds (1 year), got "${String(values['agent-timeout'])}"`, 'pass the seconds to wait for each answer, e.g. --agent-timeout 600, or leave it out for the 600 s default');
    }
    // Both would read standard input: the input would take all of it, and the prompt would find it closed.
    if (values.input === '-' && [values.agent, values.reviewer, values['gate-reviewer']].some((a) => typeof a === 'string' && a.trim() === 'interactive')) {
      throw usage('--input - and an interactive adapter cannot both read standard input', 'pass the input as JSON or @file when a person answers at the terminal');
    }
    const input = await readInputArg(values.input as string | undefined, io);
    // Compared as they are used (trimmed): "bob " and "bob" are one identity.
    if (values.as !== undefined && values['agent-id'] !== undefined && String(values.as).trim() !== String(values['agent-id']).trim()) {
      throw usage('--as and --agent-id name the same thing (the agent identity) and disagree', 'give only --agent-id');
    }
    // A workflow of tool nodes only needs no agent; one that asks agents anything does.
    // (A resumed run's workflow is the stored copy: an item that needs an agent stops it, saying so.)
    if (values.agent === undefined && resumeId === undefined && fileAsksAgents(resolve(io.cwd, positionals[0]))) {
      throw usage('run needs --agent', 'use --agent scripted:<file>, jsonl:<command>, exec:<command> or interactive');
    }
    const agentSpec = values.agent === undefined ? NO_AGENT : String(values.agent).trim();
    const reviewerSpec = values.reviewer === undefined ? undefined : String(values.reviewer).trim();
    // The agent answers as `local` (as `step` does) unless named; the
    // reviewer, who must be someone else, as its adapter: a digest of its
    // normalised spec, so two spellings of one adapter (`scripted:a.yaml`,
    // `scripted: ./a.yaml`) are one identity.
    const givenAgentId = nonEmpty(values['agent-id'], '--agent-id') ?? nonEmpty(values.as, '--as');
    const agentId = givenAgentId ?? 'local';
    const givenReviewerId = nonEmpty(values['reviewer-id'], '--reviewer-id');
    if (givenReviewerId !== undefined && reviewerSpec === undefined) {
      throw usage('--reviewer-id names the reviewer\'s identity, and there is no --reviewer', 'add --reviewer <adapter>, or leave out --reviewer-id');
    }
    const reviewerId = reviewerSpec === undefined ? undefined : (givenReviewerId ?? adapterIdentity(reviewerSpec, io.cwd));
    // One adapter in both roles, with no identities named apart: the producer would review itself.
    if (reviewerSpec !== undefined && givenAgentId === undefined && givenReviewerId === undefined && agentSpec !== NO_AGENT
      && adapterIdentity(reviewerSpec, io.cwd) === adapterIdentity(agentSpec, io.cwd)) {
      throw new CountersignError('E_SELF_REVIEW', `--reviewer is the same adapter as --agent (${adapterLabel(reviewerSpec, '--reviewer').name}): a review must come from someone other than the producer`, {
        fix: 'give --reviewer its own agent (another command, script or model), or name two identities with --agent-id and --reviewer-id if the one adapter really serves two independent agents',
      });
    }
    if (agentSpec === 'interactive' && reviewerSpec === 'interactive') {
      // Two prompts on one terminal would read each other's lines, and one
      // person typing both roles is no independent review.
      throw usage('--agent and --reviewer cannot both be interactive', 'let one person answer the reviews (--reviewer interactive) and an agent produce, or the other way round');
    }
    const gateSpec = values['gate-reviewer'] === undefined ? undefined : String(values['gate-reviewer']).trim();
    if (gateSpec === '') throw usage('--gate-reviewer needs an adapter', 'use --gate-reviewer jsonl:<command> (the persona\'s driver) or reply:<file>');
    // The second signature must not come from the agent whose calls it signs (A3; as --reviewer must differ from --agent).
    if (gateSpec !== undefined && !/^\s*reply\s*:/.test(gateSpec) && adapterIdentity(gateSpec, io.cwd) === adapterIdentity(String(values.agent ?? '').trim(), io.cwd)) {
      throw usage('--gate-reviewer is the same adapter as --agent: an agent may not approve its own tool calls', 'give the review gate its own reviewer (a different command or persona driver), or reply:<file> for a fixed reply');
    }
    if (gateSpec === undefined && (values.agents !== undefined || values['gate-timeout-ms'] !== undefined)) {
      throw usage(`${values.agents !== undefined ? '--agents' : '--gate-timeout-ms'} configures the review gate, and there is none`, 'add --gate-reviewer <adapter>, or leave the flag out');
    }
    const gateTimeoutMs = gateSpec === undefined ? undefined : timeoutFrom(values['gate-timeout-ms'], '--gate-timeout-ms');
    if (gateSpec === 'interactive' && (agentSpec === 'interactive' || reviewerSpec === 'interactive')) {
      throw usage(`--gate-reviewer and ${agentSpec === 'interactive' ? '--agent' : '--reviewer'} cannot both be interactive`, 'two prompts on one terminal would read each other\'s lines: let one person answer the gate\'s reviews, and an adapter the rest');
    }
    // Checked before the store opens: a usage error leaves no store behind.
    const given = resumeId ? undefined : workspaceDir(io, values.workspace as string | undefined);
    return withEngine(values, io, async (engine, store) => {
      // A resumed run keeps the working directory it was started with: its
      // review paths were resolved there, so agents must work there too.
      let workspace: string;
      if (resumeId) {
        const info = await engine.info(resumeId);
        // An ended run asks no agent anything: its workspace may be gone, and is not where agents start then.
        workspace = info.status === 'waiting' ? info.workspace : io.cwd;
        // As for a new run: a workflow that asks an agent anything needs --agent, said before anything runs (exit 2, not an agent fault).
        if (agentSpec === NO_AGENT && info.asksAgents && info.status === 'waiting') {
          const fix = `continue with countersign run --resume ${resumeId} --agent <adapter> (scripted:<file>, jsonl:<command>, exec:<command> or interactive)`;
          throw usage(`run ${resumeId} needs --agent: its workflow asks an agent for answers`, info.toolModules ? withToolModules(fix) : fix);
        }
        if (values.workspace !== undefined && workspaceDir(io, values.workspace as string) !== info.workspace) {
          throw usage(`run ${resumeId} works in ${info.workspace}; --workspace cannot move it`, 'leave out --workspace when resuming');
        }
        // The run's variables were set when it started; a new input would be silently dropped.
        if (values.input !== undefined) {
          throw usage(`run ${resumeId} keeps the input it started with; --input cannot change it`, 'leave out --input when resuming (start a new run for other input)');
        }
        // Said as run() says it (E_FILE_NOT_FOUND, restore it), before createAgent would refuse it as its cwd.
        // Only a run with work left needs it: an ended run is reported as it stands.
        if (info.status === 'waiting') workspaceStillThere(info);
      } else {
        workspace = given!;
      }
      // A script file is named relative to where the user typed the command
      // (createAgent resolves it against cwd, after refusing an empty one);
      // agent processes run in the workspace.
      // A resumed script continues after the answers the run already took, as if it had never stopped.
      const answered = resumeId ? answersTaken((await engine.trace(resumeId)).events) : undefined;
      // A spinner would overwrite the interactive adapter's prompt.
      const progress = progressPrinter(io, { spinner: io.isTTY && agentSpec !== 'interactive' && reviewerSpec !== 'interactive' && gateSpec !== 'interactive', reviewer: reviewerSpec !== undefined });
      // Agents' stderr goes through the progress display, so it never lands on the spinner's line.
      // A script's keys are checked against the run's workflow: a resumed run's own copy, or the file a new run starts from.
      const nodeIds = resumeId ? (await engine.info(resumeId)).answeredNodeIds : nodeIdsOf(resolve(io.cwd, positionals[0]));
      const adapter = (spec: string, flag: string) =>
        createAgent(spec, {
          cwd: /^\s*scripted\s*:/.test(spec) ? io.cwd : workspace,
          env: io.env,
          flag,
          stderr: progress.agentOutput,
          ...(answered ? { answered } : {}),
          ...(nodeIds ? { nodeIds } : {}),
        });
      const agent = agentSpec === NO_AGENT ? noAgent(resumeId) : adapter(agentSpec, '--agent');
      const reviewer = reviewerSpec === undefined ? undefined : adapter(reviewerSpec, '--reviewer');
      const gateReviewer = gateSpec === undefined ? undefined : reviewerFor(gateSpec, /^\s*(reply|scripted)\s*:/.test(gateSpec) ? io.cwd : workspace, io.env, '--gate-reviewer');
      const toolChain = gateReviewer === undefined ? undefined : gateToolChain({
        store,
        reviewer: gateReviewer,
        timeoutMs: gateTimeoutMs,
        ...(values.agents ? { agentsDir: resolve(io.cwd, values.agents as string) } : {}),
        log: (m) => io.stderr.write(`countersign run: review gate: ${m}\n`),
      });
      for (const w of toolChain?.reviewGate.gate.warnings ?? []) io.stderr.write(`warning: ${w}\n`);
      // Where the drive is, for a stop that cannot wait for it to return (run-forced.ts).
      const drive: ForcedStop = { ...(resumeId ? { runId: resumeId } : {}), json: values.json === true, ...(values.store ? { store: values.store as string } : {}) };
      let reported = false;
      // Agents run in their own process groups: stopped here if the run is interrupted (signals.ts), no longer by main's guard.
      handOverSignals();
      const interrupt = interruptible(async () => {
        progress.stop();
        // Ended before the drive returned: where the run stands is said now, or never.
        if (!reported) {
          reported = true;
          await reportForcedStop(io, engine, drive).catch(() => undefined);
        }
        return Promise.all([agent.close?.(), reviewer?.close?.(), gateReviewer?.close?.()]);
      });
      try {
        const driven = await engine.run(resumeId ? { runId: resumeId } : resolve(io.cwd, positionals[0]), {
          agent,
          reviewer,
          // A resumed run keeps its own input and workspace (refused above when given).
          ...(resumeId ? {} : { input: input as JsonObject, workspace }),
          as: agentId,
          reviewerAs: reviewerId,
          maxSteps,
          agentTimeoutMs: timeoutS === undefined ? undefined : timeoutS * 1000,
          onProgress: (event) => {
            if (event.type === 'driving') {
              drive.runId = event.runId;
              // Where this drive's part of the journal begins: a forced stop counts the answers after it.
              drive.journalFrom = engine.trace(event.runId).then((t) => t.events.length, () => 0);
            }
            progress(event);
          },
          signal: interrupt.signal,
          ...(toolChain ? { toolChain } : {}),
          labels: {
            agent: adapterLabel(agentSpec, '--agent'),
            ...(reviewerSpec === undefined ? {} : { reviewer: adapterLabel(reviewerSpec, '--reviewer') }),
          },
        });
        reported = true;
        // The commands a stop suggests name the store this run lives in when --store chose it: run as printed, they find the run.
        // And --allow-tool-modules, when the run's workflow names tool modules: without it they would be refused.
        const info = await engine.info(driven.runId).catch((e: unknown) => {
          // A drive the store stopped is reported with its run id even if the store cannot be read now either.
          if (driven.error?.code === 'E_STORE') return undefined;
          throw e;
        });
        const toolModules = info?.toolModules ?? false;
        const result = withStoreInHints(driven, values.store as string | undefined, toolModules);
        progress.stop();
        if (values.json) printJson(io, result);
        else if (result.status === 'completed') {
          io.stdout.write(`completed at "${result.endNodeId}"${result.outcome ? ` (outcome ${result.outcome})` : ''} after ${result.steps} step(s)\noutput:\n${indent(JSON.stringify(result.output, null, 2))}\n`);
        } else if (result.status === 'failed') {
          io.stdout.write(`failed at "${result.error?.nodeId ?? '?'}": ${result.error?.code}: ${result.error?.message}\n`);
        } else {
          const withReviewer = reviewer ? ' --reviewer <adapter>' : '';
          const atTool = result.error && TOOL_STOPS.has(result.error.code);
          io.stdout.write((toolModules ? withToolModules : (t: string) => t)(atTool
            ? `stopped; run ${result.runId} waits at tool node "${result.error!.nodeId ?? '?'}", which this process did not run (${result.error!.code})\nnext: ${result.error!.fix ?? 'see the error above'}\n`
            // Without --agent, only a run that needs none resumes as it was run (an E_ADAPTER stop needs one).
            : agentSpec === NO_AGENT && result.error?.code !== 'E_ADAPTER'
              ? `stopped; run ${result.runId} is still waiting\nresume with: countersign run --resume ${result.runId}${storeArg(values.store as string | undefined)}\n`
              : `stopped; run ${result.runId} is still waiting\nresume with: countersign run --resume ${result.runId}${storeArg(values.store as string | undefined)} --agent <adapter>${withReviewer}${info ? `  (or ${answerHint(result.runId, info.seq, info.pending, storeArg(values.store as string | undefined))})` : ''}\n`));
        }
        if (result.error) reportFailure(io, result.error);
        // Interrupted: the signal's conventional status, after saying where the run stands.
        return interrupt.status() ?? (result.status === 'completed' ? 0 : result.status === 'failed' ? 1 : 3);
      } finally {
        progress.stop();
        // The handlers stay until the agents are closed: a second Ctrl-C while
        // a slow agent is being stopped must still stop it, never orphan it.
        await Promise.all([agent.close?.(), reviewer?.close?.(), gateReviewer?.close?.()]);
        // What an agent wrote to stderr while it was being closed, a last line without its newline included.
        progress.stop();
        interrupt.off();
      }
    }, resumeId === undefined ? undefined : (dir) => {
      throw noStore(resumeId, dir);
    });
  },
};


/**
 * The ids of the workflow file's nodes that take answers, to check a script
 * against; undefined when it cannot be read or does not validate: run then
 * reports that itself (E_WORKFLOW_INVALID), never a script named against a
 * workflow that cannot run.
 */
function nodeIdsOf(file: string): string[] | undefined {
  try {
    const doc = readSource(file);
    if (!validateDocument(doc).ok) return undefined;
    const nodes = (doc.data as { nodes?: Array<{ id?: unknown; type?: unknown }> }).nodes;
    return Array.isArray(nodes) ? answeredNodeIds(nodes.filter((n) => n !== null && typeof n === 'object')) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the workflow file has nodes an agent answers (a directive, a review); unreadable files are left to run's own error. */
function fileAsksAgents(file: string): boolean {
  try {
    const nodes = (readSource(file).data as { nodes?: Array<{ type?: unknown }> } | null)?.nodes;
    // A file with no nodes list is no workflow: not a reason to ask for --agent (loading it says what is wrong).
    return Array.isArray(nodes) && asksAgents(nodes);
  } catch {
    return false;
  }
}

/** The agent spec when --agent is not given. */
const NO_AGENT = '(no --agent)';

/** Stands in for a missing --agent: the first item that needs one stops the run (resumable) saying so. */
function noAgent(resumeId: string | undefined): Agent {
  return {
    answer: async (request) => {
      throw new CountersignError('E_ADAPTER', `node "${request.nodeId}" needs an agent, and run was given no --agent`, {
        nodeId: request.nodeId,
        fix: `continue with countersign run --resume ${resumeId ?? request.runId} --agent <adapter> (scripted:<file>, jsonl:<command>, exec:<command> or interactive)`,
      });
    },
  };
}

/** Stops at a tool node: the next step is that reason's own, not an agent's answer. */
const TOOL_STOPS: ReadonlySet<string> = new Set(['E_TOOL_UNKNOWN', 'E_TOOL_MODULE_BLOCKED', 'E_TOOL_MODULE', 'E_TOOL_DEFINITION', 'E_TOOL_RUNNING']);

function nonEmpty(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  if (text === '') throw usage(`${flag} needs a non-empty identity`, `pass ${flag} <identity> (a name such as alice; is the shell variable you passed unset?), or leave it out`);
  return text;
}

/** One year: the longest `timeoutMs` a node may have. */
const MAX_AGENT_TIMEOUT_S = 365 * 24 * 3600;

function positiveNumber(value: unknown, flag: string, whole: boolean): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  const n = Number(text);
  if (text === '' || !Number.isFinite(n) || n <= 0 || (whole && !Number.isInteger(n))) {
    throw usage(`${flag} must be a positive ${whole ? 'whole ' : ''}number, got "${String(value)}"`, `write it as ${flag} ${whole ? '10' : '600'}${whole ? '' : ' (seconds; fractions such as 0.5 too)'}, or leave it out`);
  }
  return n;
}

/** `kind:argument` with the argument trimmed (and a script's path resolved), or `interactive`. */
function adapterIdentity(spec: string, cwd: string): string {
  const colon = spec.indexOf(':');
  if (colon === -1) return spec.trim();
  const kind = spec.slice(0, colon).trim();
  const arg = spec.slice(colon + 1).trim();
  const normalised = `${kind}:${kind === 'scripted' && arg !== '' ? resolve(cwd, arg) : arg}`;
  // Named by a digest, never by the command itself: the identity is rendered
  // into prompts ({{userId}}) and kept in the journal, and a command line may
  // carry a secret (`exec:API_KEY=… node agent.mjs`). Equal adapters still get
  // equal identities, so an agent reviewing itself is still caught.
  return `${kind}-${createHash('sha256').update(normalised).digest('hex').slice(0, 12)}`;
}

/** The result with `--store DIR` added to the countersign commands its error's fix suggests. */
function withStoreInHints<T extends { error?: { fix?: string } }>(result: T, store: string | undefined, toolModules: boolean): T {
  const fix = result.error?.fix;
  if (fix === undefined) return result;
  const hinted = withStore(toolModules ? withToolModules(fix) : fix, store);
  return hinted === fix ? result : { ...result, error: { ...result.error, fix: hinted } };
}
