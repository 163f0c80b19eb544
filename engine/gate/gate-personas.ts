/**
 * The personas a gate runs, loaded and checked once at construction: the
 * default persona (`DefaultReviewerAgent`, B17) and per-tool overrides
 * (`personaFor`, F15). A missing file, a persona whose `name` is not the
 * configured one (F13) or one that fails the persona lint (F14: the deny
 * entries every reviewer must keep) is a construction error — a gate never
 * starts with a reviewer it cannot trust. More than one persona in use is
 * allowed but warned about (F16: it fragments the audit trail).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CountersignError } from '../errors.js';
import { personaLintProblems } from './persona-lint.js';
import { DefaultReviewerAgent, loadPersona, PERSONA_NAME_PATTERN, personaProblemError, readPersonaSource, type Persona } from './persona.js';
import type { JsonObject } from '../format/model.js';
import type { PersonaValue } from '../review/decision-prompt.js';
import { effectiveTools, type CatalogTool } from './tool-filter.js';

export interface PersonaOptions {
  /** The default reviewer persona's name; `reviewer` (DefaultReviewerAgent). */
  persona?: string;
  /** Tool name → persona name, for tools that need another reviewer (F15). */
  personaFor?: Record<string, string>;
  /**
   * Where `<name>.md` persona files are. Left out: each persona is
   * `./agents/<name>.md` when the working directory has one, else the
   * shipped agents/ file of that name (so a project's own personas sit
   * beside the shipped reviewer).
   */
  agentsDir?: string;
}

/** What a decision review's context needs of a persona: the decision node's own shape, tool specs always given. */
export type PersonaInput = PersonaValue & Required<Pick<PersonaValue, 'tool_specs'>>;

export interface GatePersonas {
  /** The persona reviewing `tool`. */
  forTool(tool: string): Persona;
  /** Its context value, with the tools narrowed to those of the catalog it may call. */
  inputFor(persona: Persona, catalog: readonly (CatalogTool & { description?: string; inputSchema?: JsonObject })[]): PersonaInput;
  /** Every persona name in use. */
  names: ReadonlySet<string>;
  /** Every persona in use. */
  all: readonly Persona[];
  warnings: string[];
}

/** The shipped agents/ folder, from the source tree or from a bundle in dist/. */
export function shippedAgentsDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const candidates = [resolve(here, '../../agents'), resolve(here, '../agents')];
  return candidates.find((dir) => existsSync(join(dir, `${DefaultReviewerAgent}.md`))) ?? candidates[0];
}

export function loadGatePersonas(options: PersonaOptions): GatePersonas {
  const pathFor = (name: string): string => {
    if (options.agentsDir !== undefined) return join(options.agentsDir, `${name}.md`);
    const own = resolve('agents', `${name}.md`);
    if (existsSync(own)) return own;
    const shipped = join(shippedAgentsDir(), `${name}.md`);
    if (existsSync(shipped)) return shipped;
    throw new CountersignError('E_FILE_NOT_FOUND', `persona "${name}" not found: there is no ${own} and countersign ships no ${name}.md`, {
      file: own,
      fix: `write the persona as agents/${name}.md in ${resolve('.')}, or name its folder with agentsDir (countersign gate --agents DIR)`,
    });
  };
  const defaultName = options.persona ?? DefaultReviewerAgent;
  const loaded = new Map<string, Persona>();
  const load = (name: string): Persona => {
    const known = loaded.get(name);
    if (known) return known;
    // The persona schema's name pattern, so any name validate accepts loads here (and none escapes the folder).
    if (typeof name !== 'string' || !PERSONA_NAME_PATTERN.test(name)) {
      throw new CountersignError('E_PERSONA', `persona name ${JSON.stringify(name)} is not a persona name: use only letters, digits, "_" and "-"`, {
        fix: 'name a persona by its file in the agents folder, e.g. "reviewer" for agents/reviewer.md',
      });
    }
    const path = pathFor(name);
    const persona = loadPersona(path, { name });
    // The lint on the frontmatter as written, so the error points at the key
    // to fix (line:col and pointer), as `countersign validate` does.
    const source = readPersonaSource(path);
    const errors = personaLintProblems(source.frontmatter, path, source.body).filter((f) => f.severity === 'error');
    if (errors.length > 0) throw personaProblemError(source, errors, `persona ${persona.file} cannot review: `);
    loaded.set(name, persona);
    return persona;
  };
  load(defaultName);
  for (const name of Object.values(options.personaFor ?? {})) load(name);
  const names = new Set(loaded.keys());
  const warnings =
    names.size > 1
      ? [`the gate uses ${names.size} reviewer personas (${[...names].join(', ')}): each one fragments the audit trail; use per-tool personas sparingly (F16)`]
      : [];
  return {
    // Own keys only: a tool named "constructor" or "toString" is not an override.
    forTool: (tool) => loaded.get(options.personaFor && Object.hasOwn(options.personaFor, tool) ? options.personaFor[tool] : defaultName)!,
    inputFor: (persona, catalog) => {
      const tools = effectiveTools(persona, catalog);
      return {
        name: persona.name,
        model: persona.model,
        max_turns: persona.max_turns ?? 1,
        tools: tools.map((t) => t.name),
        body: persona.body,
        ...(persona.critical_reminder ? { critical_reminder: persona.critical_reminder } : {}),
        tool_specs: tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema ?? {} })),
      };
    },
    names,
    all: [...loaded.values()],
    warnings,
  };
}
