/**
 * A Markdown document as a list of sections: each ATX heading (`#` … `######`)
 * with the lines below it up to the next heading. Lines inside fenced code
 * blocks are never headings. Both example agents use it: the reviewer to
 * check sections, the producer to edit them.
 */

/**
 * `{ lines, sections }`: `lines` is the document split on newlines;
 * each section is `{ level, title, line, start, end }` where `title` is the
 * heading text without `#` marks and backticks, `line` its 1-based line
 * number, and lines `start` (inclusive) to `end` (exclusive) its body.
 */
export function parseSections(text) {
  const lines = text.split('\n');
  const sections = [];
  let fence = '';
  lines.forEach((line, i) => {
    const fenceMark = /^\s*(```+|~~~+)/.exec(line);
    if (fenceMark) {
      if (!fence) fence = fenceMark[1][0];
      else if (fenceMark[1][0] === fence) fence = '';
      return;
    }
    if (fence) return;
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) return;
    if (sections.length > 0) sections[sections.length - 1].end = i;
    sections.push({ level: heading[1].length, title: plainTitle(heading[2]), line: i + 1, start: i + 1, end: lines.length });
  });
  return { lines, sections };
}

/** Heading text as a reader sees it: no backticks, single spaces. */
export function plainTitle(text) {
  return text.replace(/`/g, '').replace(/\s+/g, ' ').trim();
}

/** The body lines of a section that hold text (not blank). */
export function bodyText(lines, section) {
  return lines.slice(section.start, section.end).filter((l) => l.trim() !== '');
}

/** `name` and parameter names when a heading reads like `name(a, b)`, else undefined. */
export function headingSignature(title) {
  const m = /^([A-Za-z_$][\w$]*)\s*\(([^()]*)\)$/.exec(title);
  if (!m) return undefined;
  const params = m[2].split(',').map((p) => p.split('=')[0].trim()).filter((p) => p !== '');
  return { name: m[1], params };
}
