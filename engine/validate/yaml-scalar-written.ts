/**
 * YAML reads `version: 1.0` as the number 1, `on: yes`… as text, `~` and
 * an empty value as null. A schema finding that names the value as YAML
 * read it ("not the number 1") would not match what the author sees in the
 * file: where text was wanted, the finding also says how it was written
 * and that quoting keeps it text.
 */
import type { SourceDocument } from '../format/source.js';
import type { Finding } from '../nodes/node-type.js';
import { indexOf, locateFinding } from './locate.js';
import { pointerSegments } from './pointer.js';

export function withScalarAsWritten(doc: SourceDocument, finding: Finding): Finding {
  if (doc.format !== 'yaml' || finding.scalarSaid === undefined) return finding;
  const at = locateFinding(doc, finding);
  if (at.line < 1) return finding;
  const start = indexOf(doc, at);
  // A plain scalar ends at a line break, a comment, or (in flow style) the next item.
  const raw = (/^[^\n#,\]}]*/.exec(doc.text.slice(start))?.[0] ?? '').trimEnd();
  const said = finding.scalarSaid;
  let how: string;
  // An empty value (`agent:`) has no text of its own: it is placed at its key.
  const key = pointerSegments(finding.pointer).pop() ?? '';
  if (raw === '' || (said === 'null' && (raw === `${key}:` || raw.startsWith(`${key}: `) || raw.startsWith(`${key}:\t`)))) how = 'nothing is written after its key, which YAML reads as null: write the text';
  else if (/^["'*&!|>]/.test(raw)) return finding; // quoted, an alias, a tag or a block: not a plain scalar misread
  else {
    const read = said === 'null' ? 'null' : said.startsWith('the number') || said.startsWith('the fraction') ? 'a number' : said;
    // Quoting keeps it text, but not text the field takes when it has a form of its own (a version's major.minor.patch).
    const fits = (finding.scalarPattern === undefined || new RegExp(finding.scalarPattern, 'u').test(raw)) && (finding.scalarAllowed === undefined || finding.scalarAllowed.includes(raw));
    how = fits
      ? `written ${raw}, which YAML reads as ${read}: quote it, "${raw.replace(/"/g, '\\"')}", to keep it as text`
      : `written ${raw}, which YAML reads as ${read}: write quoted text of the form this field takes`;
  }
  return { ...finding, message: finding.message.replace(`, not ${said}`, `, not ${said} (${how})`) };
}
