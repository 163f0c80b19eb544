/** Text offsets to 1-based line:column positions (no parser needed). */

/** 1-based line and column; columns count UTF-16 code units, as editors do. */
export interface Position {
  line: number;
  col: number;
}

/** One-off conversion (a linear scan). Documents use a LineIndex instead. */
export function offsetToPosition(text: string, offset: number): Position {
  const end = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  let nl = text.indexOf('\n');
  while (nl >= 0 && nl < end) {
    line++;
    lineStart = nl + 1;
    nl = text.indexOf('\n', lineStart);
  }
  return { line, col: end - lineStart + 1 };
}

/** Line starts computed once, then each lookup is a binary search. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(private readonly text: string) {
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      this.starts.push(nl + 1);
      nl = text.indexOf('\n', nl + 1);
    }
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
