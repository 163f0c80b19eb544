/** A uvu suite that opens a fresh store (with the suite's workflow stored under its own hash) before each test and closes it after. */
import { suite, type Test } from 'uvu';
import type { Store, Workflow } from '../../engine/index.js';
import { hashWorkflow } from '../../engine/run/hash.js';

export interface StoreContext {
  store: Store;
  cleanup: () => void;
}

/** `hash` is the workflow's own hash (a store refuses a copy under any other): the workflowHash of the suite's records. */
export function storeSuite(title: string, open: () => StoreContext, workflow: Workflow): { test: Test<{ ctx?: StoreContext }>; store: (c: { ctx?: StoreContext }) => Store; hash: string } {
  const test = suite<{ ctx?: StoreContext }>(title);
  const hash = hashWorkflow(workflow);
  test.before.each((c) => {
    c.ctx = open();
    c.ctx.store.putWorkflow(hash, workflow);
  });
  test.after.each((c) => {
    c.ctx!.store.close();
    c.ctx!.cleanup();
  });
  return { test, store: (c) => c.ctx!.store, hash };
}
