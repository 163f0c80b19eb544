/** Capturing the CountersignError a call throws or a promise rejects with, for assertions on its code. */
import { CountersignError } from '../../engine/errors.js';

export function thrown(fn: () => unknown): CountersignError {
  try {
    fn();
  } catch (err) {
    if (err instanceof CountersignError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

export async function rejection(p: Promise<unknown>): Promise<CountersignError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof CountersignError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

/** The CountersignError `fn` throws, asserting its code; fails the test when nothing is thrown. */
export function thrownWithCode(fn: () => unknown, code: string): CountersignError {
  const e = thrown(fn);
  if (e.code !== code) throw new Error(`expected ${code}, got ${e.code}: ${e.message}`);
  return e;
}
