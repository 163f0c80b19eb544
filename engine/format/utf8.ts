/**
 * Files users write (workflows, answer scripts, JSON arguments) are read as
 * UTF-8. A file in another encoding — Latin-1 from an old editor, UTF-16
 * from a Windows one — would otherwise be decoded with U+FFFD in place of
 * every byte that is not UTF-8, and its text would reach an agent
 * corrupted without a word: it is refused at the first byte at fault.
 */
import { isUtf8 } from 'node:buffer';
import { offsetToPosition } from './positions.js';

export interface EncodingProblem {
  /** What the file is, said after its name: "is not UTF-8 text: …". */
  message: string;
  line: number;
  col: number;
  fix: string;
}

/** The text of a UTF-8 file, or what keeps it from being one. */
export function decodeUtf8(bytes: Uint8Array): { text: string } | { problem: EncodingProblem } {
  const other = otherEncoding(bytes);
  if (other) {
    return {
      problem: {
        message: `is ${other.name} text (${other.how}), and countersign reads UTF-8`,
        line: 1,
        col: 1,
        fix: 'save the file as UTF-8 (in most editors: "Save with encoding" → UTF-8)',
      },
    };
  }
  if (isUtf8(bytes)) return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') };
  const at = firstInvalid(bytes);
  const before = Buffer.from(bytes.buffer, bytes.byteOffset, at).toString('utf8');
  const { line, col } = offsetToPosition(before, before.length);
  return {
    problem: {
      message: `is not UTF-8 text: the byte 0x${bytes[at].toString(16).toUpperCase().padStart(2, '0')} at line ${line}, column ${col} starts no UTF-8 character (Latin-1 or Windows-1252 text, or a binary file?)`,
      line,
      col,
      fix: 'save the file as UTF-8 (in most editors: "Save with encoding" → UTF-8)',
    },
  };
}

/** The index of the first byte that does not begin (or continue) a well-formed UTF-8 sequence. */
function firstInvalid(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    const length = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return i;
    if (length > 1 && !isUtf8(bytes.subarray(i, i + length))) return i;
    i += length;
  }
  return bytes.length;
}

/** A Unicode encoding other than UTF-8, told by its byte-order mark, or by NUL bytes beside ASCII where none is. */
function otherEncoding(bytes: Uint8Array): { name: string; how: string } | undefined {
  const hex = (n: number) => [...bytes.subarray(0, n)].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
  if (bytes[0] === 0xff && bytes[1] === 0xfe && bytes[2] === 0 && bytes[3] === 0) return { name: 'UTF-32LE', how: `it starts with the byte-order mark ${hex(4)}` };
  if (bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0xfe && bytes[3] === 0xff) return { name: 'UTF-32BE', how: `it starts with the byte-order mark ${hex(4)}` };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { name: 'UTF-16LE', how: `it starts with the byte-order mark ${hex(2)}` };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { name: 'UTF-16BE', how: `it starts with the byte-order mark ${hex(2)}` };
  // Without a mark: ASCII written as UTF-16 puts a NUL byte beside every character.
  if (bytes.length >= 4 && bytes[0] !== 0 && bytes[1] === 0 && bytes[2] !== 0 && bytes[3] === 0) return { name: 'UTF-16LE', how: 'a NUL byte follows each character, and it has no byte-order mark' };
  if (bytes.length >= 4 && bytes[0] === 0 && bytes[1] !== 0 && bytes[2] === 0 && bytes[3] !== 0) return { name: 'UTF-16BE', how: 'a NUL byte comes before each character, and it has no byte-order mark' };
  return undefined;
}
