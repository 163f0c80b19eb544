/**
 * Values nested too deep to serialise (thousands of levels), which JSON
 * parsing accepts but JSON.stringify cannot write back.
 *
 * An answer nested too deep to serialise (thousands of levels) must come
 * back as the engine's E_ANSWER_TOO_DEEP rejection, as a merely deep one
 * does, not as a serialisation failure. The engine copies every answer
 * through JSON before its guard looks at the depth, so such an answer is
 * cut to one level past the limit first: the guard then refuses it at the
 * same pointer, and since a rejected answer is never stored, nothing of the
 * cut copy outlives the rejection.
 */
import { CountersignError } from '../../errors.js';
import { deeperThan } from '../../format/depth.js';
import { MAX_ANSWER_DEPTH } from '../../nodes/answer-guard.js';

/** The answer itself when JSON can hold it; otherwise, if it is too deep, a copy cut just below the depth limit. */
export function serialisableAnswer(answer: unknown): unknown {
  try {
    JSON.stringify(answer);
    return answer;
  } catch (e) {
    if (!(e instanceof RangeError) || deeperThan(answer, MAX_ANSWER_DEPTH) === undefined) return answer;
    return cutBelow(answer as object, MAX_ANSWER_DEPTH + 1);
  }
}

/** A start input too deep to serialise is refused with a fix; the engine would only say it cannot be serialised. */
export function checkSerialisableInput(input: unknown): void {
  try {
    JSON.stringify(input);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const at = deeperThan(input, MAX_ANSWER_DEPTH);
    throw new CountersignError('E_INPUT', `the start input nests too deep to be read as JSON${at ? `: ${at} is more than ${MAX_ANSWER_DEPTH} levels down` : ''}`, {
      fix: 'flatten the input: give each variable a value of the type its variableRegistry entry declares',
    });
  }
}

/** A copy of `value` whose containers at `depth` are left empty; built without recursion. */
export function cutBelow(value: object, depth: number): object {
  const shell = (v: object): Record<string, unknown> => (Array.isArray(v) ? [] : {}) as Record<string, unknown>;
  const root = shell(value);
  const stack: Array<[object, Record<string, unknown>, number]> = [[value, root, 0]];
  while (stack.length > 0) {
    const [source, copy, level] = stack.pop()!;
    if (level >= depth) continue;
    for (const [key, child] of Object.entries(source)) {
      if (child !== null && typeof child === 'object') {
        const childCopy = shell(child);
        copy[key] = childCopy;
        stack.push([child, childCopy, level + 1]);
      } else {
        copy[key] = child;
      }
    }
  }
  return root;
}
