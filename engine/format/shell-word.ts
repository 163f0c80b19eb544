/**
 * A value as one POSIX shell word, for the commands errors and hints
 * suggest: as it is when it holds only plain characters, else single-quoted,
 * so a suggested command runs as printed.
 */
export function shellWord(text: string): string {
  // "," is plain to the shell but ends a word where the hints are read back (a suggested command inside a sentence): quoted.
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
