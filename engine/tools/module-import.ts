/**
 * How a workflow's tool modules are imported. Plain `import()` wherever the
 * engine runs as ES modules (the library, tsx); the CLI launcher replaces it
 * with its own, because the CLI bundle runs as a code-cached script, and in
 * Node 20 code restored from a V8 code cache cannot call `import()` at all.
 */
export type ModuleImporter = (url: string) => Promise<Record<string, unknown>>;

let importer: ModuleImporter = (url) => import(url) as Promise<Record<string, unknown>>;

export function importModule(url: string): Promise<Record<string, unknown>> {
  return importer(url);
}

/** Replaces the importer (the CLI launcher passes one defined in its own ES module). */
export function useModuleImporter(next: ModuleImporter): void {
  importer = next;
}
