/**
 * The test driver. uvu prints no closing line CI can read, so this loads
 * every `*.test.ts` suite under spec/ with uvu's runners deferred, sums
 * their counts and ends with `N passed, N failed`.
 * `node --import tsx spec/run.ts [filter]` runs the suites whose path
 * contains `filter`.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

(globalThis as { UVU_DEFER?: number }).UVU_DEFER = 1;

// Suites make scratch folders under os.tmpdir(); pointing TMPDIR at one folder
// per test run (children inherit it) lets the driver remove them all at the
// end, so repeated runs do not fill /tmp. KEEP_SPEC_TMP=1 keeps it for a look.
const scratch = mkdtempSync(join(tmpdir(), 'countersign-spec-'));
process.env.TMPDIR = scratch;
// The CLI's compiled-validator cache goes there too, not into the user's ~/.cache.
process.env.COUNTERSIGN_CACHE = join(scratch, 'validator-cache');

// SPEC_DIR points the driver at another folder of suites (its own tests use it).
const root = process.env.SPEC_DIR ?? fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2];

function suites(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...suites(full));
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

// A substring of the suite's path under spec/ ("store/memory"); a path typed from the repository ("spec/store/memory") works too.
const wanted = filter?.replace(/^(\.\/)?spec\//, '');
const files = suites(root).filter((f) => !wanted || relative(root, f).includes(wanted));
if (wanted && files.length === 0) {
  // Nothing ran is not a pass: a mistyped filter must not look green.
  console.error(`no suite under spec/ matches "${filter}" (the filter is a substring of a suite's path under spec/, e.g. store/memory)`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const { exec } = await import('uvu');
const queue = (globalThis as unknown as { UVU_QUEUE: unknown[][] });

// A suite that fails to load counts as a failure and is reported; the
// others still run and the closing line is still printed.
let broken = 0;
for (const [i, file] of files.entries()) {
  (globalThis as { UVU_INDEX?: number }).UVU_INDEX = i;
  queue.UVU_QUEUE = queue.UVU_QUEUE ?? [];
  queue.UVU_QUEUE.push([relative(root, file)]);
  try {
    await import(pathToFileURL(file).href);
  } catch (e) {
    broken++;
    console.error(`\n  FAIL  ${relative(root, file)} did not load: ${(e as Error)?.stack ?? String(e)}\n`);
  }
}

// Each queued runner resolves to [errors | true, passed, skipped, total].
let passed = 0;
let failed = 0;
let skipped = 0;
for (const group of queue.UVU_QUEUE) {
  // The suite file's name, read now: uvu takes it off the front of the group as it runs.
  const file = String(group[0]);
  for (let k = 1; k < group.length; k++) {
    const runner = group[k] as () => Promise<[unknown, number, number, number]>;
    group[k] = async () => {
      let res: [unknown, number, number, number];
      try {
        res = await runner();
      } catch (e) {
        // A failing after hook throws out of uvu's runner: counted and shown, and the other suites still run.
        console.error(`\n  FAIL  ${file}: a suite hook failed: ${(e as Error)?.stack ?? String(e)}\n`);
        failed++;
        return [e, 0, 0, 1];
      }
      // A failing before hook ends a suite without running its tests and without a message of uvu's own.
      if (res[0] === true && res[1] < res[3] - res[2]) console.error(`\n  FAIL  ${file}: ${res[3] - res[1]} test(s) did not run (a before hook failed)\n`);
      passed += res[1];
      skipped += res[2];
      failed += res[3] - res[1];
      return res;
    };
  }
}
await exec();
if (process.env.KEEP_SPEC_TMP !== '1') rmSync(scratch, { recursive: true, force: true });
else console.log(`scratch folders kept in ${scratch}`);
failed += broken;
// uvu sets the exit code only for failures it has a message for (not a before hook's): any failure fails the run.
if (failed > 0) process.exitCode = 1;
// CI reads `N passed, N failed` as the last line, exactly; skipped tests are said on the line before, when there are some.
if (skipped) console.log(`${skipped} skipped`);
console.log(`${passed} passed, ${failed} failed`);
