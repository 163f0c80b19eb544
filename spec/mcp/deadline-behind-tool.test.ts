/**
 * A fix answered in time, then refused behind tool nodes (the review found
 * the artifacts unchanged), while the tools ran past the fix's deadline: the
 * deadline fires instead of asking again (review r91). Over MCP the step
 * text must say the answer was not taken and why, or the model believes
 * its fix moved the run on.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { connect, MCP_FIXTURES } from '../fixtures/mcp/client.js';

const Refused = suite('mcp: a fix refused behind tool nodes whose deadline fired meanwhile');

/** Runs `workflow` to its fix, answers it with the artifact unchanged, and returns that step's result. */
async function unchangedFixThroughSlowTool(workflow: string) {
  const ws = tempDir('countersign-mcp-deadline-tool-');
  cpSync(join(MCP_FIXTURES, 'deadline-behind-tool'), ws, { recursive: true });
  writeFileSync(join(ws, 'notes.md'), '# A\n');
  const mcp = await connect(['--store', join(ws, 'store'), '--workspace', ws, '--allow-tool-modules'], { cwd: ws });
  try {
    let s = await mcp.call('start', { workflow: join(ws, workflow), as: 'author' });
    assert.is(s.isError, false, s.text);
    const runId = s.structured.runId;
    s = await mcp.call('step', { runId, seq: s.structured.seq, as: 'author', answer: {} });
    writeFileSync(join(ws, 'review.json'), JSON.stringify({ issues: ['heading A has no body'] }));
    s = await mcp.call('step', { runId, seq: s.structured.seq, as: 'rev', answer: { issues_count: 1 } });
    assert.is(s.structured.pending?.nodeId, 'fix', s.text);
    const fixSeq = s.structured.seq;
    return { fixSeq, fixed: await mcp.call('step', { runId, seq: fixSeq, as: 'author', answer: {} }) };
  } finally {
    await mcp.close();
  }
}

Refused('timeout route to an end node: the text says the answer was NOT TAKEN, why it was refused, that the deadline fired, and where the run went', async () => {
  const { fixSeq, fixed } = await unchangedFixThroughSlowTool('timeout-route.json');
  assert.is(fixed.structured.late?.code, 'E_TIMEOUT', JSON.stringify(fixed.structured));
  assert.match(fixed.text, /^Your answer was NOT TAKEN/);
  assert.ok(fixed.text.includes(`node "fix" (seq ${fixSeq}`), fixed.text);
  assert.match(fixed.text, /refused behind tool nodes/);
  assert.match(fixed.text, /E_UNCHANGED_ARTIFACT/);
  assert.match(fixed.text, /DEADLINE/);
  assert.match(fixed.text, /took node "fix"'s timeout route to "late"/);
  assert.match(fixed.text, /completed at end node "late"/);
});

Refused('timeout route to a waiting directive: the text says the answer was NOT TAKEN before giving the item the run waits for now', async () => {
  const { fixed } = await unchangedFixThroughSlowTool('timeout-route-waits.json');
  assert.match(fixed.text, /^Your answer was NOT TAKEN/);
  assert.match(fixed.text, /E_UNCHANGED_ARTIFACT/);
  assert.match(fixed.text, /took node "fix"'s timeout route to "late"/);
  assert.match(fixed.text, /waiting at node "late"/);
  assert.ok(fixed.text.indexOf('NOT TAKEN') < fixed.text.indexOf('waiting at node "late"'), fixed.text);
});

Refused('no timeout route: the text says the answer was NOT TAKEN and the run failed with E_TIMEOUT', async () => {
  const { fixed } = await unchangedFixThroughSlowTool('no-timeout-route.json');
  assert.is(fixed.structured.status, 'failed', fixed.text);
  assert.match(fixed.text, /^Your answer was NOT TAKEN/);
  assert.match(fixed.text, /E_UNCHANGED_ARTIFACT/);
  assert.match(fixed.text, /Node "fix" has no timeout route, so the run failed with E_TIMEOUT/);
});

Refused.run();
