/**
 * The end of what an agent process wrote to stderr, quoted in the error
 * when it crashes: the reason is usually in its last lines, and a host
 * reading only the error (a --json document) would otherwise never see it.
 */
const TAIL_CHARS = 4096;
const TAIL_LINES = 5;

/** `tail` with `chunk` added, cut to the last few KiB. */
export function keepTail(tail: string, chunk: string): string {
  return (tail + chunk).slice(-TAIL_CHARS);
}

/** `; its stderr ended with:` and its last lines, or that it wrote nothing there. */
export function stderrNote(tail: string): string {
  const lines = tail.trimEnd().split('\n').slice(-TAIL_LINES).filter((l) => l !== '');
  return lines.length > 0 ? `; its stderr ended with:\n  ${lines.join('\n  ')}` : '; it wrote nothing to stderr';
}
