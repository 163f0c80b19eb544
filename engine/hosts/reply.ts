/**
 * The `reply:<file>` adapter of `countersign gate`: a reviewer whose final
 * reply is the text of a file, as is. It stands in for a model when trying
 * a proposal against a known reply; it calls no tools.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CountersignError } from '../errors.js';
import type { Agent } from './agent.js';

/**
 * `flag` is the option the spec came from (`--reviewer` in `countersign gate`,
 * `--gate-reviewer` in `countersign run`), so the fix names what the user typed.
 */
export function createReplyAgent(file: string, cwd: string, flag = '--reviewer'): Agent {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CountersignError('E_FILE_NOT_FOUND', `cannot read the reply file ${path} given to ${flag}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, {
      file: path,
      fix: `pass ${flag} reply:<file> with a file holding the reviewer's reply, e.g. one starting "**Decision: approve**"`,
    });
  }
  return {
    async answer() {
      return { reply: text };
    },
  };
}
