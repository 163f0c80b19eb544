/**
 * JSON pointer helpers for findings: building pointers, reading the value a
 * pointer names, and saying where it is in words a workflow author knows
 * (`node "review" inputSchema.properties`) rather than as raw pointers.
 */

/** RFC 6901 escaping of one segment. */
export function escapeSegment(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function childPointer(pointer: string, segment: string | number): string {
  return `${pointer}/${escapeSegment(segment)}`;
}

export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function parentPointer(pointer: string): string {
  const at = pointer.lastIndexOf('/');
  return at <= 0 ? '' : pointer.slice(0, at);
}

/** The value at `pointer`, or undefined when the path does not exist. */
export function valueAt(data: unknown, pointer: string): unknown {
  let current: unknown = data;
  for (const segment of pointerSegments(pointer)) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `node "review"` for a node with a usable id, else `nodes[3]`. */
export function nodeLabel(data: unknown, index: number): string {
  const id = valueAt(data, `/nodes/${index}/id`);
  return typeof id === 'string' && id !== '' ? `node "${id}"` : `nodes[${index}]`;
}

/**
 * A pointer in words: `/nodes/2/inputSchema/required/0` becomes
 * `node "review" inputSchema.required[0]`; the root is `the workflow`.
 */
export function describePointer(data: unknown, pointer: string): string {
  const segments = pointerSegments(pointer);
  if (segments.length === 0) return 'the workflow';
  let head = '';
  let rest = segments;
  if (segments[0] === 'nodes' && segments.length >= 2 && /^\d+$/.test(segments[1])) {
    head = nodeLabel(data, Number(segments[1]));
    rest = segments.slice(2);
  }
  let path = '';
  for (const segment of rest) {
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else path += path === '' ? segment : `.${segment}`;
  }
  if (head === '') return path;
  return path === '' ? head : `${head} ${path}`;
}
