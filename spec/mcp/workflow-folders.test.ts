/**
 * The default workflow folders are searched on every call, so a
 * `workflows/` folder created while the server runs is found by name: a
 * host starts the server when the project opens, often before the agent
 * writes its first workflow.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { connect, TWO_STEP } from '../fixtures/mcp/client.js';

const Folders = suite('mcp: default workflow folders');

Folders('a workflows/ folder created in the server\'s directory after it started is searched by name: list_workflows lists it and start finds the workflow', async () => {
  const project = tempDir('countersign-mcp-late-folder-');
  const mcp = await connect(['--store', join(project, '.countersign')], { cwd: project });
  try {
    const before = await mcp.call('start', { workflow: 'two-step' });
    assert.is(before.structured.error?.code, 'E_FILE_NOT_FOUND', 'no such workflow yet');
    mkdirSync(join(project, 'workflows'));
    copyFileSync(TWO_STEP, join(project, 'workflows', 'two-step.json'));
    const listed = await mcp.call('list_workflows');
    assert.ok(listed.structured.workflows.some((w: { path: string }) => w.path === join(project, 'workflows', 'two-step.json')), listed.text);
    const started = await mcp.call('start', { workflow: 'two-step' });
    assert.is(started.isError, false, started.text);
    assert.is(started.structured.status, 'waiting');
  } finally {
    await mcp.close();
  }
});

Folders('with --workspace DIR, a DIR/workflows folder created after the server started is searched by name too', async () => {
  const project = tempDir('countersign-mcp-late-workspace-');
  const elsewhere = tempDir('countersign-mcp-late-cwd-');
  const mcp = await connect(['--store', join(project, '.countersign'), '--workspace', project], { cwd: elsewhere });
  try {
    mkdirSync(join(project, 'workflows'));
    copyFileSync(TWO_STEP, join(project, 'workflows', 'two-step.json'));
    const started = await mcp.call('start', { workflow: 'two-step' });
    assert.is(started.isError, false, started.text);
    assert.match(mcp.stderr(), new RegExp(`workflows from [^\\n]*${join(project, 'workflows').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`), 'the startup log names the folder');
  } finally {
    await mcp.close();
  }
});

Folders.run();

const Names = suite('mcp: names offered to start');

Names('an unknown workflow\'s fix names only files that can be started: an answers script or a broken file in the folder is listed by list_workflows, never offered to start', async () => {
  const { writeFileSync } = await import('node:fs');
  const project = tempDir('countersign-mcp-names-');
  mkdirSync(join(project, 'workflows'));
  copyFileSync(TWO_STEP, join(project, 'workflows', 'two-step.json'));
  writeFileSync(join(project, 'workflows', 'answers.json'), JSON.stringify({ write: [{ words: 2 }] }));
  writeFileSync(join(project, 'workflows', 'broken.yaml'), 'nodes: [\n');
  const mcp = await connect(['--store', join(project, '.countersign'), '--workflows', join(project, 'workflows')], { cwd: project });
  try {
    const r = await mcp.call('start', { workflow: 'nope' });
    assert.is(r.structured.error.code, 'E_FILE_NOT_FOUND');
    const fix = r.structured.error.fix as string;
    assert.match(fix, 'two-step');
    assert.not.match(fix, 'answers');
    assert.not.match(fix, 'broken');
    const listed = JSON.stringify((await mcp.call('list_workflows')).structured);
    assert.match(listed, 'answers');
  } finally {
    await mcp.close();
  }
});

Names.run();
