/**
 * `tool`: a step the workflow's author wrote that runs one registered tool
 * (ADR-019). Its arguments are rendered from templates — a string that is
 * one whole `{{path}}` keeps the value's JSON type — then checked against
 * the tool's inputSchema before anything runs. The engine runs the tool
 * itself, outside the machine, and feeds the outcome back as an answer from
 * the engine's own identity: success stores `node-id.result`; any failure
 * (bad arguments, access refused, the tool throwing) takes `error` or
 * fails the run, loudly, never retried through another path.
 */
import type { JsonObject, JsonValue, ToolNode, Workflow } from '../format/model.js';
import { parsePath } from '../format/path.js';
import { renderTemplate } from '../format/template.js';
import { suggest } from '../format/suggest.js';
import { accessDenial } from '../tools/access.js';
import { checkTemplate, templateReads } from './checks.js';
import type { Finding, RunContext, VariableRead, WaitingType } from './node-type.js';
import { lookup } from './workflow-facts.js';
import type { Tool } from '../tools/tool.js';

/** The identity tool outcomes are submitted under; no host may answer as it. */
export const ENGINE_ID = 'countersign-engine';
/** The shape of the engine's own answer to a tool node. */
export type ToolOutcome = { ok: true; result: JsonValue } | { ok: false; code: string; message: string; fix?: string };

const WHOLE_TEMPLATE = /^\{\{\s*([^{}#/\s][^{}]*?)\s*\}\}$/;

export const toolNode: WaitingType<ToolNode> = {
  type: 'tool',
  kind: 'waiting',
  answeredByEngine: true,
  connections: { required: ['success'], optional: ['error'] },

  declares(node) {
    // `error` ({code, message, fix?}) is set only when the node takes its error route.
    return { local: node.connections?.error !== undefined ? ['result', 'error'] : ['result'], globals: [] };
  },

  reads(node, pointer) {
    return strings(node.args ?? {}, `${pointer}/args`).flatMap(([text, at]) => templateReads(text, at));
  },

  check(node, ctx): Finding[] {
    const findings = strings(node.args ?? {}, `${ctx.pointer}/args`).flatMap(([text, at]) => checkTemplate(text, at));
    const known = ctx.tools;
    if (known && typeof node.tool === 'string') {
      const tool = known.get(node.tool);
      if (!tool) {
        const guess = suggest(node.tool, known.keys());
        // validate does not run a workflow's modules: their tools are unknown to it, not wrong.
        const maybeModule = !ctx.modulesLoaded && (ctx.workflow.toolModules?.length ?? 0) > 0;
        findings.push({
          code: 'E_TOOL_UNKNOWN',
          message: maybeModule
            ? `tool "${node.tool}" is not built in; it may come from the workflow's toolModules, which validate loads only with --allow-tool-modules (as the run does)`
            : `no tool named "${node.tool}" is registered${guess ? ` — did you mean "${guess}"?` : ''}; known tools: ${[...known.keys()].join(', ')}`,
          pointer: `${ctx.pointer}/tool`,
          severity: maybeModule ? 'warning' : 'error',
        });
      } else {
        // The literal parts are checked now, exactly as the run will check
        // them; a templated value (and what lies under it) waits for the run.
        // No args at all is checked as {}, as the run renders it.
        // A whole `{{x}}` may render any JSON value: nothing about it is known
        // yet. Text around a template always renders a string, and keeps its
        // literal parts: a `type` the schema gives, or the tool's own rules
        // (a literal "### Verdict:" line), can already be judged.
        const withTemplate = strings(node.args ?? {}, '').filter(([text]) => text.includes('{{'));
        const whole = withTemplate.filter(([text]) => WHOLE_TEMPLATE.test(text)).map(([, at]) => at);
        const mixed = new Set(withTemplate.filter(([text]) => !WHOLE_TEMPLATE.test(text)).map(([, at]) => at));
        const underTemplate = (pointer: string, keyword: string | undefined) =>
          whole.some((t) => pointer === t || pointer.startsWith(`${t}/`)) || (mixed.has(pointer) && keyword !== undefined && keyword !== 'type');
        let problems: ReturnType<typeof tool.argProblems>;
        try {
          problems = tool.argProblems(node.args ?? {});
        } catch (e) {
          // The tool's own check broke: a defect of the tool, said here rather than at the run.
          problems = [];
          findings.push({ code: 'E_TOOL_DEFINITION', message: `tool "${node.tool}" could not check these args: ${e instanceof Error ? e.message : String(e)}; fix the tool's argument check (its inputSchema or refineArgs)`, pointer: `${ctx.pointer}/args`, severity: 'error' });
        }
        for (const p of problems) {
          // An extra key's pointer is the key itself (where the editor shows it); a missing one's is where it would go.
          const at = p.missing !== undefined ? `${p.pointer}/${escapePointer(p.missing)}` : p.pointer;
          // Key names are always literal: a key the schema forbids is refused whatever its value.
          if (p.unexpected === undefined && underTemplate(at, p.keyword)) continue;
          findings.push({
            code: 'E_TOOL_ARGS',
            message: `tool "${node.tool}" will refuse these args: ${p.pointer || '(root)'}: ${p.message}`,
            pointer: `${ctx.pointer}/args${p.pointer}`,
            severity: 'error',
          });
        }
        findings.push(...declaredTypeFindings(node, tool, ctx.workflow, ctx.pointer));
      }
    }
    const denial = typeof node.tool === 'string' ? accessDenial(ctx.workflow.access, node.agent, node.tool) : null;
    if (denial) {
      findings.push({
        code: 'E_TOOL_ACCESS',
        message: `${denial}; give the node an agent role the access map allows, or change the map`,
        pointer: `${ctx.pointer}/${node.agent === undefined ? 'tool' : 'agent'}`,
        severity: 'error',
      });
    }
    return findings;
  },

  maxRetries() {
    return 0;
  },

  pending(node, ctx, workflow) {
    const unset: string[] = [];
    const args = renderArgs(node.args ?? {}, ctx, workflow, unset) as JsonObject;
    return {
      pending: {
        kind: 'tool', nodeId: node.id, tool: node.tool, args, ...(node.agent ? { agent: node.agent } : {}),
        userId: ctx.meta.userId, ...(unset.length > 0 ? { unset: [...new Set(unset)] } : {}), attempt: ctx.attempt + 1, maxRetries: 0,
      },
      unset,
    };
  },

  answer(node, _ctx, submission) {
    if (submission.userId !== ENGINE_ID) {
      return { kind: 'rejected', code: 'E_TOOL_NODE', free: true, errors: [`node "${node.id}" runs the tool "${node.tool}" itself; it takes no answers`] };
    }
    const outcome = submission.answer as unknown as ToolOutcome;
    if (outcome.ok) {
      return { kind: 'accepted' as const, local: { result: outcome.result } as JsonObject, vars: {}, events: [{ type: 'tool.succeeded', nodeId: node.id, tool: node.tool }] };
    }
    const failed = { type: 'tool.failed', nodeId: node.id, tool: node.tool, code: outcome.code, message: outcome.message, ...(outcome.fix ? { fix: outcome.fix } : {}) };
    if (node.connections?.error !== undefined) {
      // The error route can say what went wrong: node-id.error holds the failure.
      const error: JsonObject = { code: outcome.code, message: outcome.message, ...(outcome.fix ? { fix: outcome.fix } : {}) };
      return { kind: 'accepted' as const, local: { error } as JsonObject, vars: {}, via: 'error', events: [failed as JsonObject] };
    }
    return {
      kind: 'rejected',
      code: outcome.code,
      final: true,
      errors: [outcome.message],
      journalAs: failed as JsonObject,
      ...(outcome.fix ? { fix: outcome.fix } : {}),
    };
  },
};

function renderArgs(value: JsonValue, ctx: RunContext, workflow: Workflow, unset: string[]): JsonValue {
  if (typeof value === 'string') {
    const whole = WHOLE_TEMPLATE.exec(value);
    if (whole) {
      const r = lookup(ctx, workflow, parsePath(whole[1]));
      if (r.found && r.value !== undefined) return structuredClone(r.value as JsonValue);
      unset.push(whole[1]);
      return null;
    }
    const rendered = renderTemplate(value, (path) => lookup(ctx, workflow, path));
    unset.push(...rendered.unset);
    return rendered.text;
  }
  if (Array.isArray(value)) return value.map((v) => renderArgs(v, ctx, workflow, unset));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderArgs(v, ctx, workflow, unset)]));
  }
  return value;
}

/**
 * A whole `{{x}}` argument whose source declares its schema — a registry
 * variable, or a field of a node's inputSchema — can be judged now: each
 * value of a declared enum must be one the tool takes, and a declared type
 * must be one it allows. `{{review.verdict}}` from the docs enum feeding
 * post_review's verdict is refused here, before any agent works.
 */
function declaredTypeFindings(node: ToolNode, tool: Pick<Tool, 'argProblems'>, workflow: Workflow, pointer: string): Finding[] {
  const findings: Finding[] = [];
  for (const [key, value] of Object.entries(node.args ?? {})) {
    const whole = typeof value === 'string' ? WHOLE_TEMPLATE.exec(value) : null;
    const source = whole ? declaredSchema(whole[1].trim(), workflow) : undefined;
    if (!source) continue;
    const at = `/${escapePointer(key)}`;
    const refusedOf = (sample: JsonValue, keywords?: ReadonlySet<string>) => {
      try {
        return tool.argProblems({ [key]: sample }).find((p) => p.pointer === at && (!keywords || keywords.has(p.keyword ?? '')));
      } catch {
        return undefined; // a broken argument check is reported above
      }
    };
    const candidates: Array<[JsonValue, ReadonlySet<string> | undefined]> = Array.isArray(source.enum)
      ? (source.enum as JsonValue[]).map((v) => [v, undefined])
      : typeof source.type === 'string' && source.type in TYPE_SAMPLES ? [[TYPE_SAMPLES[source.type], new Set(['type'])]] : [];
    for (const [sample, keywords] of candidates) {
      const refused = refusedOf(sample, keywords);
      if (!refused) continue;
      findings.push({
        code: 'E_TOOL_ARGS',
        message: `tool "${node.tool}" will refuse ${value}: its declared ${Array.isArray(source.enum) ? `value ${JSON.stringify(sample)}` : `type ${String(source.type)}`} gives ${at}: ${refused.message}`,
        pointer: `${pointer}/args${at}`,
        severity: 'error',
      });
      break;
    }
  }
  return findings;
}

// A number sample that is whole: a declared number may well hold whole values, and only certain refusals are reported.
const TYPE_SAMPLES: Record<string, JsonValue> = { integer: 1, number: 1, string: 'x', boolean: true, object: {}, array: [] };

/** The schema a path's value is declared with: a registry variable, or `node-id.field` of a node's inputSchema. */
function declaredSchema(path: string, workflow: Workflow): JsonObject | undefined {
  const asObject = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : undefined);
  if (/^[A-Za-z0-9_-]+$/.test(path)) return asObject(workflow.variableRegistry?.[path]);
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(path);
  if (!m) return undefined;
  const source = workflow.nodes.find((n) => n.id === m[1]) as { inputSchema?: unknown } | undefined;
  const props = asObject(asObject(source?.inputSchema)?.properties);
  return asObject(props?.[m[2]]);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Every string inside the args, with its pointer. */
function strings(value: unknown, pointer: string): Array<[string, string]> {
  if (typeof value === 'string') return [[value, pointer]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${pointer}/${i}`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => strings(v, `${pointer}/${escapePointer(k)}`));
  }
  return [];
}
