import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CountersignError } from '../../engine/errors.js';
import { resolve, runtimeScope, type Resolution } from '../../engine/format/resolver.js';
import type { Segment } from '../../engine/format/path.js';
import { isTruthy, renderTemplate, templateVariables } from '../../engine/format/template.js';
import { analyseTemplate } from '../../engine/format/template-parse.js';
import { thrownWithCode } from '../helpers/errors.js';

const VARS: Record<string, unknown> = {
  name: 'Ada',
  review_file_path: 'reviews/plan.md',
  count: 3,
  zero: 0,
  flag: true,
  status: 'open',
  other: 'open',
  items: [{ n: 'a', ok: true }, { n: 'b', ok: 'no' }],
  grid: [['x', 'y'], ['z']],
  idx: 1,
  obj: { k: [1, 'two'], s: 'q' },
  list: [1, 2],
  same_list: [1, 2],
  other_list: [2, 1],
  same_obj: { k: [1, 'two'], s: 'q' },
  empty_list: [],
  nothing: null,
  injected: 'hi {{name}} \\{{name}}',
};

const scope = runtimeScope(
  { vars: VARS, nodes: { review: { summary: 'fine', issues: ['i1'] } }, meta: { executionId: 'run-7', workflowId: 'wf', userId: 'local' } },
  new Set(['review']),
  new Set([...Object.keys(VARS), 'declared_unset']),
);
const lookup = (path: Segment[]): Resolution => resolve(path, scope);
const render = (text: string): string => renderTemplate(text, lookup).text;

function syntaxError(text: string): CountersignError {
  return thrownWithCode(() => templateVariables(text), 'E_TEMPLATE_SYNTAX');
}

const values = suite('template: value tags');

values('G23: {{review_file_path}} interpolates into the directive', () => {
  assert.is(render('3) Save review result to {{review_file_path}}\n\n'), '3) Save review result to reviews/plan.md\n\n');
});

values('paths, node-local fields, indexes, index refs and builtins', () => {
  assert.is(render('{{review.summary}}|{{obj.k[1]}}|{{obj.k.0}}|{{items[idx].n}}|{{executionId}}|{{workflowId}}'), 'fine|two|1|b|run-7|wf');
});

values('whitespace inside the braces is allowed', () => {
  assert.is(render('{{ name }}/{{\tcount\n}}'), 'Ada/3');
});

values('objects and arrays render as compact JSON; numbers and booleans via String', () => {
  assert.is(render('{{obj}} {{list}} {{count}} {{flag}} {{zero}}'), '{"k":[1,"two"],"s":"q"} [1,2] 3 true 0');
});

values('unset, null and unresolved values render empty and are listed once in unset', () => {
  const out = renderTemplate('[{{declared_unset}}][{{nothing}}][{{missing_name}}][{{declared_unset}}]', lookup);
  assert.is(out.text, '[][][][]');
  assert.equal(out.unset, ['declared_unset', 'nothing', 'missing_name']);
});

values('a template without tags is returned as is with nothing unset', () => {
  assert.equal(renderTemplate('plain text } { }}', lookup), { text: 'plain text } { }}', unset: [] });
  assert.equal(renderTemplate('', lookup), { text: '', unset: [] });
});

values('blocks nest at most 64 levels: deeper is E_TEMPLATE_SYNTAX at the tag, never a stack overflow (validate and start alike)', () => {
  const nested = (n: number) => '{{#if flag}}'.repeat(n) + 'x' + '{{/if}}'.repeat(n);
  assert.is(render(nested(64)), 'x');
  for (const n of [65, 20_000]) {
    assert.throws(() => render(nested(n)), (e: { code?: string; message?: string }) => e.code === 'E_TEMPLATE_SYNTAX' && /nests blocks deeper than 64 levels/.test(e.message ?? ''));
  }
});

const escaping = suite('template: escaping and injection');

escaping('\\{{ renders a literal {{ and consumes the backslash', () => {
  assert.is(render('a \\{{name}} b'), 'a {{name}} b');
  assert.is(render('\\{{#if x}}'), '{{#if x}}');
});

escaping('as in Moira, a backslash right before {{ makes the braces literal and is dropped, and backslashes before it stay: \\\\{{x}} renders \\{{x}}', () => {
  assert.is(render('C:\\work\\\\{{name}}'), 'C:\\work\\{{name}}');
  assert.is(render('three \\\\\\{{name}}'), 'three \\\\{{name}}');
  assert.is(render('a\\b {{name}}'), 'a\\b Ada', 'a backslash elsewhere is text');
  assert.equal(templateVariables('C:\\work\\\\{{nmae}} {{name}}'), [{ path: 'name', offset: 20 }], 'an escaped tag is no variable to check');
});

escaping('an escaped tag is not a variable', () => {
  assert.equal(templateVariables('\\{{name}} {{count}}'), [{ path: 'count', offset: 12 }]);
});

escaping('substituted values are never re-expanded', () => {
  assert.is(render('<{{injected}}>'), '<hi {{name}} \\{{name}}>');
});

escaping('a value holding block syntax stays inert inside loops and conditionals', () => {
  assert.is(render('{{#each list}}{{#if flag}}{{injected}}{{/if}}{{/each}}'), 'hi {{name}} \\{{name}}hi {{name}} \\{{name}}');
});

const blocks = suite('template: blocks');

blocks('#if with else', () => {
  assert.is(render('{{#if flag}}yes{{else}}no{{/if}}'), 'yes');
  assert.is(render('{{#if zero}}yes{{else}}no{{/if}}'), 'no');
  assert.is(render('{{#if missing_name}}yes{{/if}}'), '');
});

blocks('#unless with and without else', () => {
  assert.is(render('{{#unless zero}}none{{/unless}}'), 'none');
  assert.is(render('{{#unless count}}none{{else}}{{count}} left{{/unless}}'), '3 left');
});

blocks('a quoted argument may hold "}}": the tag ends after the string; an unclosed quote is said as such', () => {
  assert.is(render("{{#eq status '}}'}}yes{{else}}no{{/eq}}"), 'no');
  assert.is(render('{{#neq status "a}}b"}}differs{{/neq}}'), 'differs');
  assert.is(render("{{#eq status 'T{{x}}'}}same{{else}}other{{/eq}}"), 'other', 'a string may hold "{{" too');
  assert.is(render("{{#eq status 'open'}}O{{/eq}} — it's {{name}}"), 'O — it\'s Ada', 'an apostrophe in the prose after a tag is prose');
  assert.throws(() => render("{{#eq status 'open}}O{{/eq}} it's"), (e: { code?: string; message?: string }) => e.code === 'E_TEMPLATE_SYNTAX' && /unterminated string/.test(e.message ?? ''));
});

blocks('#eq and #neq against a quoted string compare the value\'s text, as Moira does (a number, a boolean; unset or null is \'\'); against a number, boolean or variable, strictly', () => {
  assert.is(render("{{#eq status 'open'}}O{{else}}C{{/eq}}"), 'O');
  assert.is(render('{{#eq status "closed"}}C{{else}}not closed{{/eq}}'), 'not closed');
  assert.is(render('{{#eq count 3}}three{{/eq}}'), 'three');
  assert.is(render("{{#eq count '3'}}as text{{else}}strict{{/eq}}"), 'as text');
  assert.is(render("{{#eq flag 'true'}}T{{else}}F{{/eq}}"), 'T');
  assert.is(render("{{#neq count '3'}}differs{{else}}same text{{/neq}}"), 'same text');
  assert.is(render("{{#eq nothing ''}}unset is empty{{/eq}}"), 'unset is empty');
  assert.is(render("{{#eq count 3.0}}number{{/eq}}{{#eq count '3.0'}}text 3.0{{else}}text 3{{/eq}}"), 'numbertext 3');
  assert.is(render('{{#eq flag true}}T{{/eq}}'), 'T');
  assert.is(render('{{#eq status other}}same{{/eq}}'), 'same');
  assert.is(render("{{#neq status 'open'}}changed{{else}}unchanged{{/neq}}"), 'unchanged');
  assert.is(render('{{#neq zero 1}}differs{{/neq}}'), 'differs');
  assert.is(render("{{#eq status 'a b'}}x{{else}}quoted spaces ok{{/eq}}"), 'quoted spaces ok');
});

blocks('#eq and #neq compare arrays and objects by content, as the eq condition does: equal lists are equal wherever they come from', () => {
  assert.is(render('{{#eq list same_list}}SAME{{else}}DIFFERENT{{/eq}}'), 'SAME');
  assert.is(render('{{#eq obj same_obj}}SAME{{else}}DIFFERENT{{/eq}}'), 'SAME');
  assert.is(render('{{#eq list other_list}}SAME{{else}}DIFFERENT{{/eq}}'), 'DIFFERENT', 'order counts');
  assert.is(render('{{#neq list same_list}}DIFFERENT{{else}}SAME{{/neq}}'), 'SAME');
  assert.is(render('{{#eq list obj}}SAME{{else}}DIFFERENT{{/eq}}'), 'DIFFERENT');
});

blocks('#each with this, this.f and @index', () => {
  assert.is(render('{{#each items}}{{@index}}={{this.n}}{{#if this.ok}}+{{/if}};{{/each}}'), '0=a+;1=b;');
  assert.is(render('{{#each list}}[{{this}}]{{/each}}'), '[1][2]');
});

blocks('nested #each: this is the innermost item, outer variables stay visible', () => {
  assert.is(render('{{#each grid}}<{{#each this}}{{@index}}{{this}}{{name}}{{/each}}>{{/each}}'), '<0xAda1yAda><0zAda>');
});

blocks('#each over an empty list or a non-list renders the else branch; a set value that is no list is noted (never silently an empty list)', () => {
  assert.is(render('{{#each empty_list}}x{{else}}none{{/each}}'), 'none');
  assert.is(render('{{#each name}}x{{/each}}'), '');
  assert.is(render('{{#each items}}{{this.n}}{{else}}none{{/each}}'), 'ab');
  assert.equal(renderTemplate('{{#each name}}x{{/each}}', lookup).unset, ['name (not a list)']);
  assert.equal(renderTemplate('{{#each empty_list}}x{{/each}}', lookup).unset, [], 'an empty list is a list');
  assert.equal(renderTemplate('{{#each nothing}}x{{else}}none{{/each}}', () => ({ found: true, value: undefined })).unset, ['nothing'], 'an unset list is noted as any unset variable');
});

blocks('#each over null is noted like an unset list (null counts as unset); a loop item that renders empty is noted by its place in the list (items[1].x), never as "this"', () => {
  const nullList = renderTemplate('{{#each l}}x{{else}}none{{/each}}', () => ({ found: true, value: null }));
  assert.equal(nullList, { text: 'none', unset: ['l'] });
  const values: Record<string, unknown> = { l: [null, { y: 1 }], grid: [[1, null]] };
  const look = (path: readonly unknown[]) => ({ found: true, value: values[path[0] as string] });
  assert.equal(renderTemplate('{{#each l}}[{{this}}|{{this.x}}]{{/each}}', look as never), { text: '[|][{"y":1}|]', unset: ['l[0]', 'l[0].x', 'l[1].x'] });
  assert.equal(renderTemplate('{{#each grid}}{{#each this}}<{{this}}>{{/each}}{{/each}}', look as never).unset, ['grid[0][1]']);
});

blocks('index refs may name the loop index', () => {
  assert.is(render('{{#each list}}{{items[@index].n}}{{/each}}'), 'ab');
});

blocks('this outside #each is an ordinary (unresolved) variable', () => {
  assert.equal(renderTemplate('[{{this}}]', lookup), { text: '[]', unset: ['this'] });
});

const truthiness = suite('template: truthiness table');

truthiness('false for undefined, null, false, 0, NaN, "", "no", "false", [] and {}', () => {
  for (const v of [undefined, null, false, 0, Number.NaN, '', 'no', 'false', [], {}]) assert.is(isTruthy(v), false, JSON.stringify(v));
});

truthiness('true for everything else', () => {
  for (const v of [true, 1, -1, 'yes', 'No', '0', ' ', [0], { a: undefined }]) assert.is(isTruthy(v), true, JSON.stringify(v));
});

truthiness('#if uses the table', () => {
  const s = runtimeScope({ vars: { a: 'no', b: 'false', c: {}, d: [], e: '0' }, nodes: {}, meta: { executionId: '', workflowId: '', userId: '' } }, new Set(), new Set());
  const out = renderTemplate('{{#if a}}a{{/if}}{{#if b}}b{{/if}}{{#if c}}c{{/if}}{{#if d}}d{{/if}}{{#if e}}e{{/if}}', (p) => resolve(p, s));
  assert.is(out.text, 'e');
});

const variables = suite('template: free variables');

variables('values, block arguments and the second #eq operand, with offsets', () => {
  const text = "{{a}} {{#if b.c}}{{#eq d 'x'}}{{/eq}}{{#neq e f}}{{/neq}}{{/if}}";
  assert.equal(templateVariables(text), [
    { path: 'a', offset: 2 },
    { path: 'b.c', offset: 12 },
    { path: 'd', offset: 23 },
    { path: 'e', offset: 44 },
    { path: 'f', offset: 46 },
  ]);
});

variables('index refs inside brackets are listed too', () => {
  assert.equal(templateVariables('{{items[idx].n}}'), [
    { path: 'items[idx].n', offset: 2 },
    { path: 'idx', offset: 8 },
  ]);
  assert.equal(templateVariables('{{ m[a[b]] }}'), [
    { path: 'm[a[b]]', offset: 3 },
    { path: 'a[b]', offset: 5 },
    { path: 'b', offset: 7 },
  ]);
});

variables('this, this.f and @index inside #each are bound, not free; the #each argument is free, marked as read as a list', () => {
  assert.equal(templateVariables('{{#each xs}}{{this}}{{this.f}}{{@index}}{{y}}{{/each}}'), [
    { path: 'xs', offset: 8, list: true },
    { path: 'y', offset: 42, inEach: true },
  ]);
});

variables('a ref inside a loop-bound path is still free', () => {
  assert.equal(templateVariables('{{#each xs}}{{this[k]}}{{/each}}'), [
    { path: 'xs', offset: 8, list: true },
    { path: 'k', offset: 19, inEach: true },
  ]);
});

variables('r76: as Moira reads a loop, a bare name the current item has is its field ({{title}}, {{#if done}}), before a variable of that name; one it lacks falls back to the variable', () => {
  const items = [{ title: 'A', done: true }, { title: 'B', done: false }];
  const look = (segments: readonly unknown[]) => (segments[0] === 'tasks' ? { found: true as const, value: items } : segments[0] === 'title' ? { found: true as const, value: 'GLOBAL' } : segments[0] === 'other' ? { found: true as const, value: 'O' } : { found: false as const, missing: String(segments[0]), candidates: [] });
  assert.is(renderTemplate('{{#each tasks}}[{{title}} {{#if done}}x{{/if}} {{other}}]{{/each}}', look as never).text, '[A x O][B  O]');
});

variables('this after the #each closes, or in its else branch, is free again', () => {
  assert.equal(templateVariables('{{#each xs}}{{else}}{{this}}{{/each}}{{@index}}'), [
    { path: 'xs', offset: 8, list: true },
    { path: 'this', offset: 22 },
    { path: '@index', offset: 39 },
  ]);
});

variables('the result is cached per template string', () => {
  const t = '{{cached_a}}{{cached_b}}';
  assert.is(templateVariables(t), templateVariables(t));
});

const syntax = suite('template: malformed templates are E_TEMPLATE_SYNTAX with the offset');

syntax('an unclosed block', () => {
  const e = syntaxError('ok {{#if x}}never closed');
  assert.is(e.message, 'unclosed "{{#if x}}" at offset 3');
  assert.equal(e.data, { offset: 3 });
  assert.is(e.fix, 'close the block with {{/if}}');
});

syntax('G: a path into @index (@index.x, @index[0], items[@index.x]) can never resolve: it is E_TEMPLATE_SYNTAX at the path, not a variable that renders empty', () => {
  for (const [text, offset] of [['{{#each l}}{{@index.x}}{{/each}}', 13], ['{{#each l}}{{@index[0]}}{{/each}}', 13], ['{{#each l}}{{a[@index.x]}}{{/each}}', 13], ['{{@index.length}}', 2]] as const) {
    const e = syntaxError(text);
    assert.match(e.message, 'but @index is the loop item\'s position, a number: it has no fields or items', text);
    assert.equal(e.data, { offset }, text);
    assert.match(e.fix!, '{{@index}}');
  }
  assert.not.throws(() => templateVariables('{{#each l}}{{@index}}{{a[@index].n}}{{/each}}'));
});

syntax('a mismatched closing tag names both tags', () => {
  const e = syntaxError('{{#if x}}a{{/eq}}');
  assert.is(e.message, '"{{/eq}}" at offset 10 does not match "{{#if x}}" opened at offset 0');
  assert.equal(e.data, { offset: 10 });
});

syntax('a misspelt closing tag is one finding, at the closer: the block it meant to close is not also unclosed', () => {
  for (const [text, offset] of [['{{#if n}}x{{/If}}', 10], ['{{#if n}} z {{/unless}}', 12], ['{{#each items}}{{#if n}}x{{/iff}}{{/each}}', 25]] as const) {
    const { errors } = analyseTemplate(text);
    assert.is(errors.length, 1, `${text}: ${errors.map((e) => e.message).join(' | ')}`);
    assert.equal(errors[0].data, { offset }, text);
    assert.match(errors[0].message, 'does not match "{{#if n}}"', text);
    assert.match(errors[0].fix!, '{{/if}}', text);
  }
});

syntax('a closing tag with nothing open', () => {
  assert.is(syntaxError('a {{/each}}').message, '"{{/each}}" at offset 2 closes no open block');
});

syntax('an unknown block helper lists the known ones', () => {
  const e = syntaxError('{{#with x}}{{/with}}');
  assert.is(e.message, 'unknown block helper "#with" at offset 0');
  assert.ok(e.fix?.includes('#each'));
});

syntax('else outside a block, twice, or as else-if', () => {
  assert.is(syntaxError('{{else}}').message, '"{{else}}" at offset 0 is outside any block');
  assert.is(syntaxError('{{#if a}}{{else}}{{else}}{{/if}}').message, 'second "{{else}}" at offset 17 in "{{#if a}}"');
  assert.is(syntaxError('{{#if a}}{{else if b}}{{/if}}').message, '"{{else if b}}" at offset 9 is not supported');
});

syntax('block arguments: missing, literal, or too many', () => {
  assert.is(syntaxError('{{#if}}{{/if}}').message, '"{{#if}}" at offset 0 needs a variable');
  assert.is(syntaxError("{{#if 'x'}}{{/if}}").message, `"{{#if 'x'}}" at offset 6 needs a variable, not a literal`);
  assert.is(syntaxError('{{#each a b}}{{/each}}').message, '"{{#each a b}}" has an unexpected argument at offset 10');
  assert.is(syntaxError('{{#eq a}}{{/eq}}').message, '"{{#eq a}}" at offset 0 needs a value to compare with');
  assert.is(syntaxError("{{#eq a 'open}}{{/eq}}").message, `unterminated string in "{{#eq a 'open}}" at offset 8`);
});

syntax('an unclosed {{ and an empty tag', () => {
  assert.is(syntaxError('text {{name').message, 'unclosed "{{" at offset 5');
  assert.is(syntaxError('a {{ }} b').message, 'empty tag "{{ }}" at offset 2', 'said as written');
  assert.is(syntaxError('a {{}} b').message, 'empty tag "{{}}" at offset 2');
});

syntax('a malformed path reports the offset inside the template', () => {
  const e = syntaxError('Hello {{a..b}}');
  assert.is(e.message, 'malformed variable path "a..b": expected a name or an index after "." but found "." at offset 2 of the path (offset 10 of the template)');
  assert.equal(e.data, { offset: 10 });
});

syntax('a malformed path says its fault by an offset the quoted path has, and the template offset as such (r108)', () => {
  const nested = syntaxError('F={{items[ask.x]}} G={{items[ items[2] ]}}');
  assert.match(nested.message, /^malformed variable path "items\[ items\[2\] \]": expected a variable name but found " " at offset 6 of the path \(offset 29 of the template\)$/);
  assert.equal(nested.data, { offset: 29 });
  // At the end of the path the offset would only repeat its length: the template offset of the path is given instead.
  const open = syntaxError('A={{items[idx}}');
  assert.is(open.message, 'malformed variable path "items[idx": expected "]" but found the end of the path (the path starts at offset 4 of the template)');
  assert.equal(open.data, { offset: 13 });
});

syntax('renderTemplate throws the same error', () => {
  assert.throws(() => renderTemplate('{{#if x}}', lookup), (e: unknown) => e instanceof CountersignError && e.code === 'E_TEMPLATE_SYNTAX');
});

values.run();
escaping.run();
blocks.run();
truthiness.run();
variables.run();
syntax.run();
