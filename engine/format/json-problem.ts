/**
 * Values JSON would change without a word: NaN or Infinity (stored as
 * null), a function or symbol (dropped), undefined or a hole in a list
 * (null), a Map or Set (stored as {}); and a BigInt, on which it throws.
 * An answer or start input holding one is refused, never stored altered.
 * An object member that is undefined is absent, as JSON has it; a value
 * with toJSON (a Date) is in JSON's own form, and a class instance keeps
 * its own fields, as JSON keeps them.
 */
export interface JsonProblem {
  /** JSON pointer of the value ('' for the whole value). */
  pointer: string;
  message: string;
}

const COLLECTIONS = [Map, Set, WeakMap, WeakSet];

export interface JsonProblemOptions {
  /**
   * An object member that is undefined is refused too (JSON would drop the
   * key). A tool's result is handed on as it was returned, so a member that
   * vanishes on the way is a change; an answer's undefined member is absent.
   */
  undefinedMembers?: 'absent' | 'refused';
  /**
   * An object that is not a plain object or array (a Date, RegExp, Error,
   * class instance, anything with its own toJSON) is refused too: JSON
   * would store it in another form, or as {}.
   */
  plainObjectsOnly?: boolean;
}

/** The first such value in document order, or undefined when JSON keeps the value as it is. */
export function jsonProblem(root: unknown, options: JsonProblemOptions = {}): JsonProblem | undefined {
  const refuseUndefined = options.undefinedMembers === 'refused';
  const stack: Array<{ v: unknown; pointer: string; inList: boolean }> = [{ v: root, pointer: '', inList: false }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const { v, pointer, inList } = stack.pop()!;
    const kind = typeof v;
    if (kind === 'number' && !Number.isFinite(v)) return { pointer, message: `is ${String(v)}, which JSON has no number for (it would be stored as null)` };
    // Named as given: JSON.stringify throws a bare TypeError on a BigInt, and writes nothing for a symbol.
    if (kind === 'bigint') return { pointer, message: `is ${String(v)}n, a BigInt, which JSON has no number for` };
    if (kind === 'symbol') return { pointer, message: `is ${String(v)}, a symbol, which has no JSON form` };
    if (kind === 'function') return { pointer, message: 'is a function, which has no JSON form' };
    if (v === undefined && inList) return { pointer, message: 'is undefined (or a hole), which JSON would store as null in a list' };
    if (v === undefined && refuseUndefined && pointer !== '') return { pointer, message: 'is undefined, which JSON would drop (the key would vanish)' };
    if (v === null || kind !== 'object' || seen.has(v as object)) continue;
    seen.add(v as object);
    if (COLLECTIONS.some((c) => v instanceof c)) return { pointer, message: `is a ${(v as object).constructor.name}, which JSON would store as {}` };
    if (options.plainObjectsOnly && Object.getOwnPropertySymbols(v).some((k) => Object.prototype.propertyIsEnumerable.call(v, k))) {
      return { pointer, message: 'has symbol keys, which JSON drops' };
    }
    if (options.plainObjectsOnly && !Array.isArray(v)) {
      const proto = Object.getPrototypeOf(v);
      if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === 'function') {
        const name = (v as object).constructor?.name;
        const what = name && proto !== Object.prototype ? `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}` : 'an object with its own toJSON';
        return { pointer, message: `is ${what}, which JSON would store in another form${storedAs(v)}` };
      }
    }
    if ('toJSON' in (v as object)) continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], pointer: `${pointer}/${i}`, inList: true });
      continue;
    }
    const entries = Object.entries(v as object);
    for (let i = entries.length - 1; i >= 0; i--) {
      stack.push({ v: entries[i][1], pointer: `${pointer}/${entries[i][0].replace(/~/g, '~0').replace(/\//g, '~1')}`, inList: false });
    }
  }
  return undefined;
}

/** What JSON.stringify would make of a value, for a message: ` (as {})`, or nothing when it throws. */
function storedAs(v: unknown): string {
  try {
    const text = JSON.stringify(v);
    return text === undefined ? ' (it would vanish)' : ` (as ${text.length > 40 ? `${text.slice(0, 37)}...` : text})`;
  } catch {
    return '';
  }
}
