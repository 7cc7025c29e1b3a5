import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attributeOutcome, mergeOutcomeFields, newOutcomeFields, outcomePatchOf } from './domain.js';

const now = new Date('2026-09-10T12:00:00Z');

test('outcomePatchOf keeps only the fields sent: null or absent is not sent, "" clears, e-mail lower-cased', () => {
  const patch = outcomePatchOf({ kind: 'CUSTOM', externalId: ' e1 ', title: ' T ', url: null, actorEmail: 'A@B.io', aiTool: '', aiAssisted: false });
  assert.deepEqual(patch, { kind: 'CUSTOM', externalId: 'e1', fields: { title: 'T', actorEmail: 'a@b.io', aiTool: null, aiAssisted: false } });
  assert.throws(() => outcomePatchOf({ kind: 'CUSTOM', externalId: ' ' }), /externalId: must not be blank/);
  assert.throws(() => outcomePatchOf({ kind: 'CUSTOM', externalId: 'x', title: 'y'.repeat(501) }), /title: must be at most 500/);
});

test('a new outcome defaults occurredAt to now; a merge replaces only the sent fields', () => {
  const created = newOutcomeFields(outcomePatchOf({ kind: 'CUSTOM', externalId: 'x', title: 'A', aiAssisted: true }), now);
  assert.deepEqual(created, { title: 'A', url: null, actorEmail: null, actorLogin: null, requestedSpendUnitId: null, occurredAt: now, aiAssisted: true, aiTool: null });
  const merged = mergeOutcomeFields(created, outcomePatchOf({ kind: 'CUSTOM', externalId: 'x', url: 'u', title: null }));
  assert.deepEqual(merged, { ...created, url: 'u' });
});

test('attributeOutcome follows the order: PERSON (e-mail, then login; person level on) → sent unit → source default → none', () => {
  const persons = [
    { id: 'ada', email: 'ada@x.io', githubLogin: 'Ada' },
    { id: 'bob', email: null, githubLogin: 'bob' },
  ];
  const input = { actorEmail: null, actorLogin: null, requestedSpendUnitId: null, sourceDefaultUnitId: null };
  assert.equal(attributeOutcome({ ...input, actorEmail: 'ADA@x.io', actorLogin: 'bob', requestedSpendUnitId: 'team' }, persons, true), 'ada');
  assert.equal(attributeOutcome({ ...input, actorLogin: 'ADA', requestedSpendUnitId: 'team' }, persons, true), 'ada');
  assert.equal(attributeOutcome({ ...input, actorEmail: 'nobody@x.io', actorLogin: 'BOB' }, persons, true), 'bob');
  assert.equal(attributeOutcome({ ...input, actorLogin: 'ada', requestedSpendUnitId: 'team', sourceDefaultUnitId: 'dflt' }, persons, false), 'team');
  assert.equal(attributeOutcome({ ...input, actorLogin: 'zed', sourceDefaultUnitId: 'dflt' }, persons, true), 'dflt');
  assert.equal(attributeOutcome({ ...input, actorLogin: 'ada' }, persons, false), null);
});
