/**
 * What a decision reviewer is shown: its persona body, the persona's
 * critical_reminder, and the proposal — with the blast radius spelled out
 * so the reviewer weighs a tenant-wide action harder than a single device
 * (seed 000 A25). Built only from the persona and the proposal, so the same
 * input always gives the same text.
 */
import type { JsonObject } from '../format/model.js';

/** The persona as a host puts it into the run's context. */
export interface PersonaValue {
  name: string;
  model: string;
  max_turns: number;
  /** The effective tools (allowlist minus denials), already filtered by the host. */
  tools: string[];
  body: string;
  critical_reminder?: string;
  /** Descriptions and input schemas of `tools`, when the host knows them. */
  tool_specs?: Array<{ name: string; description?: string; inputSchema: JsonObject }>;
  /**
   * sha256 (hex) of the only identity whose answer the review takes: the
   * review gate sets it to a secret it answers under, so no one else (a
   * `countersign step`, an MCP client) can answer its review.
   */
  answerer_sha256?: string;
}

/** Why `value` is not a usable persona, one line per problem (empty when it is). */
export function personaProblems(value: unknown, path: string): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return [`"${path}" must hold the persona object {name, model, max_turns, tools, body}; it is ${value === undefined ? 'unset' : JSON.stringify(value)}`];
  }
  const p = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of ['name', 'model', 'body'] as const) {
    if (typeof p[key] !== 'string' || (p[key] as string).trim() === '') problems.push(`${path}.${key} must be a non-empty string`);
  }
  if (!Number.isInteger(p.max_turns) || (p.max_turns as number) < 1) problems.push(`${path}.max_turns must be an integer ≥ 1`);
  if (!Array.isArray(p.tools) || !p.tools.every((t) => typeof t === 'string')) problems.push(`${path}.tools must be an array of tool names`);
  if (p.critical_reminder !== undefined && typeof p.critical_reminder !== 'string') problems.push(`${path}.critical_reminder must be a string`);
  if (p.answerer_sha256 !== undefined && !(typeof p.answerer_sha256 === 'string' && /^[0-9a-f]{64}$/.test(p.answerer_sha256))) {
    problems.push(`${path}.answerer_sha256 must be the hex sha256 of the answering identity`);
  }
  if (p.tool_specs !== undefined && !(Array.isArray(p.tool_specs) && p.tool_specs.every((t) => t !== null && typeof t === 'object' && typeof (t as { name?: unknown }).name === 'string'))) {
    problems.push(`${path}.tool_specs must be an array of {name, description?, inputSchema}`);
  }
  return problems;
}

export function decisionPrompt(persona: PersonaValue, proposal: JsonObject): string {
  const sections = [persona.body.trim()];
  if (persona.critical_reminder && persona.critical_reminder.trim() !== '') sections.push(`CRITICAL REMINDER\n${persona.critical_reminder.trim()}`);
  const radius = typeof proposal.blast_radius === 'string' ? proposal.blast_radius : 'unknown';
  sections.push(
    [
      'PROPOSAL UNDER REVIEW',
      `Action: ${String(proposal.action ?? 'unknown')}`,
      `Blast radius: ${radius}${radius === 'tenant_wide' ? ' (the whole tenant: scrutinise hardest)' : radius === 'cluster' ? ' (a whole cluster)' : ''}`,
      `Operator: ${String(proposal.operator ?? 'unknown')}`,
      '```json',
      JSON.stringify(proposal, null, 2),
      '```',
    ].join('\n'),
  );
  sections.push(
    `Tools you may call: ${persona.tools.length > 0 ? persona.tools.join(', ') : 'none'} (at most ${persona.max_turns} messages in all, your reply included).`,
    'Your reply\'s first non-blank line decides: "**Decision: approve**" approves; anything else — including any hedge — rejects.',
  );
  return `${sections.join('\n\n')}\n`;
}
