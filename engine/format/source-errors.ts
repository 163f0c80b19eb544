/** Parse errors every source format raises, worded once. */
import { CountersignError } from '../errors.js';

export function emptyFile(file: string): CountersignError {
  return new CountersignError('E_PARSE', 'the file is empty', {
    file, line: 1, col: 1,
    fix: 'write a workflow object with "metadata" and "nodes"',
  });
}
