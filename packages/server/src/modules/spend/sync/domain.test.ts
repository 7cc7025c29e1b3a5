import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../platform/errors/app-error.js';
import { dec } from '../../../platform/money.js';
import { chunkRowsOf, chunksOf, isDay, MAX_SYNC_DAYS, mergeActorRows, mergeUsageRows, syncWindowOf } from './domain.js';
import type { ActorMetricRow, UsageRow } from '../vendors/types.js';

const NOW = new Date('2026-03-10T12:00:00Z');
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError && err.code === 'validation_failed');
    return err.message;
  }
  assert.fail('expected a refusal');
};

const usage = (over: Partial<UsageRow> = {}): UsageRow => ({
  day: '2026-03-01', model: 'm', workspaceId: '', apiKeyId: '', actor: '', serviceTier: '',
  uncachedInputTokens: 1n, cacheReadTokens: 2n, cacheWrite5mTokens: 3n, cacheWrite1hTokens: 4n, outputTokens: 5n,
  requests: null, vendorCostCents: null, ...over,
});

describe('sync window (contract §7.2)', () => {
  it('when nothing is given then [tomorrow − 30 days, tomorrow) in UTC', () => {
    assert.deepEqual(syncWindowOf({}, NOW), { from: '2026-02-09', to: '2026-03-11' });
  });
  it('when only to is given then from = to − 30 days', () => {
    assert.deepEqual(syncWindowOf({ to: '2026-02-01' }, NOW), { from: '2026-01-02', to: '2026-02-01' });
  });
  it('when from is not before to then it is refused', () => {
    assert.match(refusal(() => syncWindowOf({ from: '2026-03-01', to: '2026-03-01' }, NOW)), /must be before to/);
    assert.match(refusal(() => syncWindowOf({ from: '2026-04-01' }, NOW)), /must be before to/);
  });
  it('when a date is unreadable then it is refused naming the parameter', () => {
    assert.match(refusal(() => syncWindowOf({ from: '2026-02-30' }, NOW)), /parameter: from/);
    assert.match(refusal(() => syncWindowOf({ to: '03/01/2026' }, NOW)), /parameter: to/);
    assert.equal(isDay('2024-02-29'), true);
    assert.equal(isDay('2025-02-29'), false);
  });
  it('when the window is longer than the cap then it is refused; exactly the cap is accepted', () => {
    assert.match(refusal(() => syncWindowOf({ from: '2025-01-01', to: '2026-01-03' }, NOW)), new RegExp(`at most ${MAX_SYNC_DAYS} days`));
    assert.deepEqual(syncWindowOf({ from: '2025-01-01', to: '2026-01-02' }, NOW), { from: '2025-01-01', to: '2026-01-02' });
  });
});

describe('sync chunks', () => {
  it('when the window is 31 days and chunks are 31 then one chunk; 32 days then 31 + 1', () => {
    assert.deepEqual(chunksOf({ from: '2026-01-01', to: '2026-02-01' }, 31), [{ from: '2026-01-01', to: '2026-02-01' }]);
    assert.deepEqual(chunksOf({ from: '2026-01-01', to: '2026-02-02' }, 31), [
      { from: '2026-01-01', to: '2026-02-01' },
      { from: '2026-02-01', to: '2026-02-02' },
    ]);
  });
  it('when chunks are 30 days (Cursor) then 30 days is one chunk and 31 two', () => {
    assert.equal(chunksOf({ from: '2026-01-01', to: '2026-01-31' }, 30).length, 1);
    assert.deepEqual(chunksOf({ from: '2026-01-01', to: '2026-02-01' }, 30).at(-1), { from: '2026-01-31', to: '2026-02-01' });
  });
  it('when chunked then the chunks tile the window exactly', () => {
    const chunks = chunksOf({ from: '2025-01-01', to: '2026-01-02' }, 31);
    assert.equal(chunks[0]!.from, '2025-01-01');
    assert.equal(chunks.at(-1)!.to, '2026-01-02');
    for (let i = 1; i < chunks.length; i += 1) assert.equal(chunks[i]!.from, chunks[i - 1]!.to);
  });
});

describe('chunk rows', () => {
  it('when usage rows share a key then they are summed (requests and cost null-aware)', () => {
    const merged = mergeUsageRows([
      usage({ requests: null, vendorCostCents: dec('1.25') }),
      usage({ requests: 3n, vendorCostCents: dec('0.0000000001') }),
      usage({ model: 'other' }),
    ]);
    assert.equal(merged.length, 2);
    assert.equal(merged[0]!.uncachedInputTokens, 2n);
    assert.equal(merged[0]!.outputTokens, 10n);
    assert.equal(merged[0]!.requests, 3n);
    assert.equal(merged[0]!.vendorCostCents!.toFixed(), '1.2500000001');
  });
  it('when actor rows share a key then every reported metric is summed and unreported stays null', () => {
    const row = (over: Partial<ActorMetricRow>): ActorMetricRow => ({
      day: '2026-03-01', actor: 'a@x.com', tool: 'claude_code', model: '', uncachedInputTokens: null, cacheReadTokens: null, cacheWriteTokens: null,
      outputTokens: null, totalTokens: null, sessions: 1n, requests: null, linesAdded: 5n, linesRemoved: null, accepted: null, rejected: null,
      commits: null, pullRequests: null, creditsUsed: null, vendorCostCents: dec('0.5'), ...over,
    });
    const [merged] = mergeActorRows([row({}), row({ sessions: 2n, linesAdded: null, vendorCostCents: dec('0.25') })]);
    assert.equal(merged!.sessions, 3n);
    assert.equal(merged!.linesAdded, 5n);
    assert.equal(merged!.linesRemoved, null);
    assert.equal(merged!.vendorCostCents!.toFixed(), '0.75');
  });
  it('when the vendor returns days outside the chunk then they are dropped and counted', () => {
    const rows = chunkRowsOf({ usage: [usage({ day: '2026-02-28' }), usage({ day: '2026-03-01' }), usage({ day: '2026-03-02' })], costs: [], actors: [] }, { from: '2026-03-01', to: '2026-03-02' });
    assert.equal(rows.usage.length, 1);
    assert.equal(rows.outside, 2);
  });
});

describe('chunk rows: the vendor rows stay untouched', () => {
  it('when rows are summed then the rows the vendor returned are not modified', () => {
    const a = usage();
    const b = usage();
    const merged = mergeUsageRows([a, b, usage()]);
    assert.equal(merged[0]!.outputTokens, 15n);
    assert.equal(a.outputTokens, 5n);
    assert.equal(b.outputTokens, 5n);
  });
});
