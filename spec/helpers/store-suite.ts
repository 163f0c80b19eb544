/** A uvu suite that opens a fresh store (with workflow `h1` stored) before each test and closes it after. */
import { suite, type Test } from 'uvu';
import type { Store, Workflow } from '../../engine/index.js';

export interface StoreContext {
  store: Store;
  cleanup: () => void;
}

export function storeSuite(title: string, open: () => StoreContext, workflow: Workflow): { test: Test<{ ctx?: StoreContext }>; store: (c: { ctx?: StoreContext }) => Store } {
  const test = suite<{ ctx?: StoreContext }>(title);
  test.before.each((c) => {
    c.ctx = open();
    c.ctx.store.putWorkflow('h1', workflow);
  });
  test.after.each((c) => {
    c.ctx!.store.close();
    c.ctx!.cleanup();
  });
  return { test, store: (c) => c.ctx!.store };
}
