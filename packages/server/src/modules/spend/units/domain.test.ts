import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkParent, matchValueOf, PERSON_LEVEL_OFF, unitValues } from './domain.js';

test('unitValues trims, lower-cases e-mail and keeps person fields on PERSON units only', () => {
  assert.deepEqual(unitValues({ type: 'PERSON', name: ' Ada ', email: ' Ada@X.io ', githubLogin: ' ada ' }, true), {
    type: 'PERSON',
    name: 'Ada',
    email: 'ada@x.io',
    githubLogin: 'ada',
    parentId: null,
    featureId: null,
  });
  assert.throws(() => unitValues({ type: 'PERSON', name: 'Ada' }, false), { message: PERSON_LEVEL_OFF });
  assert.throws(() => unitValues({ type: 'TEAM', name: 'T', githubLogin: 'x' }, true), /GitHub login/);
  assert.throws(() => unitValues({ type: 'PERSON', name: 'P', featureId: '018f0000-0000-7000-8000-000000000000' }, true), /PROJECT/);
  assert.equal(unitValues({ type: 'TEAM', name: 'T', email: '  ' }, false).email, null, 'a blank e-mail is no e-mail');
});

test('checkParent refuses self and any descendant, and accepts other moves', () => {
  // a ← b ← c (c's parent is b, b's parent is a)
  const parents = new Map<string, string | null>([
    ['a', null],
    ['b', 'a'],
    ['c', 'b'],
    ['d', null],
  ]);
  assert.throws(() => checkParent({ id: 'a', name: 'A' }, 'a', parents), { message: 'A unit cannot be its own parent' });
  assert.throws(() => checkParent({ id: 'a', name: 'A' }, 'c', parents), { message: 'That would make A an ancestor of itself' });
  assert.throws(() => checkParent({ id: 'b', name: 'B' }, 'c', parents), { message: 'That would make B an ancestor of itself' });
  checkParent({ id: 'c', name: 'C' }, 'a', parents);
  checkParent({ id: 'a', name: 'A' }, 'd', parents);
  checkParent({ id: 'a', name: 'A' }, null, parents);
  // A stored cycle (cannot happen through the API) still terminates.
  checkParent({ id: 'z', name: 'Z' }, 'p', new Map([['p', 'q'], ['q', 'p']]));
});

test('matchValueOf trims and bounds', () => {
  assert.equal(matchValueOf('  v  '), 'v');
  assert.throws(() => matchValueOf('  '), /blank/);
  assert.throws(() => matchValueOf('x'.repeat(256)), /255/);
});
