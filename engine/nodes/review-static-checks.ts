/**
 * delegate-review's static checks: what `validate` can refuse in the node as
 * written, before any run (literal paths that escape or hold control
 * characters, a report over an artifact, criteria holding templates).
 */
import { normalize, posix, sep } from 'node:path';
import type { DelegateReviewNode, Workflow } from '../format/model.js';
import { CONTROL_CHARACTER } from '../review/paths.js';
import { keptBesideReport } from '../review/visit.js';
import type { Finding } from './node-type.js';

/** Every templated path of the node with its pointer. */
export function pathTemplates(node: DelegateReviewNode, pointer: string): [unknown, string][] {
  const list = (value: unknown, key: string): [unknown, string][] =>
    Array.isArray(value) ? value.map((text, i) => [text, `${pointer}/${key}/${i}`]) : [];
  return [...list(node.artifacts, 'artifacts'), ...list(node.context, 'context'), ...(node.report !== undefined ? [[node.report, `${pointer}/report`] as [unknown, string]] : [])];
}

/**
 * Criteria are literal (they are linted as written), so `{{…}}` reaches the
 * reviewer unrendered. That is right for a criterion about template files
 * and a mistake otherwise: a warning, silenced by writing `\\{{`.
 */
export function criterionTemplates(criteria: unknown, pointer: string): Finding[] {
  if (!Array.isArray(criteria)) return [];
  return criteria.flatMap((text, i) => {
    if (typeof text !== 'string') return [];
    // As templates read it: braces right after a backslash are literal, any others a tag.
    const offset = firstTag(text);
    if (offset === -1) return [];
    return [{
      code: 'E_CRITERION_TEMPLATE',
      pointer: `${pointer}/criteria/${i}`,
      offset,
      severity: 'warning' as const,
      message: 'criteria are literal: "{{…}}" is not rendered and reaches the reviewer as written; if you meant a variable, put the path in artifacts or context (they are templated); if you meant the braces, write "\\{{" to silence this warning',
    }];
  });
}

/** The offset of the first "{{" no backslash precedes. */
function firstTag(text: string): number {
  for (let open = text.indexOf('{{'); open >= 0; open = text.indexOf('{{', open + 2)) {
    if (open === 0 || text.charCodeAt(open - 1) !== 92) return open;
  }
  return -1;
}

/**
 * A literal report path that is a literal artifact or context path — this
 * review's or another's in the workflow — fails the run: the engine moves
 * the report aside before each review, which would take the file under
 * review, or the one to study, away. A report that is a folder holding
 * such a path can never be written as a file.
 */
export function reportOverArtifact(node: DelegateReviewNode, pointer: string, workflow?: Workflow): Finding[] {
  if (typeof node.report !== 'string' || node.report.includes('{{')) return [];
  const report = literalPath(node.report);
  // The workspace folder itself ("." or "./"): it holds every artifact, and no report file can be written there.
  if (report === '.' || report === '') return [clash(node, pointer, 'is the workspace folder itself, which holds the artifacts, so no report file can be written there')];
  // A repository's own folder: setting a file there aside (HEAD, config) breaks the repository the work lives in.
  if (report.split('/').includes('.git')) return [clash(node, pointer, 'is inside a git repository\'s own folder (.git), whose files the engine would move aside, breaking the repository')];
  const reviews = [node, ...(workflow?.nodes ?? []).filter((n): n is DelegateReviewNode => n.type === 'delegate-review' && n !== node)];
  for (const review of reviews) {
    for (const [list, role] of [[review.artifacts, 'artifact'], [review.context, 'context path']] as const) {
      for (const path of Array.isArray(list) ? list : []) {
        if (typeof path !== 'string' || path.includes('{{')) continue;
        const p = literalPath(path);
        const what = review === node
          ? (role === 'artifact' ? `the artifact ${JSON.stringify(path)} under review` : `the context path ${JSON.stringify(path)} the reviewer must study`)
          : `review "${review.id}"'s ${role} ${JSON.stringify(path)}`;
        // The report itself, or a file the engine keeps beside it (.prev, .refused, .before-<run>).
        if (p === report || keptBesideReport(report, p)) {
          return [clash(node, pointer, `is ${what} (or the engine keeps that file beside the report: .prev, .refused, .before-<run>), which the engine would move aside before the review`)];
        }
        if (p.startsWith(`${report}/`)) {
          return [clash(node, pointer, `is a folder holding ${what}, so no report file can be written there`)];
        }
      }
    }
  }
  return [];
}

function clash(node: DelegateReviewNode, pointer: string, problem: string): Finding {
  return {
    code: 'E_REPORT_PATH',
    pointer: `${pointer}/report`,
    severity: 'error',
    message: `the report ${JSON.stringify(node.report)} ${problem}; give the report a file of its own, e.g. ".countersign/reviews/review.json" (the default)`,
  };
}

/** A literal path as the workspace sees it: `notes.md`, `./notes.md` and `notes.md/` are one file. */
function literalPath(text: string): string {
  return posix.normalize(text).replace(/(.)\/$/, '$1');
}

/**
 * A control character in the text around the templates stays there after
 * rendering, so the runtime refuses the path (E_PATH_INVALID) on every run:
 * refused before any run, at its offset.
 */
export function controlCharacter(text: unknown, pointer: string): Finding[] {
  if (typeof text !== 'string') return [];
  const literal = text.replace(/\{\{[\s\S]*?\}\}/g, (span) => ' '.repeat(span.length));
  const offset = literal.search(CONTROL_CHARACTER);
  if (offset === -1) return [];
  return [{
    code: 'E_PATH_INVALID',
    pointer,
    offset,
    severity: 'error',
    message: `${JSON.stringify(text)} holds a line break or another control character (${JSON.stringify(text[offset])}), which the engine refuses in every review path because the path is put into the reviewer's prompt; write the path as a plain file name, e.g. "docs/api.md"`,
  }];
}

/**
 * A literal path that climbs out with `..` is outside every workspace, so
 * it is refused before any run instead of when the review is entered.
 * Templated and absolute paths depend on the run and are checked then.
 */
export function escapingPath(text: unknown, pointer: string): Finding[] {
  if (typeof text !== 'string' || text.includes('{{')) return [];
  // Read as the run reads it (the platform's own separators): on POSIX "..\\notes.md" is one file name inside the workspace.
  const normal = normalize(text);
  if (normal !== '..' && !normal.startsWith(`..${sep}`)) return [];
  return [{
    code: 'E_PATH_OUTSIDE_WORKSPACE',
    pointer,
    severity: 'error',
    message: `${JSON.stringify(text)} leaves the run's workspace (it starts with ".." once normalised); review paths must lie inside the workspace — use a path relative to it, e.g. "docs/api.md"`,
  }];
}
