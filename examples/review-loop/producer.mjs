#!/usr/bin/env node
/**
 * The review-loop example's producer: an offline, deterministic agent run by
 * the `exec:` adapter (`--agent "exec:node ../producer.mjs"`). It reads the
 * directive request on stdin and prints its answer on stdout.
 *
 * - produce directive (has an `Artifact:` line): writes its first draft of the
 *   API reference, overwriting any earlier one, so every run starts afresh.
 *   The draft has three real defects: a wrong signature, a placeholder, and
 *   a missing function.
 * - fix directive (also has a `Report file:` line): reads the findings from
 *   that report file (and nowhere else) and resolves each one it understands
 *   in the artifact, using the module source under `Context:` for signatures
 *   and descriptions. When it copies a description it copies it as written,
 *   so a note in the source can surface as a new finding in the next review.
 *   When it can act on none of the findings it leaves the artifact as it is
 *   and answers {"unchanged_reason": "..."}.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { moduleFiles, readExports } from './js-exports.mjs';
import { bodyText, headingSignature, parseSections } from './markdown-sections.mjs';

const PLACEHOLDER = /\b(TODO|FIXME|TBD)\b/;

const FIRST_DRAFT = `# lib/text.mjs

Helpers for turning user text into URL slugs, short previews and word counts.

## slugify(text)

Turns text into a lower-case URL slug: \`slugify("Hello, World!")\` returns \`"hello-world"\`.

## truncate(text, max)

TODO: say what happens to text that is cut.
`;

const request = JSON.parse(await readStdin());
process.stdout.write(`${JSON.stringify(respond(request))}\n`);

function respond(req) {
  if (req.kind !== 'directive') return { $error: `producer.mjs answers directives only, got a "${req.kind}" item for node "${req.nodeId}"` };
  const artifact = directiveField(req.directive, 'Artifact');
  if (!artifact) return { $error: `the directive for node "${req.nodeId}" names no "Artifact:" line, so producer.mjs does not know which file to write` };
  const report = directiveField(req.directive, 'Report file');
  return report ? fix(artifact, report, directiveField(req.directive, 'Context')) : produce(artifact);
}

function produce(artifact) {
  mkdirSync(dirname(artifact) || '.', { recursive: true });
  writeFileSync(artifact, FIRST_DRAFT);
  process.stderr.write(`  producer: wrote the first draft of ${artifact}\n`);
  return {};
}

function fix(artifact, report, context) {
  const issues = readFindings(report);
  const before = readFileSync(artifact, 'utf8');
  const exports = new Map();
  for (const file of moduleFiles(context ? [context] : [])) for (const exp of readExports(file)) if (!exports.has(exp.name)) exports.set(exp.name, exp);
  let lines = before.split('\n');
  const skipped = [];
  for (const issue of issues) {
    const next = resolveIssue(issue, lines, exports);
    if (next) lines = next;
    else skipped.push(issue);
  }
  const after = lines.join('\n');
  const where = relative(process.cwd(), report);
  if (after === before) {
    process.stderr.write(`  producer: could act on none of the ${issues.length} issue(s) in ${where}\n`);
    return { unchanged_reason: `none of the ${issues.length} issue(s) in ${where} could be acted on: ${skipped.join(' | ')}` };
  }
  writeFileSync(artifact, after);
  process.stderr.write(`  producer: resolved ${issues.length - skipped.length} of ${issues.length} issue(s) from ${where} in ${artifact}\n`);
  return {};
}

/** The document's lines with one finding resolved, or undefined when this producer cannot resolve it. */
function resolveIssue(issue, lines, exports) {
  let m = /no section for ([A-Za-z_$][\w$]*)\(.*\), which .+ exports$/.exec(issue);
  if (m) {
    const exp = exports.get(m[1]);
    if (!exp || !exp.doc) return undefined;
    const out = [...lines];
    while (out.length > 0 && out[out.length - 1].trim() === '') out.pop();
    // The description is copied from the source as it stands.
    return [...out, '', `## ${exp.signature}`, '', ...exp.doc.split('\n'), ''];
  }
  m = /the heading "(.+)" does not match the exported signature (.+) in .+$/.exec(issue);
  if (m) {
    const section = findSection(lines, m[1]);
    if (!section) return undefined;
    const out = [...lines];
    out[section.line - 1] = `${'#'.repeat(section.level)} ${m[2]}`;
    return out;
  }
  m = /the heading "(.+)" documents .+, which no module in the context paths exports$/.exec(issue);
  if (m) {
    const section = findSection(lines, m[1]);
    if (!section) return undefined;
    return [...lines.slice(0, section.line - 1), ...lines.slice(section.end)];
  }
  m = /placeholder "(\w+)" in the section "(.+)"$/.exec(issue);
  if (m) {
    const section = findSection(lines, m[2]);
    const [start, end] = section ? [section.start, section.end] : [0, firstHeadingIndex(lines)];
    const kept = lines.slice(start, end).filter((l) => !new RegExp(`\\b${m[1]}\\b`).test(l));
    const out = [...lines.slice(0, start), ...kept, ...lines.slice(end)];
    // A section left empty gets the description from the source, notes left out.
    return section ? fillIfEmpty(out, m[2], exports) ?? out : out;
  }
  m = /the section "(.+)" has no body text$/.exec(issue);
  if (m) return fillIfEmpty(lines, m[1], exports);
  return undefined;
}

/** Writes the exported function's description under an empty section; undefined when there is none to write. */
function fillIfEmpty(lines, title, exports) {
  const section = findSection(lines, title);
  if (!section) return undefined;
  const { sections } = parseSections(lines.join('\n'));
  const current = sections.find((s) => s.line === section.line);
  if (bodyText(lines, current).length > 0) return lines;
  const exp = exports.get(headingSignature(title)?.name ?? '');
  const description = exp?.doc.split('\n').filter((l) => !PLACEHOLDER.test(l)) ?? [];
  if (description.length === 0) return undefined;
  return [...lines.slice(0, current.start), '', ...description, '', ...lines.slice(current.end).filter((l, i) => i > 0 || l.trim() !== '')];
}

function findSection(lines, title) {
  return parseSections(lines.join('\n')).sections.find((s) => s.title === title);
}

function firstHeadingIndex(lines) {
  const first = parseSections(lines.join('\n')).sections[0];
  return first ? first.line - 1 : lines.length;
}

/** The findings in the report: JSON {"issues": [...]}, or top-level Markdown list items. */
function readFindings(report) {
  if (!existsSync(report)) throw new Error(`the report ${report} named by the directive does not exist`);
  const text = readFileSync(report, 'utf8');
  if (text.trimStart().startsWith('{')) return JSON.parse(text).issues;
  return text.split('\n').filter((l) => /^(?:[-*+]|\d+[.)])\s+/.test(l)).map((l) => l.replace(/^(?:[-*+]|\d+[.)])\s+/, ''));
}

/** The rest of the directive line that starts with `<label>: `. */
function directiveField(directive, label) {
  const line = directive.split('\n').find((l) => l.startsWith(`${label}: `));
  return line?.slice(label.length + 2).trim() || undefined;
}

async function readStdin() {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
