/** Text offsets to 1-based line:column positions (no parser needed). */

/** 1-based line and column; columns count UTF-16 code units, as editors do. */
export interface Position {
  line: number;
  col: number;
  /** The place sits in YAML text an alias reuses: where that alias (the pointer's own place) is written. */
  via?: { line: number; col: number };
  /** Every alias the place is reached through, outermost first (more than one for an alias inside reused text). */
  through?: Array<{ line: number; col: number }>;
}

/**
 * Where each line starts. A line ends at "\n", "\r\n" or a lone "\r" (old
 * Mac files), as editors, jsonc-parser and YAML count lines.
 */
export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
  }
  return starts;
}

/** One-off conversion (a linear scan). Documents use a LineIndex instead. */
export function offsetToPosition(text: string, offset: number): Position {
  return new LineIndex(text).position(offset);
}

/** Line starts computed once, then each lookup is a binary search. */
export class LineIndex {
  private readonly starts: number[];

  constructor(private readonly text: string) {
    this.starts = lineStartsOf(text);
  }

  position(offset: number): Position {
    const end = Math.max(0, Math.min(offset, this.text.length));
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= end) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: end - starts[lo] + 1 };
  }
}
