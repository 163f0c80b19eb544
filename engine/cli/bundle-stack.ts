/**
 * A stack from the bundled CLI names one long line of dist/cli-…/main.cjs,
 * which tells a reader nothing: each such frame is mapped back to the
 * TypeScript file, line and column it came from, through the source map
 * the build writes beside the bundle (main.cjs.map). Only on the error
 * path: nothing is read while commands run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, relative, resolve } from 'node:path';

const BUNDLE_FRAME = /([^\s()]*[\\/]dist[\\/]cli-[^\\/\s()]+[\\/]main\.cjs):(\d+):(\d+)/g;

export function mappedStack(stack: string): string {
  const maps = new Map<string, SourceMap | undefined>();
  return stack.replace(BUNDLE_FRAME, (frame, file: string, line: string, col: string) => {
    if (!maps.has(file)) maps.set(file, load(`${file}.map`));
    const map = maps.get(file);
    const entry = map?.findEntry(Number(line) - 1, Number(col) - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number } | undefined;
    if (!entry?.originalSource || entry.originalLine === undefined) return frame;
    // Sources are recorded relative to the map's folder: named from the package root, as a reader finds them.
    const source = resolve(dirname(file), entry.originalSource);
    const root = resolve(dirname(file), '..', '..');
    return `${relative(root, source)}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}`;
  });
}

function load(path: string): SourceMap | undefined {
  try {
    return existsSync(path) ? new SourceMap(JSON.parse(readFileSync(path, 'utf8'))) : undefined;
  } catch {
    return undefined;
  }
}
