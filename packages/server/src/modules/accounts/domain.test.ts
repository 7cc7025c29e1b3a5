import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  accessAfterChange,
  computeRetryAfterSeconds,
  pairDelayMs,
  PAIR_BASE_DELAY_MS,
  PAIR_FORGET_MS,
  PAIR_MAX_DELAY_MS,
  throttleSubjects,
  USER_CEILING,
  USER_WINDOW_MS,
} from './domain.js';

const start = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(start.getTime() + ms);
const state = (failures: number, lastFailureMs = 0) => ({ windowStart: start, failures, lastFailureAt: at(lastFailureMs) });

test('when a pair has fewer than 5 failures then it may try now', () => {
  assert.equal(computeRetryAfterSeconds('pair', state(4), start), 0);
  assert.equal(computeRetryAfterSeconds('pair', undefined, start), 0);
});

test('when a pair reaches 5 failures then it waits 30 s from the last failure, doubling per further failure, capped at 15 min', () => {
  assert.deepEqual([4, 5, 6, 7, 8, 9, 10, 11, 50, 10_000].map(pairDelayMs), [0, 30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000, 900_000]);
  assert.equal(pairDelayMs(5), PAIR_BASE_DELAY_MS);
  assert.equal(pairDelayMs(1e9), PAIR_MAX_DELAY_MS);
  assert.equal(computeRetryAfterSeconds('pair', state(6, 10_000), at(10_000)), 60);
  assert.equal(computeRetryAfterSeconds('pair', state(6, 10_000), at(69_500)), 1, 'rounds up');
  assert.equal(computeRetryAfterSeconds('pair', state(6, 10_000), at(70_000)), 0);
});

test('when a pair has been quiet for an hour then its failures no longer delay it', () => {
  assert.equal(computeRetryAfterSeconds('pair', state(40, 0), at(PAIR_FORGET_MS)), 0);
});

test('when a username reaches its ceiling then every address waits for the end of its window', () => {
  assert.equal(computeRetryAfterSeconds('user', state(USER_CEILING - 1), at(1000)), 0);
  assert.equal(computeRetryAfterSeconds('user', state(USER_CEILING), at(60_000)), (USER_WINDOW_MS - 60_000) / 1000);
  assert.equal(computeRetryAfterSeconds('user', state(USER_CEILING * 3), at(USER_WINDOW_MS)), 0);
});

test('when subjects are built then the pair is per lower-cased username and address, and cannot be forged by a separator', () => {
  const [pair, user] = throttleSubjects('Alice', '10.0.0.1');
  assert.deepEqual(user, { subject: 'user:alice', kind: 'user' });
  assert.equal(pair!.kind, 'pair');
  assert.notEqual(throttleSubjects('a|b', 'c')[0]!.subject, throttleSubjects('a', 'b|c')[0]!.subject);
  assert.notEqual(throttleSubjects('alice', '10.0.0.1')[0]!.subject, throttleSubjects('alice', '10.0.0.2')[0]!.subject);
});

const team = [
  { id: 'o1', role: 'OWNER' as const, disabled: false },
  { id: 'a1', role: 'ADMIN' as const, disabled: false },
  { id: 'o2', role: 'OWNER' as const, disabled: true },
];

test('when the only active owner is demoted or disabled then the change is refused', () => {
  assert.equal(accessAfterChange(team, 'o1', { role: 'ADMIN' }).ok, false);
  assert.equal(accessAfterChange(team, 'o1', { disabled: true }).ok, false);
});

test('when another active owner exists then an owner may be demoted, with one audit action per change', () => {
  const users = [...team, { id: 'o3', role: 'OWNER' as const, disabled: false }];
  const r = accessAfterChange(users, 'o1', { role: 'VIEWER', disabled: true });
  assert.ok(r.ok);
  assert.equal(r.role, 'VIEWER');
  assert.equal(r.disabled, true);
  assert.deepEqual(r.actions.map((a) => a.action), ['user.role_changed', 'user.disabled']);
});

test('when a disabled owner is enabled then the account has two owners and nothing else changes', () => {
  const r = accessAfterChange(team, 'o2', { disabled: false });
  assert.ok(r.ok);
  assert.equal(r.role, 'OWNER');
  assert.deepEqual(r.actions, [{ action: 'user.enabled', details: {} }]);
});

test('when a change repeats the current state then it records no action', () => {
  const r = accessAfterChange(team, 'a1', { role: 'ADMIN', disabled: false });
  assert.ok(r.ok);
  assert.deepEqual(r.actions, []);
});
