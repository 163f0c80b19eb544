/**
 * A store opened on its first use. A CLI command that fails before it
 * reads or writes a run (a mistyped or invalid workflow file) then never
 * creates `.countersign/` at all, instead of making one and deleting it
 * again, which could delete a store another process had just begun to use.
 */
import type { Store } from './store.js';

/** `created`: told each run id this store creates (the CLI names the run a command left, should the process end under it). */
export function lazyStore(open: () => Store, location: string, created?: (runId: string) => void): Store {
  let real: Store | undefined;
  const store = (): Store => (real ??= open());
  return new Proxy({} as Store, {
    // Asking whether it is a store (createEngine checks) must not open it.
    has: (_, name) => typeof name === 'string',
    get(_, name: string | symbol) {
      if (name === 'location') return location;
      // Asked only about a store in use: never opens one for the question.
      if (name === 'file') return real?.file;
      if (name === 'close') return () => real?.close();
      const member = store()[name as keyof Store];
      if (name === 'create' && created) {
        return (...args: Parameters<Store['create']>) => {
          const done = real!.create(...args);
          created(args[0].runId);
          return done;
        };
      }
      return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(real) : member;
    },
  });
}
