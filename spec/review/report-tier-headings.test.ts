/**
 * A Markdown report whose headings name severity tiers is E_REPORT_FORMAT
 * however the headings are numbered or decorated (issue 3 guarantee 2;
 * seed 003 G15: a flat list, no BLOCKING / MAJOR / MINOR tiers).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readReport } from '../../engine/review/report.js';

const dir = mkdtempSync(join(tmpdir(), 'cs-tier-headings-'));

function outcome(name: string, text: string): string | number {
  const file = join(dir, `${name}.md`);
  writeFileSync(file, text);
  try {
    return readReport(file).issues.length;
  } catch (e) {
    return (e as { code: string }).code;
  }
}

const test = suite('review report: tier headings under numbering and decoration');

test('G15: numbered, roman-numbered, emoji-marked and blockquoted tier headings are E_REPORT_FORMAT', () => {
  const tiered: Record<string, string> = {
    numbered: '## 1. Blocking\n- heading A has no body\n\n## 2. Minor\n- title could be shorter\n',
    roman: '## IV) Minor\n- title could be shorter\n',
    emoji: '## 🔴 Blocking\n- a\n## 🟡 Minor\n- b\n',
    trailingEmoji: '## Blocking 🔴\n- a\n',
    quoted: '> **Blocking**\n\n- a\n',
  };
  for (const [name, text] of Object.entries(tiered)) assert.is(outcome(name, text), 'E_REPORT_FORMAT', name);
});

test('G15: the tier headings reviewers write most — must/should fix, nits, P0–P4, SEV-1, priority 2, suggestions — are E_REPORT_FORMAT too', () => {
  const tiered: Record<string, string> = {
    mustShould: '## Must fix\n- a\n## Should fix\n- b\n## Nits\n- c\n',
    priorities: '## P1\n- a\n## P3\n- b\n',
    p0: '### P0 issues\n- a\n',
    sev: '## SEV-2\n- a\n',
    priority: '## Priority 2\n- a\n',
    nitpicks: '## Nitpicks\n- a\n',
    suggestions: '## Suggestions\n- a\n',
    mustHave: '## Must have\n- a\n',
  };
  for (const [name, text] of Object.entries(tiered)) assert.is(outcome(name, text), 'E_REPORT_FORMAT', name);
});

test('G15: numbered or decorated headings that name no tier are fine, and their items count', () => {
  assert.is(outcome('intro', '## 1. Introduction\n- a\n- b\n'), 2);
  assert.is(outcome('findings', '# 📋 Findings\n- a\n'), 1);
  assert.is(outcome('low-hanging', '## Low-hanging fruit\n- a\n'), 1);
  assert.is(outcome('section', '## Parser\n- a\n## Printer (p. 2)\n- b\n'), 2);
  assert.is(outcome('prose', '## Must fixes be tested?\n- a\n'), 1);
});

test.run();
