import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../errors/app-error.js';
import { assertCleanStrings, assertJsonDepth, MAX_JSON_DEPTH, stringProblem } from './input-guard.js';
import { allowedMethodsFrom } from './route-methods.js';

const nest = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

test('depth: the limit itself passes, one more level is refused, brackets inside strings do not count', () => {
  assert.doesNotThrow(() => assertJsonDepth(nest(MAX_JSON_DEPTH)));
  assert.throws(() => assertJsonDepth(nest(MAX_JSON_DEPTH + 1)), (e: AppError) => e.code === 'validation_failed');
  assert.doesNotThrow(() => assertJsonDepth(`{"a":"${'['.repeat(1000)}\\"${'{'.repeat(1000)}"}`));
  assert.throws(() => assertJsonDepth(`{"a":"\\\\",${'"b":['.repeat(1)}${nest(MAX_JSON_DEPTH)}]}`));
  assert.doesNotThrow(() => assertJsonDepth('[]'.repeat(100_000)), 'siblings are not depth');
});

test('strings: NUL and lone surrogates are refused, paired surrogates and other controls pass', () => {
  assert.equal(stringProblem('a\u0000'), 'must not contain NUL characters');
  assert.equal(stringProblem('\ud800'), 'must be valid Unicode (no lone surrogates)');
  assert.equal(stringProblem('x\udfffy'), 'must be valid Unicode (no lone surrogates)');
  assert.equal(stringProblem('😀\u0001\t'), null);
});

test('clean strings: the first bad value or key is named in field-path style', () => {
  const fieldOf = (value: unknown) => {
    try {
      assertCleanStrings(value);
      return null;
    } catch (e) {
      return (e as AppError).options.fields;
    }
  };
  assert.deepEqual(fieldOf({ metadata: { x: 'a\u0000' } }), [{ field: 'metadata.x', message: 'must not contain NUL characters' }]);
  assert.deepEqual(fieldOf({ entries: [{ name: 'ok' }, { name: '\ud800' }] }), [{ field: 'entries[1].name', message: 'must be valid Unicode (no lone surrogates)' }]);
  assert.deepEqual(fieldOf({ m: { ['k\u0000']: 1 } }), [{ field: 'm', message: 'keys must not contain NUL characters' }]);
  assert.deepEqual(fieldOf('\u0000'), [{ field: 'body', message: 'must not contain NUL characters' }]);
  assert.equal(fieldOf({ a: [1, true, null, { b: 'fine' }] }), null);
});

test('allowed methods: patterns with parameters and wildcards, trailing slash, GET implies HEAD', () => {
  const allowed = allowedMethodsFrom([
    { method: 'GET', url: '/customers/:ref' },
    { method: 'PATCH', url: '/customers/:ref' },
    { method: 'POST', url: '/customers' },
    { method: 'DELETE', url: '/weights/:id' },
    { method: 'POST', url: '/weights/publish' },
    { method: 'GET', url: '/ui/*' },
  ]);
  assert.deepEqual(allowed('/customers/abc'), ['GET', 'HEAD', 'PATCH']);
  assert.deepEqual(allowed('/customers/abc/'), ['GET', 'HEAD', 'PATCH']);
  assert.deepEqual(allowed('/customers'), ['POST']);
  assert.deepEqual(allowed('/weights/publish'), ['DELETE', 'POST']);
  assert.deepEqual(allowed('/ui/a/b.js'), ['GET', 'HEAD']);
  assert.deepEqual(allowed('/customers/a/b'), []);
  assert.deepEqual(allowed('/nowhere'), []);
});
