/**
 * Protocol rules every waiting node applies before its own schema: the
 * `$error` declaration, reserved `$` keys, and the answer size limit.
 */
import { MAX_ANSWER_BYTES } from './answer-schema.js';
import { ROOT } from './answer-errors.js';
import { deeperThan } from '../format/depth.js';

/** Answers nested deeper than this are refused: deep values overflow serialisers and stores. */
export const MAX_ANSWER_DEPTH = 64;
import type { AnswerOutcome, Submission } from './node-type.js';
import type { JsonObject } from '../format/model.js';

/**
 * Whitespace, and characters that print nothing: format characters (zero-width
 * space and joiners, word joiner, BOM, soft hyphen), controls (NUL …),
 * lone surrogates, variation selectors, the Hangul fillers, the Khmer
 * inherent vowels and the blank Braille pattern (as the review report's rule).
 */
const INVISIBLE = /[\s\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u115F\u1160\u17B4\u17B5\u2800\u3164\uFFA0\u034F\u180B-\u180F\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;

/** True when a message shows a reader nothing: empty, whitespace, or only invisible characters. */
export function isBlank(message: string): boolean {
  return message.replace(INVISIBLE, '') === '';
}

/**
 * An outcome when the protocol decides, or undefined when the node's schema
 * should. `schemaErrors` judges the rest of an answer the protocol refuses
 * for its reserved keys, so one rejection lists every fault (allErrors) and
 * one retry can fix them all.
 */
export function guardAnswer({ answer, bytes }: Submission, schemaErrors?: (rest: JsonObject) => string[]): AnswerOutcome | undefined {
  // Limits first: a declared failure is stored too, so it must fit them as well.
  if (bytes > MAX_ANSWER_BYTES) {
    return {
      kind: 'rejected',
      code: 'E_ANSWER_TOO_LARGE',
      errors: [`${ROOT}: the answer is ${bytes} bytes; the limit is ${MAX_ANSWER_BYTES} bytes — keep large content in files and answer with their paths`],
    };
  }
  const deep = deeperThan(answer, MAX_ANSWER_DEPTH);
  if (deep !== undefined) {
    return {
      kind: 'rejected',
      code: 'E_ANSWER_TOO_DEEP',
      errors: [`${deep || ROOT}: the answer nests deeper than ${MAX_ANSWER_DEPTH} levels; flatten it`],
    };
  }
  if (answer !== null && typeof answer === 'object' && !Array.isArray(answer)) {
    const declaration = '$error' in answer ? answer.$error : undefined;
    // A declaration ends the visit for good: only an unmistakable one counts
    // ({"$error": null} is not one), and it must say what went wrong: a blank
    // message would leave the run's error saying nothing, so it is re-asked.
    if (typeof declaration === 'string' && !isBlank(declaration) && Object.keys(answer).length === 1) return { kind: 'declared-error', message: declaration };
    const reserved = Object.keys(answer).filter((k) => k.startsWith('$'));
    if (reserved.length > 0) {
      const rest = Object.fromEntries(Object.entries(answer).filter(([k]) => !k.startsWith('$'))) as JsonObject;
      // A $error that is no declaration comes first; then every other $ key;
      // then what the schema finds in the rest — so one retry can fix every
      // fault. A bare {"$error": …} meant to declare failure gets no schema
      // lines: there is no answer beside it to judge.
      const errorLine = '$error' in answer
        ? [`/$error: declares that the agent failed, so it must be a message string that is not blank (not only spaces or invisible characters) and the answer's only key ({"$error": "what went wrong"}); got ${JSON.stringify(answer).slice(0, 200)}`]
        : [];
      const judged = !('$error' in answer) || Object.keys(rest).length > 0;
      return {
        kind: 'rejected',
        code: 'E_ANSWER_RESERVED_KEY',
        errors: [
          ...errorLine,
          ...reserved.filter((k) => k !== '$error').map((k) => `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}: keys starting with "$" are reserved for the protocol; only "$error" is defined`),
          ...(judged ? schemaErrors?.(rest) ?? [] : []),
        ],
      };
    }
  }
  return undefined;
}
