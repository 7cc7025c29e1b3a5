import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromPayload, NodeCache, toPayload } from './node-cache.js';

const setup = (options: { ttlMs?: number; notify?: boolean; maxEntries?: number } = {}) => {
  let now = 0;
  const cache = new NodeCache({ ttlMs: options.ttlMs ?? 1000, notify: options.notify ?? false, ...(options.maxEntries ? { maxEntries: options.maxEntries } : {}), now: () => now });
  let loads = 0;
  const region = cache.region<{ account: string; v: number }>('r', (value) => value.account);
  const get = (key: string, account = 'a', v = 1) =>
    region.get(key, async () => {
      loads++;
      return { account, v };
    });
  return { cache, region, get, loads: () => loads, advance: (ms: number) => (now += ms) };
};

test('when a key is asked twice within the TTL then it is loaded once; after the TTL it is loaded again', async () => {
  const s = setup();
  await s.get('k');
  await s.get('k');
  assert.equal(s.loads(), 1);
  s.advance(1001);
  await s.get('k');
  assert.equal(s.loads(), 2, 'the TTL is the fallback when an invalidation is missed');
});

test("when a tag is invalidated then only that tag's entries are loaded again", async () => {
  const s = setup();
  await s.get('k1', 'a');
  await s.get('k2', 'b');
  s.cache.invalidate('r', 'a');
  await s.get('k1', 'a');
  await s.get('k2', 'b');
  assert.equal(s.loads(), 3);
});

test('when a load is running while its region is invalidated then its value answers its caller but is not stored, and later lookups do not join it', async () => {
  const s = setup();
  let release!: (v: { account: string; v: number }) => void;
  const slow = s.region.get('k', () => new Promise((r) => (release = r)));
  s.cache.invalidate('r', 'a');
  const fresh = s.region.get('k', async () => ({ account: 'a', v: 2 }));
  release({ account: 'a', v: 1 });
  assert.equal((await slow)!.v, 1);
  assert.equal((await fresh)!.v, 2, 'a lookup after the invalidation never gets the older load');
  assert.equal((await s.region.get('k', async () => ({ account: 'a', v: 3 })))!.v, 2);
});

test('when concurrent lookups miss the same key then they share one load', async () => {
  const s = setup();
  await Promise.all([s.get('k'), s.get('k'), s.get('k')]);
  assert.equal(s.loads(), 1);
});

test('when a load answers null then nothing is stored', async () => {
  const s = setup();
  let loads = 0;
  const miss = () => s.region.get('unknown', async () => (loads++, null));
  assert.equal(await miss(), null);
  assert.equal(await miss(), null);
  assert.equal(loads, 2);
});

test('when the cache must hear notifications then it serves nothing until its listener is up, and flushes when it goes down or comes back', async () => {
  const s = setup({ notify: true });
  await s.get('k');
  await s.get('k');
  assert.equal(s.loads(), 2, 'no listener yet: every lookup reads the database');
  s.cache.markListening(true);
  await s.get('k');
  await s.get('k');
  assert.equal(s.loads(), 3);
  s.cache.markListening(false);
  await s.get('k');
  assert.equal(s.loads(), 4, 'listener down: read through');
  s.cache.markListening(true);
  await s.get('k');
  assert.equal(s.loads(), 5, 'back up: starts empty');
});

test('when the TTL is 0 then nothing is cached', async () => {
  const s = setup({ ttlMs: 0 });
  await s.get('k');
  await s.get('k');
  assert.equal(s.loads(), 2);
});

test('when a region is full then the oldest entry is evicted', async () => {
  const s = setup({ maxEntries: 2 });
  await s.get('k1');
  await s.get('k2');
  await s.get('k3');
  await s.get('k2');
  assert.equal(s.loads(), 3);
  await s.get('k1');
  assert.equal(s.loads(), 4);
  assert.equal(s.cache.stats().r!.entries, 2);
});

test('when a payload is read then only a [region, tag] pair is accepted', () => {
  assert.deepEqual(fromPayload(toPayload('api-keys', 'acc"1')), { region: 'api-keys', tag: 'acc"1' });
  for (const bad of [undefined, '', 'x', '[1,2]', '{"region":"a"}']) assert.equal(fromPayload(bad), null);
});
