import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ANTHROPIC_FAKE_KEY, type AnthropicFake } from '../../fakes/vendors/anthropic.js';
import type { TestService } from '../../harness.js';
import { spendOperator, startSpendService, storedRows } from './connections-helpers.js';

const USAGE_PATH = '/v1/organizations/usage_report/messages';

describe('spend sync (contract §7.2)', () => {
  let svc: TestService;
  let anthropic: AnthropicFake;
  let close: () => Promise<void>;
  before(async () => {
    ({ svc, anthropic, close } = await startSpendService());
  });
  after(() => close());
  beforeEach(() => {
    anthropic.reset();
    svc.clock.set('2026-03-10T12:00:00Z');
  });

  const usageWindows = () => anthropic.requests.filter((r) => r.path === USAGE_PATH && !r.query.get('page')).map((r) => [r.query.get('starting_at'), r.query.get('ending_at')]);
  const chunkLogs = (connectionId: string) =>
    svc
      .logs()
      .split('\n')
      .filter((l) => l.includes('"spend sync chunk"') && l.includes(connectionId))
      .map((l) => JSON.parse(l) as { chunksDone: number; chunksTotal: number; rowsWritten: number; chunk: { from: string; to: string } });

  test('when a connection is connected, probed and synced then the pulled rows are in the database, exactly', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    assert.equal((await o.probe(c.id)).status, 200);
    anthropic.seedDays({ from: '2026-02-09', days: 30 });
    const res = await o.sync(c.id);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, { connectionId: c.id, from: '2026-02-09', to: '2026-03-11', rowsWritten: 300 });
    assert.deepEqual(await storedRows(svc, c.id), { usage: 120, costs: 120, actors: 60 });
    const bucket = await svc.ctx.db
      .selectFrom('spend_usage_buckets')
      .selectAll()
      .where('connection_id', '=', c.id)
      .where('day', '=', '2026-02-10')
      .where('model', '=', 'claude-haiku-4-5-20251001')
      .where('workspace_id', '=', 'wrkspc_01AbCdEf')
      .executeTakeFirstOrThrow();
    // seedDays: day index 1, model 1, workspace 0.
    assert.deepEqual(
      [bucket.uncached_input_tokens, bucket.cache_read_tokens, bucket.cache_write_5m_tokens, bucket.cache_write_1h_tokens, bucket.output_tokens, bucket.requests, bucket.api_key_id, bucket.service_tier],
      ['1110', '2001', '101', '50', '502', null, 'apikey_fake0', 'standard'],
    );
    const cost = await svc.ctx.db.selectFrom('spend_vendor_costs').select((eb) => eb.fn.sum<string>('amount_cents').as('total')).where('connection_id', '=', c.id).where('day', '=', '2026-02-09').executeTakeFirstOrThrow();
    assert.equal(Number(cost.total).toFixed(5), (1.00125 + 1.01125 + 1.10125 + 1.11125).toFixed(5));
    const view = (await o.get(c.id)).body.data;
    assert.equal(view.status, 'ACTIVE');
    assert.equal(view.lastSyncedAt, '2026-03-10T12:00:00.000Z');
    assert.deepEqual([view.syncChunksDone, view.syncChunksTotal], [1, 1]);
    const logs = chunkLogs(c.id);
    assert.equal(logs.length, 1);
    assert.deepEqual([logs[0]!.chunksDone, logs[0]!.chunksTotal, logs[0]!.rowsWritten], [1, 1, 300]);
  });

  test('when the same window is synced again then its rows are replaced, not added; vendor revisions show', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    anthropic.seedDays({ from: '2026-03-01', days: 5 });
    await o.sync(c.id, '?from=2026-03-01&to=2026-03-06');
    const first = await storedRows(svc, c.id);
    // A name with every character array literals escape survives the bulk insert as sent.
    const oddModel = 'odd "model", {x}\\y\'s NULL';
    anthropic.addUsage({ day: '2026-03-02', model: oddModel, workspaceId: null, outputTokens: 7 });
    const again = await o.sync(c.id, '?from=2026-03-01&to=2026-03-06');
    assert.equal(again.status, 200);
    assert.deepEqual(await storedRows(svc, c.id), { ...first, usage: first.usage + 1 });
    const odd = await svc.ctx.db.selectFrom('spend_usage_buckets').selectAll().where('connection_id', '=', c.id).where('model', '=', oddModel).executeTakeFirstOrThrow();
    assert.deepEqual([odd.workspace_id, odd.output_tokens, odd.uncached_input_tokens], ['', '7', '0']);
  });

  test('when the window is 31 days then one chunk; 32 days then a 31-day chunk and a 1-day chunk', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    anthropic.seedDays({ from: '2026-01-01', days: 32 });
    assert.equal((await o.sync(c.id, '?from=2026-01-01&to=2026-02-01')).status, 200);
    assert.deepEqual(usageWindows(), [['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z']]);
    assert.deepEqual([(await o.get(c.id)).body.data.syncChunksTotal], [1]);
    anthropic.requests.length = 0;
    const res = await o.sync(c.id, '?from=2026-01-01&to=2026-02-02');
    assert.equal(res.status, 200);
    assert.deepEqual(usageWindows(), [
      ['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z'],
      ['2026-02-01T00:00:00Z', '2026-02-02T00:00:00Z'],
    ]);
    assert.deepEqual(chunkLogs(c.id).slice(-2).map((l) => [l.chunk.from, l.chunk.to, l.chunksDone, l.chunksTotal]), [
      ['2026-01-01', '2026-02-01', 1, 2],
      ['2026-02-01', '2026-02-02', 2, 2],
    ]);
    assert.equal(res.body.data.rowsWritten, 32 * 10);
  });

  test('when a chunk comes back empty where rows are stored then the rows are kept and the connection turns ERROR (502)', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    anthropic.seedDays({ from: '2026-03-01', days: 3 });
    await o.sync(c.id, '?from=2026-03-01&to=2026-03-04');
    const before = await storedRows(svc, c.id);
    anthropic.clearData();
    const res = await o.sync(c.id, '?from=2026-03-01&to=2026-03-04');
    assert.equal(res.status, 502);
    assert.equal(res.body.error.code, 'vendor_error');
    assert.match(res.body.error.message, /returned no rows for \[2026-03-01, 2026-03-04\) \(30 rows stored\); the stored rows were kept/);
    assert.equal(res.body.data.status, 'ERROR');
    assert.equal(res.body.data.lastError, res.body.error.message);
    assert.deepEqual(await storedRows(svc, c.id), before);
  });

  test('when a chunk comes back empty and nothing was stored then the sync succeeds with no rows', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    const res = await o.sync(c.id, '?from=2026-03-01&to=2026-03-04');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.rowsWritten, 0);
    assert.equal((await o.get(c.id)).body.data.status, 'ACTIVE');
  });

  test('when the vendor rate-limits with Retry-After: 0 then the sync retries and succeeds; past the retries it is 502 with the vendor message', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    anthropic.seedDays({ from: '2026-03-01', days: 2 });
    anthropic.failNext(2, { status: 429, retryAfter: '0', path: USAGE_PATH });
    const res = await o.sync(c.id, '?from=2026-03-01&to=2026-03-03');
    assert.equal(res.status, 200, res.text);
    assert.equal(anthropic.requests.filter((r) => r.path === USAGE_PATH).length, 3, 'two 429s, then the answer');
    const stored = await storedRows(svc, c.id);

    anthropic.failNext(3, { status: 429, retryAfter: '0', path: USAGE_PATH });
    const refused = await o.sync(c.id, '?from=2026-03-01&to=2026-03-03');
    assert.equal(refused.status, 502);
    assert.equal(refused.body.error.code, 'vendor_error');
    assert.equal(refused.body.error.message, 'Number of requests has exceeded your rate limit. Please try again later.');
    assert.equal(refused.body.data.status, 'ERROR');
    assert.deepEqual(await storedRows(svc, c.id), stored, 'a refused chunk changes nothing');
  });

  test('when the vendor refuses the key during a sync then 502 with the connection in ERROR', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    anthropic.refuseKey();
    const res = await o.sync(c.id, '?from=2026-03-01&to=2026-03-03');
    assert.equal(res.status, 502);
    assert.equal(res.body.data.id, c.id);
    assert.equal(res.body.data.lastError, 'invalid x-api-key');
  });

  test('when the window is invalid then 400 validation_failed and the vendor is not called', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    anthropic.requests.length = 0;
    for (const [query, message] of [
      ['?from=2026-03-05&to=2026-03-05', /must be before to/],
      ['?from=2026-03-05&to=2026-03-01', /must be before to/],
      ['?from=2026-02-30', /Invalid value for parameter: from/],
      ['?to=tomorrow', /Invalid value for parameter: to/],
      ['?from=2024-01-01&to=2026-01-01', /at most 366 days/],
    ] as const) {
      const res = await o.sync(c.id, query);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.match(res.body.error.message, message);
    }
    assert.equal(anthropic.requests.length, 0);
  });

  test('when two syncs of one connection run at once then they do not interleave and both succeed', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    anthropic.seedDays({ from: '2026-01-01', days: 40 });
    anthropic.setDelay(5);
    const [a, b] = await Promise.all([o.sync(c.id, '?from=2026-01-01&to=2026-02-10'), o.sync(c.id, '?from=2026-01-01&to=2026-02-10')]);
    anthropic.setDelay(0);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    assert.deepEqual(chunkLogs(c.id).map((l) => l.chunksDone), [1, 2, 1, 2]);
    assert.deepEqual(await storedRows(svc, c.id), { usage: 160, costs: 160, actors: 80 });
  });
});

describe('spend sync jobs', () => {
  let svc: TestService;
  let anthropic: AnthropicFake;
  let close: () => Promise<void>;
  before(async () => {
    ({ svc, anthropic, close } = await startSpendService());
  });
  after(() => close());

  test('when a connection is new then the initial-sync job pulls its first 30 days once; the hourly job then pulls the last 3 days', async () => {
    svc.clock.set('2026-03-10T12:00:30Z');
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    anthropic.seedDays({ from: '2026-02-01', days: 38 });
    anthropic.requests.length = 0;
    const first = await svc.scheduler.run('spend-initial-sync');
    assert.equal(first.status, 'ran');
    assert.deepEqual(
      anthropic.requests.filter((r) => r.path === USAGE_PATH).map((r) => [r.query.get('starting_at'), r.query.get('ending_at')]),
      [['2026-02-09T00:00:00Z', '2026-03-11T00:00:00Z']],
    );
    assert.equal((await storedRows(svc, c.id)).usage, 30 * 4);
    const row = await svc.ctx.db.selectFrom('spend_connections').select('initial_sync_at').where('id', '=', c.id).executeTakeFirstOrThrow();
    assert.ok(row.initial_sync_at);

    anthropic.requests.length = 0;
    svc.clock.set('2026-03-10T12:01:30Z');
    assert.equal((await svc.scheduler.run('spend-initial-sync')).status, 'ran');
    assert.equal(anthropic.requests.length, 0, 'the initial sync happens once');

    svc.clock.set('2026-03-10T13:15:10Z');
    assert.equal((await svc.scheduler.run('spend-sync')).status, 'ran');
    assert.deepEqual(
      anthropic.requests.filter((r) => r.path === USAGE_PATH).map((r) => [r.query.get('starting_at'), r.query.get('ending_at')]),
      [['2026-03-08T00:00:00Z', '2026-03-11T00:00:00Z']],
    );
    assert.equal((await svc.scheduler.run('spend-sync')).status, 'skipped', 'each slot runs once');
  });

  test('when the initial sync is refused then the connection stays pending and is picked up after its key is replaced', async () => {
    svc.clock.set('2026-03-11T08:00:30Z');
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic('Refused later');
    anthropic.refuseKey();
    const run = await svc.scheduler.run('spend-initial-sync');
    assert.equal(run.status, 'failed');
    const refused = (await o.get(c.id)).body.data;
    assert.equal(refused.status, 'ERROR');
    anthropic.acceptKey(ANTHROPIC_FAKE_KEY);
    assert.equal((await o.putKey(c.id, ANTHROPIC_FAKE_KEY)).status, 200);
    svc.clock.set('2026-03-11T08:01:30Z');
    assert.equal((await svc.scheduler.run('spend-initial-sync')).status, 'ran');
    const row = await svc.ctx.db.selectFrom('spend_connections').select(['initial_sync_at', 'status']).where('id', '=', c.id).executeTakeFirstOrThrow();
    assert.ok(row.initial_sync_at);
    assert.equal(row.status, 'ACTIVE');
  });
});
