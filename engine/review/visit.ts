/**
 * What one review visit needs from the file system: the report slot made
 * ready before anything is hashed (so the engine's own mkdir never looks
 * like a reviewer's edit), and artifact hashes per root (so a change can be
 * named). Throws CountersignError; the node turns that into its `error`
 * route or a failed run.
 */
import { createHash } from 'node:crypto';
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { CountersignError, isCountersignError } from '../errors.js';
import { readReport, reportFormatOf } from './report.js';
import { markdownIssues } from './report-markdown.js';
import { readRegularFile } from './report-file.js';
import { hashArtifacts } from './artifacts.js';
import { makeDirs } from '../format/make-dirs.js';

export interface VisitPaths {
  artifacts: string[];
  context: string[];
  report: string;
}

export interface ArtifactHashes {
  /** One hash over every root. */
  hash: string;
  /** One hash per artifact root, in order. */
  roots: string[];
}

/** Under the workspace; hashing always skips it (reports of every review live there). */
export const REVIEWS_DIR = join('.countersign', 'reviews');

/**
 * Refuses a report path the engine cannot own — an artifact or context file
 * itself, a file of the run store, or a directory — and creates its
 * directory. Moving the report aside happens later, once the review is
 * certain to be issued: whatever the path names is renamed to .prev, so a
 * path that may come from an agent-written variable must not name a file
 * the run depends on.
 */
export function prepareReportSlot(paths: VisitPaths, env: { workspace: string; store: readonly string[] }): void {
  const { report } = paths;
  // Compared as the file system resolves them: a report reached through a
  // linked directory ("alias/a.md" with alias -> docs) is the file it names.
  const real = realish(report);
  const realArtifacts = paths.artifacts.map(realish);
  const realContext = paths.context.map(realish);
  const realStore = env.store.map(realish);
  const realReviews = realish(join(env.workspace, REVIEWS_DIR));
  // The engine renames and rewrites the report and its .prev: through a
  // symlink that would reach whatever it points at (an artifact, a file
  // outside the workspace), so the slot must hold plain files only.
  for (const slot of [report, `${report}.prev`]) {
    if (isSymlink(slot)) throw reportPath(report, `${slot} is a symbolic link; the engine keeps the report and its .prev as plain files it owns`);
  }
  paths.artifacts.forEach((artifact, i) => {
    const a = realArtifacts[i];
    if (real === a || isInside(a, real) && !isDirectory(a)) {
      throw reportPath(report, `it is the artifact ${artifact} under review, which the engine would move aside`);
    }
  });
  paths.context.forEach((context, i) => {
    const c = realContext[i];
    if (real === c || isInside(c, real) && !isDirectory(c)) {
      throw reportPath(report, `it is the context path ${context} the reviewer must study, which the engine would move aside`);
    }
  });
  // The files the engine keeps beside the report (.prev, .refused, and what
  // it set aside as .before-<runId>) are moved and rewritten too: an
  // artifact or context file by one of those names would be moved away.
  [...paths.artifacts.map((path, i) => ({ path, r: realArtifacts[i], what: 'artifact' })), ...paths.context.map((path, i) => ({ path, r: realContext[i], what: 'context path' }))].forEach(({ path, r, what }) => {
    if (keptBesideReport(real, r)) throw reportPath(report, `the ${what} ${path} has a name the engine keeps beside the report (.prev, .refused, .before-<run>), and would be moved aside`);
  });
  // The default store (.countersign/) holds the reviews folder too: reports
  // live there, in a folder of their own, never among the store's files.
  env.store.forEach((store, i) => {
    const s = realStore[i];
    if ((real === s || isInside(s, real)) && !(isInside(realReviews, real) && dirname(real) !== s)) {
      throw reportPath(report, `it is inside the run store ${store}, whose files the engine would move aside, losing the runs kept there`);
    }
  });
  // Any repository's own folder (the workspace's, or a nested one): its files moved aside break the repository.
  if (relative(realish(env.workspace), real).split(sep).includes('.git')) {
    throw reportPath(report, 'it is inside a git repository\'s own folder (.git), whose files the engine would move aside, breaking the repository');
  }
  if (isDirectory(report)) throw reportPath(report, 'it is a directory');
  // The engine's own files beside the report: a folder in their place is in the way, not the report path.
  const besides: [string, string][] = [[`${report}.prev`, 'the previous report cannot be kept'], [`${report}.refused`, 'a report no review accepted cannot be set aside']];
  for (const [path, consequence] of besides) {
    if (isDirectory(path)) {
      throw reportPath(report, `${path} is a directory, so ${consequence}`, `move or remove the folder ${path} (the engine keeps a file by that name beside the report)`);
    }
  }
  try {
    makeDirs(dirname(report));
  } catch (e) {
    throw reportPath(report, `its directory cannot be created (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}

/**
 * A file already at the report path inside an artifact or context folder,
 * on this run's first visit there, that does not read as a review report:
 * a file of the work under review (a README the user keeps in docs/).
 * Setting it aside would take it out of the review, so the visit is
 * refused instead; an earlier run's report (a JSON report, or Markdown
 * that is only items and headings) is set aside as usual. Returns the
 * folder it belongs to, or undefined.
 */
export function reportIsWorkFile(paths: Pick<VisitPaths, 'artifacts' | 'context' | 'report'>): string | undefined {
  const real = realish(paths.report);
  const folder = [...paths.artifacts, ...paths.context].find((p) => isDirectory(p) && isInside(realish(p), real));
  if (folder === undefined || !isFile(paths.report)) return undefined;
  try {
    const text = readRegularFile(paths.report);
    if (reportFormatOf(paths.report, text) === 'json') {
      readReport(paths.report);
      return undefined;
    }
    // Only a Markdown file by name is taken for an earlier report: a list in
    // a .yaml or .txt file of the work is the work, never set aside.
    if (!/\.(?:md|markdown)$/i.test(paths.report)) return folder;
    // Markdown reads as a report when it has list items, and so does a
    // README (a heading, a paragraph, a list): only a bare list of findings
    // (headings allowed, no prose) is taken for an earlier run's report.
    const shape: { proseLine?: number } = {};
    markdownIssues(text, paths.report, shape);
    return shape.proseLine === undefined ? undefined : folder;
  } catch (e) {
    return isCountersignError(e) && e.code === 'E_REPORT_FORMAT' ? folder : undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The artifacts and context paths that are not there (a link to nothing
 * counts as not there): a review of them would judge nothing, and an empty
 * report would pass the loop, so the visit is not issued.
 */
export function missingPaths(paths: Pick<VisitPaths, 'artifacts' | 'context'>): string[] {
  return [...paths.artifacts, ...paths.context].filter((p) => {
    try {
      statSync(p);
      return false;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR';
    }
  });
}

/** Whether `path` is a file the engine keeps beside `report`: its .prev, .refused, or one it set aside (.before-<run>). */
export function keptBesideReport(report: string, path: string): boolean {
  return path === `${report}.prev` || path === `${report}.refused`
    || [`${report}.before-`, `${report}.prev.before-`, `${report}.refused.before-`].some((prefix) => path.startsWith(prefix));
}

/**
 * What hashing leaves out: the report, its other generations (the files
 * this run set aside as `.before-<runId>` included: the engine's own move
 * is no change by the reviewer), every review's reports, the store.
 */
export function skippedPaths(report: string, runId: string, workspace: string, store: readonly string[]): string[] {
  return [report, `${report}.prev`, `${report}.refused`, `${report}.before-${runId}`, `${report}.prev.before-${runId}`, `${report}.refused.before-${runId}`, join(workspace, REVIEWS_DIR), ...store];
}

/** `workspace`: links below an artifact are followed to targets inside it (see hashArtifacts). */
export function hashEach(artifacts: readonly string[], skip: readonly string[], workspace: string): ArtifactHashes {
  const roots = artifacts.map((a) => hashArtifacts([a], skip, workspace));
  return { hash: createHash('sha256').update(roots.join('\n')).digest('hex'), roots };
}

/** The artifact roots whose hash differs between two takes. */
export function changedRoots(artifacts: readonly string[], before: readonly string[], after: readonly string[]): string[] {
  return artifacts.filter((_, i) => before[i] !== after[i]);
}

function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  // "..notes.md" is a file in the folder; only ".." itself or "../…" climbs out.
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** `path` with its deepest existing ancestor's links resolved (the rest may not exist yet). */
function realish(path: string): string {
  let head = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...rest.reverse());
    } catch {
      const parent = dirname(head);
      if (parent === head) return path;
      rest.push(head.slice(parent.length).replace(/^[\\/]+/, ''));
      head = parent;
    }
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function reportPath(report: string, why: string, fix?: string): CountersignError {
  return new CountersignError('E_REPORT_PATH', `the review report ${report} cannot be used: ${why}`, {
    file: report,
    fix: fix ?? 'point the review node\'s "report" at a file of its own inside the workspace, e.g. ".countersign/reviews/review.json" (the default)',
  });
}
