import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findPriceAt } from '../../../src/modules/credits/tariff/service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { snapshotTables } from '../../snapshot.js';
import { inMs, insertCreditModel, issueCustomerKey } from './tariff-helpers.js';

const HOUR = 3_600_000;
const MISSING = '00000000-0000-7000-8000-000000000000';

describe('credit price book (admin API) and in-effect prices (client API)', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let other: ReturnType<typeof monetization>;
  let accountId: string;
  let customerKey: string;
  let tenantKey: string;
  let theirKey: string;

  before(async () => {
    svc = await startTestService();
    const acct = await createTestAccount(svc);
    ({ accountId, apiKey: tenantKey } = acct);
    m = monetization(svc, acct);
    const theirs = await createTestAccount(svc);
    other = monetization(svc, theirs);
    theirKey = theirs.apiKey;
    for (const d of ['tokens', 'gems', 'stars', 'coins', 'pips']) await insertCreditModel(svc, accountId, d);
    await insertCreditModel(svc, accountId, 'retired', { deleted: true });
    await insertCreditModel(svc, theirs.accountId, 'theirs');
    await m.customer('alice');
    customerKey = await issueCustomerKey(svc, accountId, 'alice');
  });
  after(() => svc.close());

  const publish = (body: unknown, as = m) => as.admin('POST', '/credits/prices/publish', body);
  const snapshot = () => snapshotTables(svc, ['credit_prices']);
  // A batch is account-wide: one instant holds one batch, so every test publishes at its own instants.
  let slot = 0;
  const future = (ms: number) => inMs(svc, ms + ++slot * 1000);

  test('when a price batch is published then 201 echoes exact prices, USD by default and upper-cased currencies', async () => {
    const res = await publish({
      effectiveFrom: future(HOUR),
      entries: [
        { denomination: 'tokens', pricePerCredit: 0.000123 },
        { denomination: ' gems ', pricePerCredit: '999999.999999', currency: 'eur' },
      ],
    });
    assert.equal(res.status, 201, res.text);
    assert.match(res.text, /"pricePerCredit":0\.000123[,}]/);
    assert.match(res.text, /"pricePerCredit":999999\.999999[,}]/);
    assert.deepEqual(res.body.data.map((p: any) => [p.denomination, p.currency, p.status]), [
      ['tokens', 'USD', 'SCHEDULED'],
      ['gems', 'EUR', 'SCHEDULED'],
    ]);
  });

  test('when a price publish is invalid then 400 validation_failed names the entry, and nothing is written', async () => {
    const later = future(5 * HOUR);
    const one = (entry: Record<string, unknown>) => ({ effectiveFrom: later, entries: [{ denomination: 'tokens', pricePerCredit: 1, ...entry }] });
    const cases: [unknown, string, string?][] = [
      [{ ...one({}), effectiveFrom: inMs(svc, -1) }, 'effectiveFrom must not be in the past', 'effectiveFrom'],
      [{ ...one({}), effectiveFrom: inMs(svc, 0) }, 'effectiveFrom must not be in the past', 'effectiveFrom'],
      [one({ denomination: 'nothing' }), "Entry 0: no credit model with denomination 'nothing' on this account", 'entries[0].denomination'],
      [one({ denomination: 'retired' }), "Entry 0: no credit model with denomination 'retired' on this account"],
      [one({ denomination: 'theirs' }), "Entry 0: no credit model with denomination 'theirs' on this account"],
      [one({ denomination: '  ' }), 'Entry 0: denomination is required', 'entries[0].denomination'],
      [{ effectiveFrom: later, entries: [{ pricePerCredit: 1 }] }, 'Entry 0: denomination is required'],
      [one({ currency: 'EURO' }), 'Entry 0: currency must be a 3-letter ISO 4217 code', 'entries[0].currency'],
      [one({ pricePerCredit: 0.0000001 }), 'Entry 0: pricePerCredit allows at most 6 decimals', 'entries[0].pricePerCredit'],
      [one({ pricePerCredit: 1000000.5 }), 'Entry 0: pricePerCredit exceeds maximum 1000000'],
      [one({ pricePerCredit: 0 }), 'Entry 0: pricePerCredit must be positive'],
      [one({ pricePerCredit: -0.01 }), 'Entry 0: pricePerCredit must be positive'],
      [{ effectiveFrom: later, entries: [{ denomination: 'tokens', pricePerCredit: 1 }, { denomination: 'tokens', pricePerCredit: 2 }] }, 'Entry 1: duplicate denomination in batch', 'entries[1].denomination'],
      [{ effectiveFrom: later }, 'Validation failed: entries: is required'],
    ];
    const before = await snapshot();
    for (const [body, message, field] of cases) {
      const res = await publish(body);
      assert.equal(res.status, 400, `${message}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.ok(res.body.error.message.startsWith(message), `${res.body.error.message} starts with ${message}`);
      if (field) assert.equal(res.body.error.fields[0].field, field);
    }
    assert.deepEqual(await snapshot(), before, 'nothing changed');
  });

  test('when the same price batch is replayed then the same rows come back; a different one is 409', async () => {
    const effectiveFrom = future(HOUR);
    const first = await m.expectOk<any[]>(publish({ effectiveFrom, entries: [{ denomination: 'stars', pricePerCredit: 0.5, currency: 'usd' }] }), 201);
    const before = await snapshot();
    const replay = await m.expectOk<any[]>(publish({ effectiveFrom, entries: [{ denomination: 'stars', pricePerCredit: '0.500' }] }), 201);
    assert.deepEqual(replay.map((p) => p.id), [first[0].id]);
    for (const entry of [{ pricePerCredit: 0.6 }, { pricePerCredit: 0.5, currency: 'EUR' }]) {
      const res = await publish({ effectiveFrom, entries: [{ denomination: 'stars', ...entry }] });
      assert.equal(res.status, 409, res.text);
      assert.equal(res.body.error.code, 'conflict');
      assert.equal(res.body.error.message, `A different price book is already published at ${effectiveFrom} — pick another effective time`);
    }
    assert.deepEqual(await snapshot(), before, 'nothing changed');
  });

  test('when a scheduled price comes into effect then the client list shows it, paged, to tenant and customer keys', async () => {
    const t1 = future(HOUR);
    const t2 = future(2 * HOUR);
    await m.expectOk(publish({ effectiveFrom: t1, entries: [{ denomination: 'coins', pricePerCredit: 0.02 }, { denomination: 'pips', pricePerCredit: 0.03 }] }), 201);
    const next = (await m.expectOk<any[]>(publish({ effectiveFrom: t2, entries: [{ denomination: 'coins', pricePerCredit: 0.025 }] }), 201))[0];
    const clientPrices = async (key: string, query = '') => {
      const res = await svc.http.get(`/api/v1/client/credits/prices${query}`, { auth: key });
      assert.equal(res.status, 200, res.text);
      return res.body.data;
    };
    const mine = (page: any) => page.items.filter((p: any) => ['coins', 'pips'].includes(p.denomination)).map((p: any) => [p.denomination, p.pricePerCredit, p.status]);
    svc.clock.set(new Date(new Date(t1).getTime() - 1));
    assert.deepEqual(mine(await clientPrices(tenantKey)), [], 'scheduled rows are never shown');

    svc.clock.set(t1);
    assert.deepEqual(mine(await clientPrices(tenantKey)), [['coins', 0.02, 'CURRENT'], ['pips', 0.03, 'CURRENT']]);
    svc.clock.set(t2);
    const page = await clientPrices(customerKey);
    assert.deepEqual(mine(page), [['coins', 0.025, 'CURRENT'], ['pips', 0.03, 'CURRENT']]);
    assert.equal(page.items.filter((p: any) => p.denomination === 'coins').length, 1, 'one row per denomination');
    const total = page.pagination.total;
    assert.deepEqual(page.pagination, { total, limit: 50, offset: 0, hasMore: false });
    const second = await clientPrices(customerKey, '?limit=1&offset=1');
    assert.equal(second.items.length, 1);
    assert.deepEqual(second.pagination, { total, limit: 1, offset: 1, hasMore: total > 2 });
    assert.deepEqual((await clientPrices(theirKey)).items, [], "another account's book is not visible");

    const book = await m.expectOk<any[]>(m.admin('GET', '/credits/prices'));
    assert.deepEqual(book.filter((p) => p.denomination === 'coins').map((p) => [p.id, p.status]), [[next.id, 'CURRENT']]);
    const history = await m.expectOk<any[]>(m.admin('GET', '/credits/prices/history?denomination=coins'));
    assert.deepEqual(history.map((p) => [p.pricePerCredit, p.status]), [[0.025, 'CURRENT'], [0.02, 'SUPERSEDED']]);
    const missing = await m.admin('GET', '/credits/prices/history');
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.message, 'Missing required parameter: denomination');
  });

  test('when price rows are deleted then only scheduled ones go; effective is 400, foreign or unknown is 404', async () => {
    const soon = future(HOUR);
    const a = (await m.expectOk<any[]>(publish({ effectiveFrom: soon, entries: [{ denomination: 'gems', pricePerCredit: 1 }] }), 201))[0];
    const b = (await m.expectOk<any[]>(publish({ effectiveFrom: future(2 * HOUR), entries: [{ denomination: 'gems', pricePerCredit: 2 }] }), 201))[0];
    const theirs = (await m.expectOk<any[]>(publish({ effectiveFrom: future(HOUR), entries: [{ denomination: 'theirs', pricePerCredit: 2 }] }, other), 201))[0];
    assert.deepEqual((await m.admin('DELETE', `/credits/prices/${b.id}`)).body, { success: true });
    svc.clock.set(soon);
    const before = await snapshot();
    const effective = await m.admin('DELETE', `/credits/prices/${a.id}`);
    assert.equal(effective.status, 400);
    assert.equal(effective.body.error.message, 'Only scheduled rows (effectiveFrom in the future) can be deleted — effective rows are the settled tariff');
    for (const id of [theirs.id, MISSING]) assert.equal((await m.admin('DELETE', `/credits/prices/${id}`)).body.error.code, 'not_found');
    assert.deepEqual(await snapshot(), before, 'nothing changed');
  });

  test('when findPriceAt is called then the newest row at that instant answers, and unpriced is null', async () => {
    const [t1, t2] = [future(HOUR), future(2 * HOUR)];
    await m.expectOk(publish({ effectiveFrom: t1, entries: [{ denomination: 'pips', pricePerCredit: 0.1, currency: 'gbp' }] }), 201);
    await m.expectOk(publish({ effectiveFrom: t2, entries: [{ denomination: 'pips', pricePerCredit: 0.2 }] }), 201);
    const at = (iso: string, deltaMs = 0) => new Date(new Date(iso).getTime() + deltaMs);
    const price = async (denomination: string, when: Date) => {
      const p = await findPriceAt(svc.ctx.db, accountId, denomination, when);
      return p && [p.pricePerCredit.toFixed(), p.currency];
    };
    assert.deepEqual(await price('pips', at(t1)), ['0.1', 'GBP']);
    assert.deepEqual(await price('pips', at(t2, -1)), ['0.1', 'GBP']);
    assert.deepEqual(await price('pips', at(t2)), ['0.2', 'USD']);
    assert.equal(await price('nothing', at(t2)), null);
    assert.equal(await price('stars', new Date('2020-01-01T00:00:00Z')), null, 'before any row it is unpriced');
  });
});
