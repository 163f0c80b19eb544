/**
 * Finding workflows for the MCP server: a tool names a workflow by path
 * (relative to the server's working directory) or by name — a file name
 * (`bugfix.yaml`), a file stem (`bugfix`) or a `metadata.name` — in the
 * configured folders, in order: each `--workflows DIR`, then the workflows
 * this package ships. A name found in several places resolves to the
 * first; the file name tells apart two files that differ only in their
 * extension, and the absolute path `list_workflows` gives reaches any file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CountersignError } from '../../errors.js';
import { readSource } from '../../format/source.js';

export interface WorkflowEntry {
  /** `metadata.name`, or the file stem when the file does not parse. */
  name: string;
  /** Absolute path of the file. */
  path: string;
  description: string;
  version: string;
}

export interface WorkflowCatalog {
  /** The folders searched by name, in order. */
  readonly dirs: readonly string[];
  /** Every workflow file in the folders, folder by folder, files sorted by name. */
  list(): WorkflowEntry[];
  /** The absolute path a tool's `workflow` argument names; E_FILE_NOT_FOUND with the known names otherwise. */
  resolve(ref: string): string;
  /** The shortest argument that resolves to this entry: its name, else its file name, else its path. */
  startWith(entry: WorkflowEntry): string;
}

const WORKFLOW_FILE = /\.(json|ya?ml)$/i;

/**
 * The folders searched by name: the given ones (relative to `cwd`), else
 * the `workflows/` folders of `cwd` and of `workspace` (a host such as
 * Cursor may start the server outside the project it names with
 * --workspace); then the shipped ones. A folder listed twice is searched
 * once, at its first place.
 *
 * A default folder is kept even when it does not exist yet: the catalog
 * reads its folders on every call, so a `workflows/` an agent creates while
 * the server runs (a host starts it when the project opens) is searched by
 * name as soon as it holds a file, without a restart.
 */
export function workflowDirs(cwd: string, given: readonly string[], workspace?: string): string[] {
  const defaults = [resolve(cwd, 'workflows'), ...(workspace !== undefined ? [resolve(cwd, workspace, 'workflows')] : [])];
  const dirs = given.length > 0 ? given.map((d) => resolve(cwd, d)) : defaults;
  const shipped = shippedWorkflowsDir();
  if (shipped) dirs.push(shipped);
  return [...new Set(dirs)];
}

/** The `workflows/` folder of this package, found from this module upward (works from source and from the bundle). */
export function shippedWorkflowsDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && packageName(pkg) === 'countersign') {
      const shipped = join(dir, 'workflows');
      return isDirectory(shipped) ? shipped : undefined;
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export function createWorkflowCatalog(options: { cwd: string; dirs: readonly string[] }): WorkflowCatalog {
  const { cwd, dirs } = options;
  // Parsing every file on each call would make list_workflows cost a YAML parse per file: keep entries until the file changes.
  const cache = new Map<string, { stamp: string; entry: WorkflowEntry }>();

  function entryOf(path: string): WorkflowEntry {
    const st = statSync(path);
    const stamp = `${st.mtimeMs}:${st.size}`;
    const hit = cache.get(path);
    if (hit && hit.stamp === stamp) return hit.entry;
    const entry = describe(path);
    cache.set(path, { stamp, entry });
    return entry;
  }

  function filesOf(dir: string): string[] {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return []; // a folder not created yet, or removed while the server runs, simply holds nothing
    }
    return names
      .filter((n) => WORKFLOW_FILE.test(n))
      .sort()
      .map((n) => join(dir, n))
      .filter((p) => isFile(p));
  }

  const catalog: WorkflowCatalog = {
    dirs,
    list() {
      return dirs.flatMap((dir) => filesOf(dir).map(entryOf));
    },
    resolve(ref) {
      const asPath = resolve(cwd, ref);
      if (isFile(asPath)) return asPath;
      for (const dir of dirs) {
        for (const file of filesOf(dir)) {
          if (basename(file) === ref || stem(file) === ref || entryOf(file).name === ref) return file;
        }
      }
      // An existing directory is a path the user meant, not a name: the CLI's "is a directory" error and fix.
      if (isDirectory(asPath)) readSource(asPath);
      const names = [...new Set(catalog.list().filter((e) => !(NOT_STARTABLE in e)).map((e) => e.name))];
      throw new CountersignError('E_FILE_NOT_FOUND', `no workflow file or workflow name "${ref}"`, {
        fix: names.length > 0
          ? `name one of: ${names.join(', ')} (list_workflows shows them with their file paths), or give a path relative to ${cwd}`
          : `give a path relative to ${cwd}; no workflow folder holds any workflow (${dirs.join(', ') || 'none configured'})`,
      });
    },
    startWith(entry) {
      for (const ref of [entry.name, basename(entry.path)]) {
        try {
          if (catalog.resolve(ref) === entry.path) return ref;
        } catch {
          // not resolvable at all: try the next form
        }
      }
      return entry.path;
    },
  };
  return catalog;
}

function describe(path: string): WorkflowEntry {
  try {
    const data = readSource(path).data as { metadata?: { name?: unknown; description?: unknown; version?: unknown }; nodes?: unknown } | null;
    const meta = data && typeof data === 'object' ? data.metadata : undefined;
    // A file that parses but is no workflow (an answers script beside the workflows) is said to be one, as a broken file is.
    if (!data || typeof data !== 'object' || !Array.isArray(data.nodes)) {
      return notStartable({ name: stem(path), path, description: '(not a workflow: it has no "nodes" list; call validate for details)', version: '' });
    }
    return {
      name: typeof meta?.name === 'string' && meta.name !== '' ? meta.name : stem(path),
      path,
      description: typeof meta?.description === 'string' ? meta.description : '',
      version: typeof meta?.version === 'string' ? meta.version : '',
    };
  } catch (e) {
    // Listed anyway, so a user sees the broken file and can validate it.
    const code = e instanceof CountersignError ? e.code : 'E_PARSE';
    return notStartable({ name: stem(path), path, description: `(does not load: ${code}; call validate for details)`, version: '' });
  }
}

/** Marks a listed file that cannot be started (no workflow, or it does not load): never offered as a name to start. */
const NOT_STARTABLE = Symbol('not startable');

function notStartable(entry: WorkflowEntry): WorkflowEntry {
  // A symbol key: the listing (JSON) shows the entry as it is.
  return Object.assign(entry, { [NOT_STARTABLE]: true });
}

function stem(path: string): string {
  return basename(path, extname(path));
}

function packageName(file: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name;
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
