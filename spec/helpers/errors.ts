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
