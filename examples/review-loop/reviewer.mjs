#!/usr/bin/env node
/**
 * The review-loop example's reviewer: a deterministic checker run by the
 * `exec:` adapter (`--reviewer "exec:node ../reviewer.mjs"`). It reads the
 * review request on stdin, reads every artifact and context path itself,
 * checks each criterion it was given, writes EVERY finding to the report
 * file as {"issues": [...]} and prints only {"issues_count": N}. It opens
 * the artifacts read-only: a reviewer diagnoses, never fixes.
 *
 * It knows how to check exactly the criteria in CHECKS, for Markdown
 * artifacts documenting JavaScript modules. Given any other criterion or
 * artifact it declares failure ({"$error": ...}) instead of passing it
 * unchecked.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { moduleFiles, readExports } from './js-exports.mjs';
import { bodyText, headingSignature, parseSections } from './markdown-sections.mjs';

const PLACEHOLDER = /\b(TODO|FIXME|TBD)\b/;

/** Criterion text (as written in workflows/review-fix-loop.json) → its check. */
const CHECKS = new Map([
  ['Every public name in the context paths is covered by the artifact, under its exact name', checkCoverage],
  ['No errors: every name and signature the artifact gives matches its definition in the context paths', checkSignatures],
  ['No placeholder text (TODO, FIXME, TBD) and no section without body text', checkCompleteness],
]);

const request = JSON.parse(await readStdin());
const answer = review(request);
process.stdout.write(`${JSON.stringify(answer)}\n`);

function review(req) {
  if (req.kind !== 'review') return { $error: `reviewer.mjs only answers review requests, got kind "${req.kind}" for node "${req.nodeId}"` };
  const unknown = req.criteria.filter((c) => !CHECKS.has(c));
  if (unknown.length > 0) {
    return { $error: `reviewer.mjs cannot check these criteria: ${unknown.map((c) => JSON.stringify(c)).join(', ')}; it checks only: ${[...CHECKS.keys()].map((c) => JSON.stringify(c)).join(', ')}` };
  }
  const documents = [];
  for (const artifact of req.artifacts) {
    const files = markdownFiles(artifact);
    if (typeof files === 'string') return { $error: files };
    documents.push(...files);
  }
  const modules = moduleFiles(req.context).map((file) => ({ file: shown(file), exports: readExports(file) }));
  const issues = [];
  for (const doc of documents) {
    for (const criterion of req.criteria) issues.push(...CHECKS.get(criterion)(doc, modules));
  }
  writeFileSync(req.report, `${JSON.stringify({ issues }, null, 2)}\n`);
  process.stderr.write(`  reviewer: review ${req.iteration} of ${documents.map((d) => d.name).join(', ')}: ${issues.length} issue(s) → ${shown(req.report)}\n`);
  return { issues_count: issues.length };
}

/** Every export has a section whose heading names it (C1). */
function checkCoverage(doc, modules) {
  const titled = new Set(doc.sections.map((s) => headingSignature(s.title)?.name ?? s.title.split(/\s/)[0]));
  const issues = [];
  for (const mod of modules) {
    for (const exp of mod.exports) {
      if (!titled.has(exp.name)) issues.push(`${doc.name}: no section for ${exp.signature}, which ${mod.file} exports`);
    }
  }
  return issues;
}

/** Every `name(params)` heading names an export and lists its parameters in order (C2). */
function checkSignatures(doc, modules) {
  const exported = new Map();
  for (const mod of modules) for (const exp of mod.exports) if (!exported.has(exp.name)) exported.set(exp.name, { ...exp, file: mod.file });
  const issues = [];
  for (const section of doc.sections) {
    const sig = headingSignature(section.title);
    if (!sig) continue;
    const exp = exported.get(sig.name);
    if (!exp) {
      issues.push(`${doc.name}:${section.line}: the heading "${section.title}" documents ${sig.name}(), which no module in the context paths exports`);
    } else if (exp.kind !== 'function' || sig.params.join(',') !== exp.params.join(',')) {
      issues.push(`${doc.name}:${section.line}: the heading "${section.title}" does not match the exported signature ${exp.signature} in ${exp.file}`);
    }
  }
  return issues;
}

/** No placeholder words anywhere and no heading without text under it (C3). */
function checkCompleteness(doc) {
  const issues = [];
  const sectionAt = (i) => doc.sections.findLast((s) => s.line - 1 <= i);
  doc.lines.forEach((line, i) => {
    const m = PLACEHOLDER.exec(line);
    if (!m) return;
    const section = sectionAt(i);
    issues.push(`${doc.name}:${i + 1}: placeholder "${m[1]}" in the section "${section ? section.title : '(before the first heading)'}"`);
  });
  for (const section of doc.sections) {
    if (bodyText(doc.lines, section).length === 0) issues.push(`${doc.name}:${section.line}: the section "${section.title}" has no body text`);
  }
  return issues;
}

/** The Markdown documents under an artifact path, or why it cannot be reviewed here. */
function markdownFiles(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return `the artifact ${shown(path)} does not exist, so there is nothing to review`;
  }
  const paths = stats.isDirectory() ? walk(path) : [path];
  // A file it cannot check must not pass as checked: in a directory too,
  // and a directory with no document at all is nothing reviewed, not 0 issues.
  const notMarkdown = paths.filter((p) => extname(p) !== '.md');
  if (!stats.isDirectory() && notMarkdown.length > 0) return `reviewer.mjs checks Markdown documents only, and ${shown(path)} is not one`;
  if (notMarkdown.length > 0) return `reviewer.mjs checks Markdown documents only, and the artifact directory ${shown(path)} holds other files it cannot check: ${notMarkdown.map(shown).join(', ')}`;
  if (paths.length === 0) return `the artifact directory ${shown(path)} holds no Markdown document, so there is nothing to review`;
  return paths.map((file) => ({ name: shown(file), ...parseSections(readFileSync(file, 'utf8')) }));
}

function walk(dir) {
  return readdirSync(dir).sort().filter((name) => name !== '.git' && name !== '.countersign').flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** Paths in findings read relative to the workspace (the process runs there). */
function shown(path) {
  return relative(process.cwd(), path) || '.';
}

async function readStdin() {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
