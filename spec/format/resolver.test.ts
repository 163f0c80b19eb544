import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolve, runtimeScope, staticScope, type RuntimeData, type Scope } from '../../engine/format/resolver.js';

/** A workflow whose node `review` collides with the registry global `review` (as real Moira flows do). */
const NODE_IDS = new Set(['start', 'review', 'fix-issues', 'end']);
const GLOBALS = new Set(['review', 'issues_count', 'items', 'idx', 'names', 'pick', 'unset_var', 'nothing']);

function runtime(overrides: Partial<RuntimeData> = {}): Scope {
  const data: RuntimeData = {
    vars: {
      review: 'the global review text',
      issues_count: 0,
      items: [{ name: 'a', tags: ['x', 'y'] }, { name: 'b' }],
      idx: 1,
      names: { first: 'Ada' },
      pick: 'first',
      nothing: null,
    },
    nodes: {
      review: { summary: 'looks good', issues: ['one', 'two'] },
      'fix-issues': { changed: true },
    },
    meta: { executionId: 'run-1', workflowId: 'wf', userId: 'local' },
    ...overrides,
  };
  return runtimeScope(data, NODE_IDS, GLOBALS);
}

function statik(): Scope {
  return staticScope({
    globals: GLOBALS,
    nodeFields: new Map([
      ['start', new Set<string>()],
      ['review', new Set(['summary', 'issues'])],
      ['fix-issues', new Set(['changed'])],
      ['end', new Set<string>()],
    ]),
  });
}

const found = (value: unknown) => ({ found: true, value });

const collisions = suite('resolver: a node id equal to a global name');

collisions('a bare name reads the global', () => {
  assert.equal(resolve('review', runtime()), found('the global review text'));
});

collisions('name.field reads the node answer', () => {
  assert.equal(resolve('review.summary', runtime()), found('looks good'));
});

collisions('name.field never falls back to the global, even when the field is absent', () => {
  assert.equal(resolve('review.length', runtime()), found(undefined));
  assert.equal(resolve('review.length', runtime({ nodes: {} })), found(undefined));
});

collisions('an index on a colliding name reads the global list, literal or not (items[0], items.0, items[idx]); a field reads the node; validator and runtime agree', () => {
  const run = runtimeScope({ vars: { items: ['a', 'b', 'c'], idx: 1 }, nodes: { items: { f: 'node field' } }, meta: { executionId: 'r', workflowId: 'w', userId: 'u' } }, new Set(['items']), new Set(['items', 'idx']));
  assert.equal(resolve('items[0]', run), found('a'));
  assert.equal(resolve('items.0', run), found('a'));
  assert.equal(resolve('items[idx]', run), found('b'));
  assert.equal(resolve('items.f', run), found('node field'));
  const stat = staticScope({ globals: new Set(['items', 'idx']), nodeFields: new Map([['items', new Set(['f'])]]) });
  for (const path of ['items[0]', 'items.0', 'items[idx]', 'items[2].name', 'items.f']) assert.equal(resolve(path, stat), found(undefined), path);
  assert.equal(resolve('items.g', stat).found, false);
});

collisions('statically: bare name is the global, name.field must be a declared field', () => {
  assert.equal(resolve('review', statik()), found(undefined));
  assert.equal(resolve('review.summary', statik()), found(undefined));
  assert.equal(resolve('review.sumary', statik()), { found: false, missing: 'review.sumary', candidates: ['summary', 'issues'] });
});

const runtimeSuite = suite('resolver: runtime scope');

runtimeSuite('builtins come from the run meta', () => {
  const scope = runtime();
  assert.equal(resolve('executionId', scope), found('run-1'));
  assert.equal(resolve('workflowId', scope), found('wf'));
  assert.equal(resolve('userId', scope), found('local'));
});

runtimeSuite('a builtin shadows a global of the same name', () => {
  const scope = runtimeScope({ vars: { userId: 'from-vars' }, nodes: {}, meta: { executionId: 'e', workflowId: 'w', userId: 'local' } }, new Set(), new Set(['userId']));
  assert.equal(resolve('userId', scope), found('local'));
});

runtimeSuite('array indexes by bracket and by dot, and .length on arrays and strings', () => {
  const scope = runtime();
  assert.equal(resolve('items[0].name', scope), found('a'));
  assert.equal(resolve('items.1.name', scope), found('b'));
  assert.equal(resolve('items[0].tags[1]', scope), found('y'));
  assert.equal(resolve('items.length', scope), found(2));
  assert.equal(resolve('review.issues.length', scope), found(2));
  assert.equal(resolve('review.summary.length', scope), found(10));
});

runtimeSuite('index refs resolve through the same resolver', () => {
  const scope = runtime();
  assert.equal(resolve('items[idx].name', scope), found('b'));
  assert.equal(resolve('names[pick]', scope), found('Ada'));
  assert.equal(resolve('review.issues[idx]', scope), found('two'));
});

runtimeSuite('an undeclared index ref is not found and names the ref', () => {
  const res = resolve('items[idz]', runtime());
  assert.is(res.found, false);
  assert.is(!res.found && res.missing, 'idz');
  assert.ok(!res.found && res.candidates.includes('idx'));
});

runtimeSuite('a declared but unset global is found with value undefined', () => {
  assert.equal(resolve('unset_var', runtime()), found(undefined));
});

runtimeSuite('walking into undefined or null yields undefined, not an error', () => {
  const scope = runtime();
  assert.equal(resolve('unset_var.a.b', scope), found(undefined));
  assert.equal(resolve('nothing.x', scope), found(undefined));
  assert.equal(resolve('items[9].name', scope), found(undefined));
  assert.equal(resolve('fix-issues.missing.deeper', scope), found(undefined));
});

runtimeSuite('a node that has not answered yet reads as undefined', () => {
  assert.equal(resolve('end.anything', runtime()), found(undefined));
});

runtimeSuite('an undeclared root is not found, with builtins and globals as candidates', () => {
  const res = resolve('issue_count', runtime());
  assert.equal(res.found, false);
  if (res.found) return;
  assert.is(res.missing, 'issue_count');
  assert.ok(res.candidates.includes('issues_count'));
  assert.ok(res.candidates.includes('executionId'));
});

runtimeSuite('a dotted path with an unknown root offers node ids as candidates, without duplicates', () => {
  const res = resolve('reviw.summary', runtime());
  assert.equal(res.found, false);
  if (res.found) return;
  assert.is(res.missing, 'reviw');
  assert.ok(res.candidates.includes('fix-issues'));
  assert.is(res.candidates.filter((c) => c === 'review').length, 1);
});

runtimeSuite('a value present in vars resolves even if not declared (e.g. extra start input)', () => {
  const scope = runtimeScope({ vars: { extra: 5 }, nodes: {}, meta: { executionId: 'e', workflowId: 'w', userId: 'u' } }, new Set(), new Set());
  assert.equal(resolve('extra', scope), found(5));
});

runtimeSuite('prototype properties never leak out of values', () => {
  const scope = runtime();
  assert.equal(resolve('names.constructor', scope), found(undefined));
  assert.equal(resolve('names.__proto__', scope), found(undefined));
  assert.equal(resolve('constructor', scope).found, false);
});

runtimeSuite('a bare node id is not a variable', () => {
  const res = resolve('fix-issues', runtime());
  assert.is(res.found, false);
});

runtimeSuite('segments can be passed pre-parsed', () => {
  assert.equal(resolve(['items', 0, 'name'], runtime()), found('a'));
  assert.equal(resolve(['items', { ref: ['idx'] }, 'name'], runtime()), found('b'));
});

const staticSuite = suite('resolver: static scope');

staticSuite('builtins and declared globals resolve without values', () => {
  const scope = statik();
  assert.equal(resolve('executionId', scope), found(undefined));
  assert.equal(resolve('issues_count', scope), found(undefined));
});

staticSuite('deeper segments are not checked', () => {
  const scope = statik();
  assert.equal(resolve('items.length', scope), found(undefined));
  assert.equal(resolve('review.issues.x.y', scope), found(undefined));
  assert.equal(resolve('items[0].anything', scope), found(undefined));
});

staticSuite('index refs are checked at any depth', () => {
  const scope = statik();
  assert.equal(resolve('items[idx].name', scope), found(undefined));
  const res = resolve('items[0].tags[idz]', scope);
  assert.equal(res.found, false);
  assert.is(!res.found && res.missing, 'idz');
});

staticSuite('an undeclared global is not found', () => {
  const res = resolve('issue_count', statik());
  assert.equal(res.found, false);
  if (res.found) return;
  assert.is(res.missing, 'issue_count');
  assert.equal(res.candidates, ['executionId', 'workflowId', 'userId', ...GLOBALS]);
});

staticSuite('a node without declared fields rejects every field', () => {
  const res = resolve('start.x', statik());
  assert.equal(res, { found: false, missing: 'start.x', candidates: [] });
});

staticSuite('a node field reached through a ref is accepted when the ref resolves', () => {
  assert.equal(resolve('review[pick]', statik()), found(undefined));
  assert.equal(resolve('review[nope]', statik()).found, false);
});

staticSuite('static and runtime agree on which names resolve', () => {
  const paths = ['review', 'review.summary', 'fix-issues.changed', 'items[idx].name', 'executionId', 'issue_count', 'reviw.summary', 'items[idz]', 'fix-issues'];
  const s = statik();
  const r = runtime();
  for (const p of paths) assert.is(resolve(p, s).found, resolve(p, r).found, p);
});

collisions.run();
runtimeSuite.run();
staticSuite.run();
