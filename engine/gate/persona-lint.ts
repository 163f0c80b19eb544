/**
 * What a persona must keep, beyond its schema: every persona the gate runs
 * is a reviewer, and a reviewer must never be able to act (F13, F14, B4,
 * B5, B16). Also `countersign validate` for persona files: schema findings
 * and these lints, located at line:col like workflow findings.
 */
import { basename, extname } from 'node:path';
import { isCountersignError } from '../errors.js';
import type { Finding } from '../nodes/node-type.js';
import type { FindingOut, ValidationReport } from '../validate/index.js';
import { DefaultReviewerAgent, personaSchemaProblems, readPersonaSource, type Persona, type PersonaProblem } from './persona.js';
import { matchesToolPattern } from './tool-filter.js';

/** The deny entries no persona may drop (F14): the runtime filter, not the prompt, keeps a reviewer from acting. */
export const REQUIRED_DISALLOWED_TOOLS: readonly string[] = ['*_skill', 'run_shell', 'execute_skill', 'host_restart_service', 'kill_process'];

/** Lint findings for a loaded persona. */
export function lintPersona(persona: Persona): Finding[] {
  // A loaded persona says "absent" with null; the frontmatter said it by leaving the key out.
  const frontmatter = Object.fromEntries(Object.entries(persona).filter(([, v]) => v !== null));
  return personaLintProblems(frontmatter, persona.file, persona.body).map(toFinding);
}

/**
 * The lints on a frontmatter as written (any shape: a value of the wrong
 * type is the schema's finding, and is skipped here). `file` gives the
 * name the persona must carry; `body`, when given, must hold the prompt.
 */
export function personaLintProblems(frontmatter: unknown, file: string, body?: string): PersonaProblem[] {
  if (frontmatter === null || typeof frontmatter !== 'object' || Array.isArray(frontmatter)) return [];
  const fm = frontmatter as Record<string, unknown>;
  const out: PersonaProblem[] = [];
  const error = (code: string, pointer: string, message: string, fix: string): PersonaProblem => ({ code, pointer, message, fix, severity: 'error' });

  // The body is the reviewer's prompt: without it a decision review cannot
  // be issued, and every call would be rejected with no reviewer run (A7).
  if (body !== undefined && body.trim() === '') {
    out.push({
      ...error('E_PERSONA_BODY', '', 'the persona has no body after its frontmatter: the body is the reviewer\'s prompt (the five steps and the reply format, C1–C10, D2–D4)',
        'write the persona\'s instructions after the closing "---" (see agents/reviewer.md)'),
      inBody: true,
    });
  }

  const fileName = basename(file, extname(file));
  if (typeof fm.name === 'string' && fm.name !== fileName) {
    out.push(error('E_PERSONA_NAME', '/name', `the persona is named "${fm.name}" but its file is ${basename(file)}: the gate finds a persona by its name, as agents/<name>.md (F13)`,
      fileName === DefaultReviewerAgent
        ? `write name: ${DefaultReviewerAgent}: the gate looks its reviewer up by that name (DefaultReviewerAgent), so renaming it breaks the gate`
        : `rename the file to ${fm.name}.md, or write name: ${fileName}`));
  }

  if (fm.permission_mode !== undefined && fm.permission_mode !== 'read-only') {
    out.push(error('E_PERSONA_PERMISSION', '/permission_mode', `permission_mode is ${JSON.stringify(fm.permission_mode)}: a reviewer persona must be read-only, or it could call write tools and trigger a nested gate (B4, B16)`, 'write permission_mode: read-only'));
  }

  if (fm.max_turns === undefined) {
    out.push(error('E_PERSONA_MAX_TURNS', '', 'the persona has no max_turns: without a turn budget a reviewer could run until the gate times out (B5)', 'add max_turns: 5'));
  }

  const deny = Array.isArray(fm.disallowed_tools) ? fm.disallowed_tools.filter((d): d is string => typeof d === 'string') : undefined;
  if (deny !== undefined || fm.disallowed_tools === undefined) {
    // Covered by the entry itself or by a broader deny pattern ("*", "*_shell"): a persona that denies more still denies these.
    const missing = REQUIRED_DISALLOWED_TOOLS.filter((entry) => !(deny ?? []).some((d) => d === entry || matchesToolPattern(d, entry)));
    if (missing.length > 0) {
      out.push(error('E_PERSONA_DENY', deny ? '/disallowed_tools' : '',
        `disallowed_tools lacks ${missing.map((m) => `"${m}"`).join(', ')}: every reviewer persona must deny ${REQUIRED_DISALLOWED_TOOLS.join(', ')}, so that the runtime filter, not the prompt, keeps it from acting (F14)`,
        `add ${missing.map((m) => (m.startsWith('*') ? `- "${m}"` : `- ${m}`)).join(', ')} to disallowed_tools`));
    }
  }

  if (Array.isArray(fm.tools) && deny !== undefined) {
    fm.tools.forEach((tool, i) => {
      if (typeof tool !== 'string') return;
      // A pattern entry (`*_skill`) is denied entirely when a deny pattern matches
      // its text: a deny "*" spans whatever the entry's "*" stands for.
      const by = deny.includes(tool) ? tool : deny.find((pattern) => matchesToolPattern(pattern, tool));
      if (by === undefined) return;
      const what = tool.includes('*') ? `every tool the pattern "${tool}" names` : `"${tool}"`;
      out.push({
        code: 'E_PERSONA_TOOL_DENIED', pointer: `/tools/${i}`, severity: 'warning',
        message: `tools lists ${what}, but disallowed_tools${by === tool ? ' also lists it' : ` entry "${by}" denies it`}, so the persona never gets ${tool.includes('*') ? 'any of them' : 'it'}`,
        fix: `remove "${tool}" from tools`,
      });
    });
  }
  return out;
}

/** `countersign validate` of one persona file: unreadable or malformed files are one finding, as for workflows. */
export function validatePersonaFile(path: string): ValidationReport {
  let source;
  try {
    source = readPersonaSource(path);
  } catch (e) {
    if (!isCountersignError(e) || !['E_PARSE', 'E_FILE_NOT_FOUND', 'E_PERSONA'].includes(e.code)) throw e;
    const message = e.fix ? `${e.message}; ${e.fix}` : e.message;
    return { file: path, ok: false, errors: [{ code: e.code, message, pointer: '', line: e.line ?? 0, col: e.col ?? 0 }], warnings: [] };
  }
  const problems = [...personaSchemaProblems(source.frontmatter), ...personaLintProblems(source.frontmatter, path, source.body)];
  const located = problems
    .map((p, order) => ({ p, order, at: p.inBody ? { line: source.bodyLine, col: 1 } : source.locate(p.pointer, { key: p.key === true }) }))
    .sort((a, b) => a.at.line - b.at.line || a.at.col - b.at.col || a.order - b.order);
  const errors: FindingOut[] = [];
  const warnings: FindingOut[] = [];
  for (const { p, at } of located) {
    const out = { code: p.code, message: toFinding(p).message, pointer: p.pointer, line: at.line, col: at.col };
    (p.severity === 'warning' ? warnings : errors).push(out);
  }
  return { file: path, ok: errors.length === 0, errors, warnings };
}

function toFinding(p: PersonaProblem): Finding {
  const { fix, inBody: _inBody, ...finding } = p;
  return { ...finding, message: p.message.endsWith('?') ? `${p.message} ${fix[0].toUpperCase()}${fix.slice(1)}` : `${p.message}; ${fix}` };
}
