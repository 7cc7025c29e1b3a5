import assert from 'node:assert/strict';
import { test } from 'node:test';
import { githubReposOf } from '../outcomes/sources/domain.js';
import { githubRateLimitDelayMs, mergedQualifier, splitPoint, toMergedPull } from './github-prs.js';

const ms = (iso: string) => Date.parse(iso);

test('mergedQualifier: whole days as inclusive dates, anything finer as inclusive UTC seconds', () => {
  assert.equal(mergedQualifier(ms('2026-09-01T00:00:00Z'), ms('2026-09-08T00:00:00Z')), '2026-09-01..2026-09-07');
  assert.equal(mergedQualifier(ms('2026-09-01T00:00:00Z'), ms('2026-09-01T12:00:00Z')), '2026-09-01T00:00:00Z..2026-09-01T11:59:59Z');
});

test('splitPoint: on a day boundary while the range spans days, else in the middle second', () => {
  assert.equal(splitPoint(ms('2026-09-01T00:00:00Z'), ms('2026-09-06T00:00:00Z')), ms('2026-09-03T00:00:00Z'));
  assert.equal(splitPoint(ms('2026-09-01T00:00:00Z'), ms('2026-09-02T00:00:00Z')), ms('2026-09-01T12:00:00Z'));
  assert.equal(splitPoint(ms('2026-09-01T00:00:00Z'), ms('2026-09-01T00:00:02Z')), ms('2026-09-01T00:00:01Z'));
});

test('toMergedPull: owner/repo#number from repository_url, merged_at before closed_at, non-PRs dropped', () => {
  const pull = toMergedPull({ number: 42, title: 'Add budget alerts', html_url: 'https://github.com/acme/spend/pull/42', repository_url: 'https://api.github.com/repos/acme/spend', user: { login: 'dana' }, closed_at: '2026-09-02T11:00:05Z', pull_request: { merged_at: '2026-09-02T11:00:00Z' } });
  assert.deepEqual(pull, { externalId: 'acme/spend#42', title: 'Add budget alerts', url: 'https://github.com/acme/spend/pull/42', authorLogin: 'dana', mergedAt: new Date('2026-09-02T11:00:00Z') });
  assert.equal(toMergedPull({ number: 1, repository_url: 'https://api.github.com/repos/acme/spend' }), null);
  assert.equal(toMergedPull('nope'), null);
});

test('githubRateLimitDelayMs: Retry-After, else a spent limit resetting soon; nothing for other statuses or a far reset', () => {
  const now = ms('2026-09-01T00:00:00Z');
  const h = (o: Record<string, string>) => new Headers(o);
  assert.equal(githubRateLimitDelayMs(403, h({ 'retry-after': '3' }), now), 3000);
  assert.equal(githubRateLimitDelayMs(403, h({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 20) }), now), 20_000);
  assert.equal(githubRateLimitDelayMs(403, h({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 3600) }), now), null);
  assert.equal(githubRateLimitDelayMs(403, h({}), now), null, 'a plain 403 (no access) is final');
  assert.equal(githubRateLimitDelayMs(401, h({ 'retry-after': '1' }), now), null);
});

test('githubReposOf: trimmed, de-duplicated case-insensitively, owner/repo only', () => {
  assert.deepEqual(githubReposOf(' acme/api , acme/web,ACME/API,, '), ['acme/api', 'acme/web']);
  assert.throws(() => githubReposOf(''), /needs a scope/);
  assert.throws(() => githubReposOf('acme/api/x'), /Not a GitHub repository/);
});
