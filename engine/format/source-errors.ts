/** Parse errors every source format raises, worded once. */
import { CountersignError } from '../errors.js';
import type { EncodingProblem } from './utf8.js';

export function emptyFile(file: string): CountersignError {
  return new CountersignError('E_PARSE', 'the file is empty', {
    file, line: 1, col: 1,
    fix: 'write a workflow object with "metadata" and "nodes"',
  });
}

export function notUtf8(file: string, problem: EncodingProblem): CountersignError {
  return new CountersignError('E_PARSE', `the file ${problem.message}`, { file, line: problem.line, col: problem.col, fix: problem.fix });
}
