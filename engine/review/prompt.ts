/**
 * The review prompt, from a fixed template (seed 003 G28–G31, G34). It is
 * built from the review node's own fields only — role, artifact paths,
 * criteria, context paths, report path — so nothing from the run's context
 * can reach the reviewer: no producer narrative, no interpretation of
 * quality, no hints about the expected result (G30, G31). The same input
 * always gives the same text.
 */
import { reportFormatByExtension } from './report.js';

export interface ReviewPromptInput {
  /** The reviewing role label, e.g. "plan reviewer". */
  reviewer: string;
  /** Absolute artifact paths. */
  artifacts: string[];
  criteria: string[];
  /** Absolute paths the reviewer may study. */
  context: string[];
  /** Absolute path of the report file. */
  report: string;
}

export function reviewPrompt(p: ReviewPromptInput): string {
  const sections = [
    `YOU ARE ${p.reviewer}. Your assessment determines if we proceed.`,
    `READ every artifact directly:\n${bullets(p.artifacts)}`,
    `CHECK each artifact against every success criterion:\n${bullets(p.criteria)}`,
    'VERIFY by reading the actual files; do not rely on any summary.',
    p.context.length > 0 ? `Context paths you may study:\n${bullets(p.context)}` : 'Context paths: none',
    'RETURN every issue found as a flat list — every issue is mandatory; no severity tiers.',
    `Report contract:\n${bullets(contract(p.report))}`,
  ];
  return `${sections.join('\n\n')}\n`;
}

function contract(report: string): string[] {
  const write =
    reportFormatByExtension(report) === 'markdown'
      ? `Overwrite the report file ${report} with Markdown: one top-level list item ("- …") per issue, holding every reproducible finding — no sub-items, no severity headings; when there are none, still write the file, empty (any text without list items, headings included, is refused): a missing file is no report.`
      : `Overwrite the report file ${report} with JSON {"issues": ["…"]}: one string per issue, holding every reproducible finding; write {"issues": []} when there are none.`;
  return [
    write,
    'Do not modify the artifacts: diagnose, never fix.',
    'Answer only {"issues_count": N}, where N equals the number of issues in the report file.',
  ];
}

/** One "- " bullet per item; a multi-line item keeps its lines under its bullet. */
function bullets(items: readonly string[]): string {
  if (items.length === 0) return '- none given';
  return items.map((item) => `- ${item.replace(/\r?\n/g, '\n  ')}`).join('\n');
}
