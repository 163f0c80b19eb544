/**
 * The file-system side of a review: a content hash of the artifacts (taken
 * when a review is issued and again when it is answered, seed G13: the
 * reviewer diagnoses, never fixes; and compared across iterations, G12: no
 * unchanged iteration), and moving the previous report aside so every
 * review starts from an empty report file (G8).
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, existsSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, renameSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { CountersignError } from '../errors.js';
import { makeDirs } from '../format/make-dirs.js';

/** Version-control metadata changes on every commit and is never the work under review. */
const GIT_DIR = '.git';
const CHUNK = 64 * 1024;

/**
 * sha256 (hex) over the current content of every artifact, in the order
 * given. Directories are walked in sorted order; each entry is recorded with
 * its path relative to the artifact root, its kind and its content digest,
 * so an edit, a new file, a deletion or a rename changes the hash and a
 * touch (mtime) does not. Entries in `skip` (absolute paths: the report, its
 * `.prev`, the store) and `.git` directories are left out. A symlink below
 * a root counts by its link text and, when its real target lies inside
 * `within` (the run's workspace), by what it shows too: the file's content,
 * or the directory's tree (each real directory once, so a link loop ends).
 * An edit made through a link is an edit of the artifact; a target outside
 * the workspace is never read. A missing artifact counts as a distinct
 * marker, so creating it changes the hash.
 */
export function hashArtifacts(paths: readonly string[], skip: readonly string[], within?: string): string {
  // Skipped paths in both spellings: a tree reached through a link is walked by its real path.
  const skipped = new Set(skip.flatMap((p) => [resolve(p), realSpelling(p)]));
  const ctx: Walk = { skipped, inside: within === undefined ? undefined : realOrUndefined(within), followed: new Set() };
  const hash = createHash('sha256');
  for (const path of paths) {
    const root = resolve(path);
    hash.update(`artifact ${JSON.stringify(root)}\n`);
    hashRoot(hash, root, ctx);
  }
  return hash.digest('hex');
}

/** What one hashing pass carries: what to leave out, where links may lead, and the directories already walked through links. */
interface Walk {
  skipped: ReadonlySet<string>;
  /** Real path of the workspace; links are followed only to targets inside it. */
  inside: string | undefined;
  followed: Set<string>;
}

/**
 * The artifact root itself is followed when it is a symlink: the workflow
 * named that path as the work under review (and the workspace check already
 * required its real target to lie inside the workspace).
 */
function hashRoot(hash: Hash, root: string, ctx: Walk): void {
  if (ctx.skipped.has(root)) {
    hash.update('skipped\n');
    return;
  }
  const link = lstatOrError(root);
  if (typeof link === 'string') {
    hash.update(link === 'ENOENT' || link === 'ENOTDIR' ? 'missing\n' : `unreadable ${link}\n`);
    return;
  }
  if (link.isSymbolicLink()) hash.update(`link-root ${JSON.stringify(readlinkOr(root))}\n`);
  const stats = link.isSymbolicLink() ? statOrError(root) : link;
  if (typeof stats === 'string') {
    hash.update(`dangling ${stats}\n`);
    return;
  }
  if (stats.isDirectory()) {
    const real = realOrUndefined(root);
    if (real !== undefined) ctx.followed.add(real);
    // By its real path, like every tree reached through a link: skipped paths (the report) match in that spelling.
    hashTree(hash, real ?? root, ctx);
  } else hashEntry(hash, root, '', stats, ctx);
}

/** Depth-first over the tree in sorted order, iteratively so deep trees cannot overflow the stack. */
function hashTree(hash: Hash, root: string, ctx: Walk): void {
  const stack: string[] = [''];
  while (stack.length > 0) {
    const rel = stack.pop() as string;
    const dir = rel === '' ? root : join(root, rel);
    hash.update(`dir ${JSON.stringify(rel)}\n`);
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (e) {
      hash.update(`unreadable ${errorCode(e)}\n`);
      continue;
    }
    const subdirs: string[] = [];
    for (const name of names) {
      const childRel = rel === '' ? name : join(rel, name);
      const child = join(root, childRel);
      if (ctx.skipped.has(child)) continue;
      const stats = lstatOrError(child);
      if (typeof stats === 'string') {
        // Vanished or unreadable while walking: still recorded, so the hash stays deterministic.
        hash.update(`entry ${JSON.stringify(childRel)} ${stats}\n`);
      } else if (stats.isDirectory()) {
        if (name !== GIT_DIR) subdirs.push(childRel);
      } else {
        hashEntry(hash, child, childRel, stats, ctx);
      }
    }
    // Reversed onto the stack so they are visited in sorted order, after this directory's files.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]);
  }
}

function hashEntry(hash: Hash, abs: string, rel: string, stats: Stats, ctx: Walk): void {
  const name = JSON.stringify(rel);
  if (stats.isSymbolicLink()) {
    hash.update(`link ${name} ${JSON.stringify(readlinkOr(abs))}\n`);
    hashLinkTarget(hash, abs, ctx);
  } else if (stats.isFile()) hash.update(`file ${name} ${fileDigest(abs)}\n`);
  // Sockets, FIFOs, devices: reading a FIFO would block, so only their presence counts.
  else hash.update(`special ${name}\n`);
}

/** What a link below a root shows, when its real target lies inside the workspace and is not left out. */
function hashLinkTarget(hash: Hash, link: string, ctx: Walk): void {
  if (ctx.inside === undefined) return;
  const target = realOrUndefined(link);
  if (target === undefined || !isWithin(ctx.inside, target) || ctx.skipped.has(target)) return;
  const stats = statOrError(target);
  if (typeof stats === 'string') return;
  if (stats.isFile()) hash.update(`target ${fileDigest(target)}\n`);
  else if (stats.isDirectory() && !ctx.followed.has(target)) {
    ctx.followed.add(target);
    hash.update('target-dir\n');
    hashTree(hash, target, ctx);
    // Where the linked tree ends: entries after it belong to the tree holding the link, never to the target.
    hash.update('end-target-dir\n');
  }
}

function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The real path of `path`, or of its parent when it does not exist yet (a report not yet written). */
function realSpelling(path: string): string {
  return realOrUndefined(path) ?? join(realOrUndefined(dirname(path)) ?? dirname(resolve(path)), basename(path));
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Digest of one file, read in chunks so a large artifact does not have to fit in memory at once. */
function fileDigest(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    return `unreadable:${errorCode(e)}`;
  }
  try {
    const digest = createHash('sha256');
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      digest.update(buffer.subarray(0, n));
    }
    return digest.digest('hex');
  } catch (e) {
    return `unreadable:${errorCode(e)}`;
  } finally {
    closeSync(fd);
  }
}

/**
 * Before a review is issued: an existing report becomes `<report>.prev`
 * (replacing the older one; a report is never deleted), so the reviewer
 * starts from nothing and the file it writes holds only this review's
 * findings. Returns whether there was a report to move. The report's parent
 * directory is created either way so the reviewer can write it.
 */
export function moveAside(report: string): boolean {
  const parent = dirname(report);
  try {
    makeDirs(parent);
  } catch (e) {
    throw cannotWrite(report, `its directory ${parent} cannot be created (${errorCode(e)})`);
  }
  const existing = lstatOrError(report);
  if (typeof existing === 'string') {
    if (existing === 'ENOENT') return false;
    throw cannotWrite(report, `it cannot be inspected (${existing})`);
  }
  if (existing.isDirectory()) throw cannotWrite(report, 'it is a directory');
  try {
    renameSync(report, `${report}.prev`);
  } catch (e) {
    throw cannotWrite(report, `moving the previous report to ${report}.prev failed (${errorCode(e)})`);
  }
  return true;
}

/** Renames `from` to `to` (replacing it) when `from` exists; true when it did. */
export function setAside(from: string, to: string): boolean {
  if (!existsSync(from)) return false;
  try {
    renameSync(from, to);
  } catch (e) {
    throw cannotWrite(from, `moving it to ${to} failed (${errorCode(e)})`);
  }
  return true;
}

function cannotWrite(report: string, why: string): CountersignError {
  return new CountersignError('E_REPORT_PATH', `the review report ${report} cannot be prepared: ${why}`, {
    file: report,
    fix: 'point the review node\'s "report" at a file path inside the workspace whose directory can be created',
  });
}

function lstatOrError(path: string): Stats | string {
  try {
    return lstatSync(path);
  } catch (e) {
    return errorCode(e);
  }
}

function statOrError(path: string): Stats | string {
  try {
    return statSync(path);
  } catch (e) {
    return errorCode(e);
  }
}

function readlinkOr(path: string): string {
  try {
    return readlinkSync(path);
  } catch (e) {
    return `unreadable:${errorCode(e)}`;
  }
}

function errorCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
}
