/**
 * A report path that holds no regular file is judged without being read
 * (issue 3 guarantee 2; seed 003 G8): a FIFO at the report path would block
 * a read forever, freezing the engine and the CLI or MCP server around it.
 * The answer is rejected with E_REPORT_MISSING naming what is there.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT, tempDir } from '../helpers/cli.js';

/** Runs the engine in a child process, so a blocked read fails the test instead of hanging the suite. */
function inChild(script: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const test = suite('review: a report path that is not a regular file');

test('G8, G17: a FIFO at the report path is E_REPORT_MISSING ("a FIFO is there, not a file") at once; the engine does not block', () => {
  if (process.platform === 'win32') return;
  const ws = tempDir('countersign-fifo-');
  const engine = join(ROOT, 'engine/index.ts');
  const loop = join(ROOT, 'spec/fixtures/review/loop.ts');
  const r = inChild(`
    import { execFileSync } from 'node:child_process';
    import { writeFileSync } from 'node:fs';
    import { join } from 'node:path';
    import { createEngine, createMemoryStore } from ${JSON.stringify(engine)};
    import { reviewLoop, ARTIFACT, REPORT } from ${JSON.stringify(loop)};
    const ws = ${JSON.stringify(ws)};
    const engine = createEngine({ store: createMemoryStore() });
    const { runId } = await engine.start(reviewLoop(), { workspace: ws });
    writeFileSync(join(ws, ARTIFACT), '# A\\nbody\\n');
    await engine.submit(runId, {}, { as: 'author' });
    execFileSync('mkfifo', [join(ws, REPORT)]);
    const state = await engine.submit(runId, { issues_count: 0 }, { as: 'checker' });
    process.stdout.write(JSON.stringify({ status: state.status, rejected: state.rejected }));
  `);
  assert.is(r.status, 0, `the child did not finish (blocked on the FIFO?): ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { status: string; rejected?: { code: string; errors: string[] } };
  assert.is(out.status, 'waiting');
  assert.is(out.rejected?.code, 'E_REPORT_MISSING');
  assert.match(out.rejected!.errors.join(' '), 'a FIFO is there, not a file');
});

test.run();
