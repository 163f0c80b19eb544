/**
 * A YAML collection tag JSON cannot keep (!!set, !!omap, !!pairs) is
 * reported at the tag itself, wherever the collection's first item is
 * written: after a comment on the tag's line, or after comment lines.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSource } from '../../engine/format/source.js';
import { thrown } from '../helpers/errors.js';

const TagAt = suite('YAML collection tags: reported at the tag');

/** A registry entry whose default is the tagged collection `value` (written from line 3 on, the tag at 3:14). */
const doc = (value: string) => `variableRegistry:\n  v:\n    default: ${value}\n`;

TagAt('a comment after the tag, or comment lines before the first item, leave the position at the tag (3:14)', () => {
  for (const [value, said] of [
    ['!!set # a set\n      ? a\n      ? b', 'tagged !!set'],
    ['!!omap # ordered\n      - a: 1', 'tagged !!omap'],
    ['!!pairs\n      # note\n      - a: 1', 'tagged !!pairs'],
    ['!!pairs # pairs\n      # note\n\n      - a: 1', 'tagged !!pairs'],
    ['!!set # a set\n      # more\n      ? a', 'tagged !!set'],
    ['!!omap &m # anchored\n      - a: 1', 'tagged !!omap'],
  ] as const) {
    const e = thrown(() => parseSource(doc(value), 'w.yaml'));
    assert.equal([e.code, e.line, e.col], ['E_PARSE', 3, 14], value);
    assert.match(e.message, said, value);
  }
});

TagAt('without a comment the position is the tag, as before', () => {
  for (const value of ['!!set\n      ? a', '!!omap\n      - a: 1', '!!pairs\n      - a: 1', '!!omap [a: 1]']) {
    const e = thrown(() => parseSource(doc(value), 'w.yaml'));
    assert.equal([e.code, e.line, e.col], ['E_PARSE', 3, 14], value);
  }
});

TagAt('a "#" inside the tagged collection\'s text is not a comment before it: the tag is still found', () => {
  const e = thrown(() => parseSource(doc('!!omap\n      - "a#b": 1'), 'w.yaml'));
  assert.equal([e.line, e.col], [3, 14]);
});

TagAt('a tag on a line of its own, and a quoted key holding " #" before a tag, are located at the tag too', () => {
  const own = thrown(() => parseSource('variableRegistry:\n  v:\n    default:\n      !!omap # c\n      - a: 1\n', 'w.yaml'));
  assert.equal([own.line, own.col], [4, 7]);
  const quoted = thrown(() => parseSource('m:\n  "a #b": !!set # c\n    ? x\n', 'w.yaml'));
  assert.equal([quoted.line, quoted.col], [2, 11]);
});

TagAt.run();
