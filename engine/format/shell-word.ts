/**
 * A value as one POSIX shell word, for the commands errors and hints
 * suggest: as it is when it holds only plain characters, else single-quoted,
 * so a suggested command runs as printed.
 */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
