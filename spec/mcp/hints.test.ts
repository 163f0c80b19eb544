/** Fix hints over MCP: the engine's CLI wording (flags, commands) becomes the MCP arguments and tools a client can call. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mcpErrorBody, mcpHint, mcpState } from '../../engine/hosts/mcp/hints.js';
import type { RunState } from '../../engine/run/contract.js';

const Hints = suite('mcp: fix hints in MCP terms');

// The engine's own hints, as it writes them for the command line.
const CASES: Array<[string, string]> = [
  [
    'answer with --as <identity> (library: { as }); the reviewer must be another identity than whoever produced or fixed the artifacts',
    'answer with the "as" argument set to <identity>; the reviewer must be another identity than whoever produced or fixed the artifacts',
  ],
  ['pass a non-empty identity with --as <identity> (library: { as }), or leave it out', 'pass a non-empty identity with the "as" argument set to <identity>, or leave it out'],
  ['the review must come from another identity (answer with --as <reviewer>)', 'the review must come from another identity (answer with the "as" argument set to <reviewer>)'],
  ['answer seq 3 (the pending item), or omit --seq', 'answer seq 3 (the pending item), or omit the "seq" argument'],
  ['list runs with `countersign runs`', 'list runs with the `runs` tool'],
  ['start a new run with `countersign start`', 'start a new run with the `start` tool'],
  ['run `countersign validate <file>` to see every finding', 'call the `validate` tool to see every finding'],
  ["run `countersign validate '/tmp/my flows/w.json'` to see every finding", 'call the `validate` tool to see every finding'],
  ['the run is still waiting; answer it with `countersign step <runId>`', 'the run is still waiting; answer it with the `step` tool'],
  ['use a path inside the workspace, or start the run with a --workspace that contains it', 'use a path inside the workspace, or start the run with a "workspace" argument that contains it'],
];

Hints('each CLI-worded hint the engine gives names the MCP argument or tool instead (--as, --seq, --workspace, countersign runs/start/validate/step)', () => {
  for (const [cli, mcp] of CASES) assert.is(mcpHint(cli), mcp);
});

Hints('a hint without CLI wording is left as it is', () => {
  const plain = 'write the report as {"issues": ["first issue"]}; omit the seq to answer whatever is pending';
  assert.is(mcpHint(plain), plain);
});

Hints('an error body keeps its code and location; only message and fix are reworded', () => {
  const body = mcpErrorBody({ code: 'E_RUN_NOT_FOUND', message: 'no run "x" in the store', fix: 'list runs with `countersign runs`', nodeId: 'n' });
  assert.equal(body, { code: 'E_RUN_NOT_FOUND', message: 'no run "x" in the store', fix: 'list runs with the `runs` tool', nodeId: 'n' });
  assert.equal(mcpErrorBody({ code: 'E_X', message: 'no fix' }), { code: 'E_X', message: 'no fix' });
});

Hints('a run state gets the engine\'s own rejection hint and its failure reworded; schema lines, the author\'s retryMessage and the directive stay exactly as written', () => {
  const selfReview = '"p" produced or fixed the artifacts under review; the review must come from another identity (answer with --as <reviewer>)';
  const schemaLine = '/flag: must be one of "`countersign trace --seq 1`"';
  const retryMessage = 'Answer with the literal text `countersign status --workspace x`, and never omit --seq.';
  const waiting = {
    runId: 'r', seq: 3, status: 'waiting',
    rejected: { code: 'E_SELF_REVIEW', errors: [selfReview] },
    pending: { kind: 'directive', nodeId: 'n', directive: 'Run `countersign runs` with --as <me>.', completionCondition: 'c', inputSchema: {}, attempt: 1, maxRetries: 3, errors: [schemaLine, retryMessage] },
  } as unknown as RunState;
  const out = mcpState(waiting) as Extract<RunState, { status: 'waiting' }>;
  assert.equal(out.rejected!.errors, [selfReview.replace('--as <reviewer>', 'the "as" argument set to <reviewer>')]);
  assert.equal(out.pending.errors, [schemaLine, retryMessage], 'an allowed value quoted from the schema must stay the value the schema allows');
  assert.is((out.pending as { directive: string }).directive, 'Run `countersign runs` with --as <me>.');
  const failed = mcpState({ runId: 'r', seq: 2, status: 'failed', error: { code: 'E_X', message: 'm', nodeId: 'n', fix: 'start a new run with `countersign start`' } });
  assert.is((failed as Extract<RunState, { status: 'failed' }>).error.fix, 'start a new run with the `start` tool');
  const done: RunState = { runId: 'r', seq: 2, status: 'completed', endNodeId: 'e', output: { note: '--as <x>' } };
  assert.is(mcpState(done), done, 'a completed run (its output is data) is untouched');
});

Hints('a failure that carries the agent\'s own $error words (E_AGENT_ERROR) or what a tool threw (E_TOOL_FAILED) keeps its message exactly, in the state and in the journal; only the engine\'s fix is reworded', async () => {
  const said = 'the agent declared failure: cannot: tried --seq 3 and --workspace /x, see `countersign status abc`';
  for (const code of ['E_AGENT_ERROR', 'E_TOOL_FAILED']) {
    const failed = mcpState({ runId: 'r', seq: 2, status: 'failed', error: { code, message: said, nodeId: 'n', fix: 'check it with `countersign status r`' } }) as Extract<RunState, { status: 'failed' }>;
    assert.is(failed.error.message, said);
    assert.is(failed.error.fix, 'check it with the `status` tool');
  }
  const { mcpJournal } = await import('../../engine/hosts/mcp/hints.js');
  const journal = mcpJournal({ runId: 'r', events: [
    { seq: 2, at: 't', type: 'run.failed', nodeId: 'n', code: 'E_AGENT_ERROR', message: said },
    { seq: 2, at: 't', type: 'run.failed', nodeId: 'n', code: 'E_SEQ_X', message: 'omit --seq' },
  ] });
  assert.is(journal.events[0].message, said);
  assert.is(journal.events[1].message, 'omit the "seq" argument', 'the engine\'s own failures are still reworded');
});

Hints('a value an error message quotes is the user\'s and is passed on exactly ("use --seq", a file named "my --workspace flow"); the engine\'s own words around it are reworded', () => {
  const body = mcpErrorBody({ code: 'E_FILE_NOT_FOUND', message: 'no workflow file or workflow name "my --workspace flow"; omit --seq', fix: 'omit --seq' });
  assert.is(body.message, 'no workflow file or workflow name "my --workspace flow"; omit the "seq" argument');
  assert.is(body.fix, 'omit the "seq" argument');
  assert.is(mcpErrorBody({ code: 'E_WORKFLOW_INVALID', message: 'metadata.version "use --seq" does not match' }).message, 'metadata.version "use --seq" does not match');
});

Hints.run();
