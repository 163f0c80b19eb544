/**
 * The workflow hash stored with every run: sha256 over the workflow's JSON
 * with its keys in their written order, so the same graph written in JSON or
 * YAML shares one hash and one stored copy. Key order is part of the
 * workflow, not noise: objects render in templates and outputs in that
 * order, so two workflows that differ only in it must not share a copy.
 * canonicalJson (sorted keys) is for values whose order means nothing: the
 * review gate's call targets.
 */
import { createHash } from 'node:crypto';

/** The value's JSON (toJSON applied, functions and undefined left out, as JSON.stringify does) with every object's keys sorted. */
export function canonicalJson(value: unknown): string {
  const text = JSON.stringify(value);
  return sorted(text === undefined ? null : JSON.parse(text));
}

function sorted(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(sorted).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${sorted((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

export function hashWorkflow(workflow: unknown): string {
  return createHash('sha256').update(JSON.stringify(workflow) ?? 'null').digest('hex');
}

/**
 * Whether `workflow` is the copy stored under `hash`: its JSON as written,
 * or (runs stored before the hash kept key order) its sorted-key JSON.
 */
export function hasWorkflowHash(workflow: unknown, hash: string): boolean {
  return hashWorkflow(workflow) === hash || createHash('sha256').update(canonicalJson(workflow)).digest('hex') === hash;
}
