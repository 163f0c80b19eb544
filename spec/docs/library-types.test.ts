/**
 * A TypeScript host that imports 'countersign' gets the published
 * declarations (package.json's "types": dist/types, built by `npm run
 * build` and `prepare`), not countersign's .ts sources: so the library's
 * types compile under the host's own flags, however strict. A host project
 * with the strictest common flags (what `tsc --init` writes, and more) and
 * countersign linked into its node_modules is compiled here with the
 * TypeScript compiler API; it must have no diagnostic at all, with
 * skipLibCheck (which skips only .d.ts files) and without it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, sep } from 'node:path';
import ts from 'typescript';
import { ROOT, tempDir } from '../helpers/cli.js';

const Types = suite('library types: a strict TypeScript host');

interface PackageJson {
  types?: string;
  files?: string[];
  scripts: Record<string, string>;
  exports: Record<string, { types?: string; import?: string }>;
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** The newest modification time among the files declarations are built from. */
function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|json)$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  walk(join(ROOT, 'engine'));
  walk(join(ROOT, 'schemas'));
  for (const file of ['tsconfig.json', 'tsconfig.types.json']) newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  return newest;
}

/**
 * The entry declaration file package.json names, built first when it is
 * missing (no `npm ci` / `npm run build` since the clone) or older than a
 * source, so the host is checked against the declarations of this source.
 */
let built: string | undefined;
function declarations(): string {
  if (built) return built;
  const types = pkg.exports['.']?.types;
  assert.ok(types, 'package.json exports["."].types is set');
  const entry = join(ROOT, types);
  if (existsSync(entry) && statSync(entry).mtimeMs >= newestSource()) return (built = entry);
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.types.json'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 0, `building the declarations (tsc -p tsconfig.types.json, what \`npm run build\` runs) failed:\n${r.stdout}${r.stderr}${r.error ?? ''}`);
  assert.ok(existsSync(entry), `\`npm run build\` (tsc -p tsconfig.types.json) made no ${types}, which package.json's "types" names`);
  return (built = entry);
}

/** The host's flags: `tsc --init`'s (TypeScript 5.9), and stricter still. */
const HOST_OPTIONS = {
  module: 'nodenext',
  target: 'esnext',
  types: ['node'],
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  noUncheckedSideEffectImports: true,
  moduleDetection: 'force',
  skipLibCheck: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noPropertyAccessFromIndexSignature: true,
  noFallthroughCasesInSwitch: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noEmit: true,
};

/** A host using the API as README shows it; the @ts-expect-error lines prove the types are real (an `any` would leave them unused, an error). */
const HOST = `import {
  createEngine, createMemoryStore, loadWorkflow, validateDocument, validateWorkflow,
  CountersignError, isCountersignError,
  openStore,
  type Agent, type AgentRequest, type EngineOptions, type RunResult, type ValidationReport,
  type RunInfo, type StoreLocation, type Mutation, type RunRecord,
} from 'countersign';

const workflow = process.argv[2] ?? ${JSON.stringify(join(ROOT, 'workflows/bugfix.yaml'))};
const doc = loadWorkflow(workflow);
const report: ValidationReport = validateDocument(doc);
const again: ValidationReport = validateWorkflow(doc.data, doc.file);
const firstCode: string | undefined = report.errors[0]?.code;

const options: EngineOptions = { store: createMemoryStore() };
const engine = createEngine(options);
const agent: Agent = {
  answer: async (request: AgentRequest) => (request.kind === 'review' ? { issues: [] } : {}),
};
try {
  const result: RunResult = await engine.run(workflow, { agent });
  const end: string | undefined = result.endNodeId;
  console.log(result.status, end, firstCode, again.ok);
} catch (e) {
  if (isCountersignError(e)) console.error(e.code, e.fix ?? '', e.toJSON().message);
  else if (e instanceof CountersignError) console.error(e.message);
  throw e;
}
console.log(new CountersignError('E_INPUT', 'no such file', { fix: 'give a path', pointer: '/input' }).toJSON().code);
// The types the API's own signatures use can be named: engine.info()'s, openStore()'s, a Store's update().
export async function described(runId: string): Promise<RunInfo> { return engine.info(runId); }
const where: StoreLocation = { cwd: process.cwd() };
export const opened = () => openStore(where);
export const keep = (current: RunRecord): Mutation<number> => ({ result: current.seq });

// @ts-expect-error: an engine needs a store
createEngine({});
// @ts-expect-error: exactOptionalPropertyTypes: an optional option is left out, not undefined
createEngine({ store: createMemoryStore(), now: undefined });
// @ts-expect-error: an agent answers through answer()
export const notAnAgent: Agent = { reply: async () => ({}) };
`;

/** A host project in a temp folder, countersign linked into its node_modules as `npm link` would. */
function hostProject(): string {
  const dir = tempDir('countersign-ts-host-');
  mkdirSync(join(dir, 'node_modules/@types'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules/countersign'), 'dir');
  // The host's own @types/node, as a Node project has.
  symlinkSync(join(ROOT, 'node_modules/@types/node'), join(dir, 'node_modules/@types/node'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{"name": "ts-host", "private": true, "type": "module"}\n');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: HOST_OPTIONS, include: ['host.ts'] }, null, 2));
  writeFileSync(join(dir, 'host.ts'), HOST);
  return dir;
}

/** Compiles the host's tsconfig.json (with `overrides`), reusing `old`'s parsed files, and returns its program. */
function compile(dir: string, overrides: ts.CompilerOptions = {}, old?: ts.Program): ts.Program {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), overrides, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => assert.unreachable(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
  });
  assert.ok(parsed);
  assert.equal(parsed.errors, []);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, ...(old ? { oldProgram: old } : {}) });
}

/** The host project, made and compiled (as configured: skipLibCheck on) once for the suite. */
let host: { dir: string; program: ts.Program } | undefined;
function hostProgram(): { dir: string; program: ts.Program } {
  if (host) return host;
  declarations();
  const dir = hostProject();
  return (host = { dir, program: compile(dir) });
}

const formatHost: ts.FormatDiagnosticsHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
function diagnostics(program: ts.Program): string[] {
  return ts.getPreEmitDiagnostics(program).map((d) => ts.formatDiagnostics([d], formatHost).trim());
}

Types('package.json points TypeScript at built declaration files that the package ships, not at .ts sources', () => {
  const types = pkg.exports['.']?.types ?? '';
  assert.match(types, /^\.\/dist\/types\/.*\.d\.ts$/);
  assert.is(pkg.types, types, 'the top-level "types" (for older resolution modes) names the same file');
  assert.ok(pkg.files?.some((f) => types.startsWith(`./${f.replace(/\/?$/, '/')}`)), `"files" ships ${types}`);
  for (const script of ['build', 'prepare']) assert.match(pkg.scripts[script] ?? '', /node engine\/cli\/build-types\.mjs/, `${script} builds the declarations`);
  assert.ok(readFileSync(join(ROOT, '.gitignore'), 'utf8').split('\n').some((l) => l.trim() === 'dist/'), 'dist/ is a build output, not committed');
});

Types('a host with strict, noUncheckedIndexedAccess, exactOptionalPropertyTypes (and skipLibCheck) compiles with no diagnostic, reading only declarations of countersign', () => {
  const entry = declarations();
  const { program } = hostProgram();
  assert.equal(diagnostics(program), []);
  const root = realpathSync(ROOT) + sep;
  const files = program.getSourceFiles().map((f) => f.fileName);
  assert.ok(files.includes(realpathSync(entry)), `the host read ${entry}`);
  const sources = files.filter((f) => f.startsWith(root) && !f.endsWith('.d.ts'));
  assert.equal(sources, [], 'no countersign .ts source is compiled under the host\'s flags');
  // Not `any` either: an unused @ts-expect-error in host.ts would be a diagnostic above, so each misuse there was refused.
});

Types('without skipLibCheck too: the declarations themselves check under the host\'s flags', () => {
  const { dir, program: checked } = hostProgram();
  const program = compile(dir, { skipLibCheck: false }, checked);
  assert.equal(diagnostics(program), []);
});

Types.run();
