import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { AuditRow } from '../../../src/modules/usage/repo.js';
import { startCacheListener } from '../../../src/platform/cache/listener.js';
import { NodeCache } from '../../../src/platform/cache/node-cache.js';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { toJsonb } from '../../../src/platform/db/jsonb.js';
import { newId } from '../../../src/platform/ids.js';
import { monetization } from '../../factories.js';
import {
  backend,
  BEHIND_POOLER,
  createTestAccount,
  openTestDatabase,
  openTestPostgres,
  startSecondNode,
  startServiceOn,
  startTestService,
  TEST_DATABASE_URL,
  withDatabaseName,
  type TestService,
} from '../../harness.js';

/**
 * The node cache (ADR 0013): API keys and tariff rows may be answered from memory, but a change is
 * seen by the next request on the node that made it, and within a second on every other node.
 * Every service here runs with a 60 s TTL, so only the invalidation can explain a change being seen.
 */
const LONG_TTL = { APP_CACHE_TTL_MS: '60000' };
const HOUR = 3_600_000;

const keyStats = (svc: TestService) => svc.ctx.cache.stats()['api-keys'] ?? { entries: 0, hits: 0, misses: 0 };

/** Calls `probe` until it returns true; the milliseconds it took, or fails after `limitMs`. */
async function within(limitMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await probe())) {
    if (performance.now() - started > limitMs) assert.fail(`not seen within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return performance.now() - started;
}

async function countAuditRows(db: TestService['ctx']['db'], accountId: string): Promise<number> {
  const row = await db
    .selectFrom('usage_events')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('event_type', '=', 'ENTITLEMENT_CHECKED')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('node cache on one node: keys, plan rules, tariff rows', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;

  before(async () => {
    svc = await startTestService({ env: LONG_TTL });
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    for (const ref of ['alice', 'bob', 'carol']) await m.customer(ref);
  });
  after(() => svc.close());

  const as = (key: string, path: string) => svc.http.get(`/api/v1/client${path}`, { auth: key });

  test('when a customer key is revoked then its next request on the same node is refused, though it was cached', async () => {
    const key = await m.customerKey('alice', ['read']);
    const keyId = (await m.expectOk(m.client('GET', '/customers/alice/keys'))).items.at(-1).id;
    const before = keyStats(svc).hits;
    for (let i = 0; i < 3; i++) assert.equal((await as(key, '/customers/alice')).status, 200);
    assert.ok(keyStats(svc).hits >= before + 2, 'the key was answered from the cache');
    await m.expectOk(m.client('DELETE', `/customers/alice/keys/${keyId}`));
    const refused = await as(key, '/customers/alice');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'unauthorized');
  });

  test('when a customer key is rotated then the old key is refused at once and the new one works', async () => {
    const old = await m.customerKey('bob', ['read']);
    const keyId = (await m.expectOk(m.client('GET', '/customers/bob/keys'))).items.at(-1).id;
    assert.equal((await as(old, '/customers/bob')).status, 200);
    assert.equal((await as(old, '/customers/bob')).status, 200);
    const rotated = await m.expectOk(m.client('POST', `/customers/bob/keys/${keyId}/rotate`));
    assert.equal((await as(old, '/customers/bob')).status, 401);
    assert.equal((await as(rotated.apiKey, '/customers/bob')).status, 200);
  });

  test('when a cached customer key passes its expiry then it is refused', async () => {
    const key = await m.customerKey('carol', ['read']);
    assert.equal((await as(key, '/customers/carol')).status, 200);
    assert.equal((await as(key, '/customers/carol')).status, 200);
    svc.clock.advanceMs(1826 * 24 * HOUR); // past the 1825-day lifetime
    try {
      assert.equal((await as(key, '/customers/carol')).status, 401);
    } finally {
      svc.clock.advanceMs(-1826 * 24 * HOUR);
    }
  });

  test('when the tenant key is rotated then the old key is refused at once and the new one works', async () => {
    const other = await createTestAccount(svc);
    assert.equal((await as(other.apiKey, '/customers?limit=1')).status, 200);
    assert.equal((await as(other.apiKey, '/customers?limit=1')).status, 200);
    const rotated = await svc.http.post('/api/v1/account/api-key', { auth: other.token });
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal((await as(other.apiKey, '/customers?limit=1')).status, 401);
    assert.equal((await as(rotated.body.data.apiKey, '/customers?limit=1')).status, 200);
  });

  test('when a plan rule changes then the next check sees it', async () => {
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
    await m.customer('dave');
    await m.subscribe('dave', plan.id);
    assert.equal((await m.check('dave', feature.key)).allowed, true);
    const capped = { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: 0.002, max_usage: 5 } };
    await m.expectOk(m.admin('PATCH', '/rules/plan-features', { planId: plan.id, featureId: feature.id, value: capped }));
    const limited = await m.check('dave', feature.key);
    assert.equal(limited.allowed, true);
    assert.equal(limited.usage.limit, 5);
    await m.expectOk(m.admin('PATCH', '/rules/plan-features', { planId: plan.id, featureId: feature.id, isEnabled: false, value: capped }));
    assert.equal((await m.check('dave', feature.key)).allowed, false);
  });

  test('when the tariff changes then the next quote uses the new weight and price', async () => {
    const feature = await m.feature();
    const model = await m.creditModel({ denomination: `cr-${feature.key}` });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: `tariff-${feature.key}`, name: 'Tariff', description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'tokens', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    await m.customer('erin');
    await m.subscribe('erin', plan.id);
    const quote = async () =>
      (await m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: 'erin', featureKey: feature.key, usage: { usageUnits: 10, model: 'gpt' } }))).creditQuote;
    const publishIn = async (ms: number, weights: unknown[], price: number) => {
      const effectiveFrom = new Date(svc.clock.now().getTime() + ms).toISOString();
      await m.expectOk(m.admin('POST', '/credits/weights/publish', { effectiveFrom, entries: weights }), 201);
      await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom, entries: [{ denomination: model.denomination, currency: 'USD', pricePerCredit: price }] }), 201);
    };

    // No tariff: identity weight, unpriced; asked twice so the empty chains are cached.
    assert.deepEqual(await quote(), { weight: 1, estimatedCredits: 10, weightId: null, weightMatch: 'NONE', pricePerCredit: null, currency: null, estimatedCost: null });
    await quote();
    await publishIn(1000, [{ featureId: feature.id, creditsPerUnit: 2 }], 0.01);
    svc.clock.advanceMs(2000);
    const first = await quote();
    assert.equal(first.weight, 2);
    assert.equal(first.weightMatch, 'FEATURE_DEFAULT');
    assert.equal(first.estimatedCredits, 20);
    assert.equal(first.pricePerCredit, 0.01);
    assert.equal(first.estimatedCost, 0.2); // 20 credits × 0.01
    await quote();

    await publishIn(1000, [{ featureId: feature.id, model: 'gpt', creditsPerUnit: 3 }], 0.02);
    assert.equal((await quote()).weight, 2, 'a scheduled row is not in effect yet');
    svc.clock.advanceMs(2000);
    const second = await quote();
    assert.equal(second.weight, 3);
    assert.equal(second.weightMatch, 'MODEL');
    assert.equal(second.estimatedCredits, 30);
    assert.equal(second.pricePerCredit, 0.02);
    assert.equal(second.estimatedCost, 0.6); // 30 credits × 0.02
  });
});

describe('entitlement-check audit rows (written behind, group-committed)', () => {
  test('when checks answer then the event list shows every audit row, and a flush makes them all stored', async () => {
    const svc = await startTestService();
    try {
      const acct = await createTestAccount(svc);
      const m = monetization(svc, acct);
      const feature = await m.feature();
      const plan = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
      await m.customer('zed');
      await m.subscribe('zed', plan.id);

      const burst = await Promise.all(Array.from({ length: 20 }, () => m.client('GET', `/entitlements/zed/${feature.key}`)));
      assert.ok(burst.every((r) => r.status === 200));
      // The explorer flushes this node's writer before it reads: a read right after the checks sees them.
      const listed = await m.expectOk(m.api('GET', '/api/v1/tanso/events?eventType=ENTITLEMENT_CHECKED&customerReferenceId=zed&limit=100'));
      assert.equal(listed.pagination.total, 20);
      assert.deepEqual(listed.items[0].context, { allowed: true });
      await svc.ctx.batches.flush();
      assert.equal(await countAuditRows(svc.ctx.db, acct.accountId), 20);
      assert.equal((await m.client('GET', `/entitlements/zed/${feature.key}?record=false`)).status, 200);
      await svc.ctx.batches.flush();
      assert.equal(await countAuditRows(svc.ctx.db, acct.accountId), 20, 'record=false writes none');
    } finally {
      await svc.close();
    }
  });

  test('when checks are audited then their rows claim no event key, and a client event may carry an audit row\'s key (ADR 0030)', async () => {
    const svc = await startTestService();
    try {
      const acct = await createTestAccount(svc);
      const m = monetization(svc, acct);
      const feature = await m.feature();
      const plan = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
      await m.customer('kay');
      await m.subscribe('kay', plan.id);
      await Promise.all(Array.from({ length: 5 }, () => m.expectOk(m.client('GET', `/entitlements/kay/${feature.key}`))));
      await svc.ctx.batches.flush();
      const audit = await svc.ctx.db
        .selectFrom('usage_events')
        .select(['id', 'event_idempotency_key'])
        .where('account_id', '=', acct.accountId)
        .where('event_type', '=', 'ENTITLEMENT_CHECKED')
        .execute();
      assert.equal(audit.length, 5);
      assert.equal(new Set(audit.map((a) => a.event_idempotency_key)).size, 5, 'every audit row has its own key');
      assert.ok(audit.every((a) => a.event_idempotency_key.startsWith('entitlement-check:')));
      const claimed = await svc.ctx.db.selectFrom('usage_event_keys').select('event_id').where('account_id', '=', acct.accountId).execute();
      assert.deepEqual(claimed, [], 'no key row for an audit row');
      // The audit row never makes a client's event a duplicate; the client's own key is claimed as ever.
      const key = audit[0]!.event_idempotency_key;
      const sent = { eventName: 'call', customerReferenceId: 'kay', featureKey: feature.key, usageUnits: 1, eventIdempotencyKey: key };
      assert.equal((await m.event(sent)).status, 201);
      const again = await m.event(sent);
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'conflict', again.text);
    } finally {
      await svc.close();
    }
  });

  test('when the runtime closes gracefully right after checks answered then every answered check has its row', async () => {
    const store = await reopenableDatabase();
    const svc = await startServiceOn(store.database, {}, store.schema);
    let accountId = '';
    let answered = 0;
    try {
      const acct = await createTestAccount(svc);
      accountId = acct.accountId;
      const m = monetization(svc, acct);
      const feature = await m.feature();
      const plan = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
      await m.customer('zed');
      await m.subscribe('zed', plan.id);
      const burst = await Promise.all(Array.from({ length: 30 }, () => m.client('GET', `/entitlements/zed/${feature.key}`)));
      assert.ok(burst.every((r) => r.status === 200));
      const inFlight = Array.from({ length: 10 }, () => m.client('GET', `/entitlements/zed/${feature.key}`).catch(() => ({ status: 0 })));
      await new Promise((r) => setTimeout(r, 5));
      // Rows still queued at the close (as when checks answered just before it): 1,000 more, like the last one.
      const writer = svc.ctx.batches.get<AuditRow>('entitlement-audit', () => assert.fail('the check created the writer'));
      await svc.ctx.batches.flush();
      const [last] = await svc.ctx.db.selectFrom('usage_events').selectAll().where('account_id', '=', accountId).limit(1).execute();
      for (let i = 0; i < 1000; i++) {
        const id = newId();
        await writer.writeBehind({ ...last!, id, event_idempotency_key: `entitlement-check:${id}`, at: last!.occurred_at, context: toJsonb({ allowed: true }) });
      }
      // No flush before: the close commits what is queued, then closes the database for real.
      await svc.close();
      answered = 1030 + (await Promise.all(inFlight)).filter((r) => r.status === 200).length;
      const reopened = await store.reopen();
      try {
        assert.equal(await countAuditRows(reopened.db, accountId), answered);
      } finally {
        await reopened.close();
      }
    } finally {
      await store.cleanup();
    }
  });
});

/** A database the service closes for real and the test opens again afterwards (PGlite: a data directory). */
async function reopenableDatabase() {
  if (TEST_DATABASE_URL) {
    const { database, schema, drop } = await openTestDatabase();
    return { database, schema, reopen: () => openTestPostgres(schema!, 2), cleanup: drop };
  }
  const dir = mkdtempSync(join(tmpdir(), 'tally-caches-'));
  return {
    database: await openDatabase({ kind: 'pglite', dataDir: dir }),
    schema: undefined,
    reopen: () => openDatabase({ kind: 'pglite', dataDir: dir }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe('node cache across two nodes on one PostgreSQL', { skip: backend !== 'postgres' && 'PostgreSQL only (PGlite is one process)' }, () => {
  let a: TestService;
  let b: TestService;
  let m: ReturnType<typeof monetization>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;

  before(async () => {
    a = await startTestService({ env: LONG_TTL });
    b = await startSecondNode(a, { env: LONG_TTL });
    acct = await createTestAccount(a);
    m = monetization(a, acct);
    await m.customer('nina');
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  const onB = (key: string, path: string) => b.http.get(`/api/v1/client${path}`, { auth: key });

  test('when a customer key is revoked on one node then the other node refuses it within a second', async () => {
    const key = await m.customerKey('nina', ['read']);
    const keyId = (await m.expectOk(m.client('GET', '/customers/nina/keys'))).items.at(-1).id;
    for (let i = 0; i < 3; i++) assert.equal((await onB(key, '/customers/nina')).status, 200);
    assert.ok(keyStats(b).hits >= 2, 'node B answers the key from its cache');
    await m.expectOk(m.client('DELETE', `/customers/nina/keys/${keyId}`));
    const ms = await within(1000, async () => (await onB(key, '/customers/nina')).status === 401);
    assert.ok(ms < 1000);
  });

  test('when a customer key is rotated on one node then the other node refuses the old key within a second', async () => {
    const key = await m.customerKey('nina', ['read']);
    const keyId = (await m.expectOk(m.client('GET', '/customers/nina/keys'))).items.at(-1).id;
    assert.equal((await onB(key, '/customers/nina')).status, 200);
    const rotated = await m.expectOk(m.client('POST', `/customers/nina/keys/${keyId}/rotate`));
    await within(1000, async () => (await onB(key, '/customers/nina')).status === 401);
    assert.equal((await onB(rotated.apiKey, '/customers/nina')).status, 200);
  });

  test('when the tenant key is rotated on one node then the other node refuses the old key within a second', async () => {
    const other = await createTestAccount(a);
    for (let i = 0; i < 2; i++) assert.equal((await onB(other.apiKey, '/customers?limit=1')).status, 200);
    const rotated = await a.http.post('/api/v1/account/api-key', { auth: other.token });
    assert.equal(rotated.status, 200, rotated.text);
    await within(1000, async () => (await onB(other.apiKey, '/customers?limit=1')).status === 401);
    assert.equal((await onB(rotated.body.data.apiKey, '/customers?limit=1')).status, 200);
  });

  test("when a node's listening connection drops then it stops serving from memory and still refuses a revoked key in time", async () => {
    const key = await m.customerKey('nina', ['read']);
    const keyId = (await m.expectOk(m.client('GET', '/customers/nina/keys'))).items.at(-1).id;
    for (let i = 0; i < 2; i++) assert.equal((await onB(key, '/customers/nina')).status, 200);
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      // Every listener on this schema (A's and B's) is cut; each reconnects on its own.
      const cut = await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where query = $1`, [`listen "tally_cache.${a.schema}"`]);
      assert.equal(cut.rowCount, 2, 'one listening connection per node');
    } finally {
      await admin.end();
    }
    await m.expectOk(m.client('DELETE', `/customers/nina/keys/${keyId}`));
    await within(1000, async () => (await onB(key, '/customers/nina')).status === 401);
    // Back to serving from memory once the listener has reconnected (and flushed).
    await within(5000, async () => b.ctx.cache.isServing);
  });
});

describe('the cache listener proves it hears before the cache serves', { skip: backend !== 'postgres' && 'PostgreSQL only (PGlite is one process)' }, () => {
  /** A log that keeps what the listener says. */
  const recorder = () => {
    const lines: { level: string; message: string }[] = [];
    const at = (level: string) => (_details: object, message: string) => void lines.push({ level, message });
    return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
  };

  test('when the listening connection hears the pool then the cache serves', async () => {
    const { database, drop } = await openTestDatabase();
    const cache = new NodeCache({ ttlMs: 60_000, notify: true });
    const { log, lines } = recorder();
    const listener = await startCacheListener(database, cache, log);
    try {
      assert.equal(cache.isServing, true);
      assert.deepEqual(lines, []);
    } finally {
      await listener.close();
      await database.close();
      await drop();
    }
  });

  test('when the listening connection cannot hear the pool (LISTEN through a transaction pooler, or another database) then the cache stays off and the log says why', async () => {
    const { database, schema, drop } = await openTestDatabase();
    // Behind the CI's PgBouncer this is the real misconfiguration: LISTEN through the pooler itself.
    // Direct, the same schema name in another database: notifications never cross databases either.
    const deaf = BEHIND_POOLER
      ? { url: withDatabaseName(TEST_DATABASE_URL!, schema!), setup: async () => {} }
      : { url: withDatabaseName(TEST_DATABASE_URL!, 'postgres'), setup: (q: string) => adminOn(withDatabaseName(TEST_DATABASE_URL!, 'postgres'), q) };
    await deaf.setup(`create schema if not exists ${schema}`);
    const misdirected: Database = {
      ...database,
      connectDedicated: async () => {
        const c = new pg.Client({ connectionString: deaf.url, ...(BEHIND_POOLER ? {} : { options: `-c search_path=${schema}` }) });
        await c.connect();
        return c;
      },
    };
    const cache = new NodeCache({ ttlMs: 60_000, notify: true });
    const { log, lines } = recorder();
    const listener = await startCacheListener(misdirected, cache, log);
    try {
      assert.equal(cache.isServing, false, 'a deaf listener never lets the cache serve');
      const said = lines.find((l) => l.level === 'error');
      assert.match(said?.message ?? '', /hears no notifications.*DATABASE_LISTEN_URL/);
      // Lookups go to the database every time.
      let loads = 0;
      const region = cache.region<string>('api-keys', () => 'acct');
      for (let i = 0; i < 3; i++) await region.get('k', async () => (loads++, 'row'));
      assert.equal(loads, 3);
    } finally {
      await listener.close();
      await database.close();
      await deaf.setup(`drop schema if exists ${schema} cascade`);
      await drop();
    }
  });
});

async function adminOn(url: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
