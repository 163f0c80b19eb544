/**
 * The MCP server's cost per answer (issue 6): the round-trip time of one
 * `step` tool call over stdio, as a host sees it — JSON-RPC framing both
 * ways, argument validation, the engine's SQLite transaction and the
 * result text — on the smallest self-looping workflow, so the run never
 * ends. The server is the real `countersign mcp` (the launcher, in its own
 * process), driven by the SDK's Client. Median of many steps after a
 * warm-up.
 *
 * `node --import tsx bench/mcp.ts` prints the rows on its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { selfLoopWorkflow } from './generate.js';
import type { BenchRow } from './review.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const STEPS = 2_000;
const TARGET_MS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface StepResult {
  isError?: boolean;
  structuredContent?: { runId: string; seq: number; status: string };
}

export async function mcpStepBench(steps = STEPS): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-bench-mcp-'));
  const workflow = join(dir, 'self-loop.json');
  writeFileSync(workflow, JSON.stringify(selfLoopWorkflow()));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'engine/cli/countersign.mjs'), 'mcp', '--store', join(dir, 'store'), '--workspace', dir],
    cwd: ROOT,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'countersign-bench', version: '1.0.0' });
  try {
    await client.connect(transport);
    let state = ((await client.callTool({ name: 'start', arguments: { workflow } })) as StepResult).structuredContent!;
    const samples: number[] = [];
    for (let i = 0; i < steps; i++) {
      const args = { runId: state.runId, seq: state.seq, answer: { score: i % 100, last_score: i % 100 } };
      const t = performance.now();
      const r = (await client.callTool({ name: 'step', arguments: args })) as StepResult;
      samples.push(performance.now() - t);
      if (r.isError || r.structuredContent?.status !== 'waiting') throw new Error(`bench run stopped: ${JSON.stringify(r)}`);
      state = r.structuredContent;
    }
    const value = median(samples.slice(Math.floor(steps / 10))); // drop warm-up
    const ratio = value / TARGET_MS;
    return [
      [
        'one MCP step over stdio (round trip), SQLite, small loop',
        `${value.toFixed(2)} ms`,
        `≤ ${TARGET_MS} ms`,
        `${ratio.toFixed(2)}× of target ${ratio <= 1 ? '✓' : '✗'}`,
      ],
    ];
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Only when this file itself is the entry point: bundled into dist/bench.mjs, import.meta.url is the bundle's.
if (import.meta.url.endsWith('/bench/mcp.ts') && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const row of await mcpStepBench()) console.log(row.join('  '));
}
