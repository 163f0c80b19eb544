/**
 * The workflow hash stored with every run: sha256 over canonical JSON
 * (sorted keys), so the same graph written in JSON or YAML, or with keys
 * reordered, shares one hash and one stored copy.
 */
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

export function hashWorkflow(workflow: unknown): string {
  return createHash('sha256').update(canonicalJson(workflow)).digest('hex');
}
