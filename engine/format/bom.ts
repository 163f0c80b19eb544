/**
 * Windows tools (Notepad, PowerShell's `Out-File -Encoding utf8`) start a
 * UTF-8 file with a byte-order mark. It is invisible in editors, so it must
 * not turn a file's `{` into "not JSON": every reader of a user's file drops it.
 */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
