import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/** The console overview's admin reads: GET /billing/overview, GET /tanso/events/overview and GET /tanso/events/grouped. */
describe('overview figures (admin)', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let featureKey: string;
  before(async () => {
    svc = await startTestService({ now: '2026-03-10T12:00:00Z' });
    const account = await createTestAccount(svc);
    m = monetization(svc, account);
    const feature = await m.feature();
    featureKey = feature.key;
    const monthly = await m.activePlan({ price: '30', features: [{ id: feature.id }] });
    const yearly = await m.activePlan({ price: '100', intervalMonths: 12, features: [{ id: feature.id }] });
    for (const [ref, plan] of [['a', monthly], ['b', monthly], ['c', yearly]] as const) {
      await m.customer(ref);
      await m.subscribe(ref, plan.id);
    }
    // Paid in advance: a subscription bills once its first invoice is paid; b's stays DUE.
    for (const ref of ['a', 'c']) await m.markPaid((await m.invoices(ref)).items[0].id);
    for (const [ref, day, units] of [['a', '2026-03-08', 2], ['a', '2026-03-09', 3], ['b', '2026-03-09', 1]] as const) {
      const res = await m.event({ customerReferenceId: ref, featureKey, usageUnits: units, occurredAt: `${day}T10:00:00Z`, eventIdempotencyKey: `${ref}-${day}` });
      assert.ok(res.status < 300, res.text);
    }
  });
  after(() => svc.close());

  test('when the billing overview is read then subscriptions that bill, MRR per currency and past-due invoices are exact', async () => {
    const overview = await m.expectOk(m.admin('GET', '/billing/overview'));
    assert.equal(overview.asOf, '2026-03-10T12:00:00.000Z');
    assert.equal(overview.activeSubscriptions, 2);
    // 30 + 100/12 = 38.333333 (6 places)
    assert.deepEqual(overview.mrr, [{ currency: 'USD', amount: 38.333333, subscriptions: 2 }]);
    assert.deepEqual(overview.pastDueInvoices, []);
    svc.clock.set(new Date('2026-04-01T00:00:00Z'));
    const later = await m.expectOk(m.admin('GET', '/billing/overview'));
    assert.deepEqual(later.pastDueInvoices, [{ currency: 'USD', amount: 30, invoices: 1 }], "b's unpaid invoice is past due after its due date");
    svc.clock.set(new Date('2026-03-10T12:00:00Z'));
  });

  test('when an invoice was raised seconds ago then it is not past due; only once its due date plus grace has passed (issue 32)', async () => {
    const pastDueAt = async (iso: string) => {
      svc.clock.set(new Date(iso));
      return (await m.expectOk(m.admin('GET', '/billing/overview'))).pastDueInvoices;
    };
    try {
      // b's invoice is due at subscribe (2026-03-10T12:00Z) with the default 3 days of grace.
      assert.deepEqual(await pastDueAt('2026-03-10T12:00:05Z'), [], 'seconds after it was raised');
      assert.deepEqual(await pastDueAt('2026-03-13T12:00:00Z'), [], 'on the last instant of the grace period');
      assert.deepEqual(await pastDueAt('2026-03-13T12:00:01Z'), [{ currency: 'USD', amount: 30, invoices: 1 }]);
    } finally {
      svc.clock.set(new Date('2026-03-10T12:00:00Z'));
    }
  });

  test('when events are grouped per day, feature and customer then counts and units are summed exactly', async () => {
    const byDay = await m.expectOk(m.api('GET', '/api/v1/tanso/events/grouped?groupBy=day&eventType=CLIENT_TRACKED'));
    assert.deepEqual(
      byDay.items.map((i: any) => [i.key, i.eventCount, i.usageUnits]),
      [['2026-03-08', 1, 2], ['2026-03-09', 2, 4]],
    );
    assert.equal(byDay.truncated, false);
    const byCustomer = await m.expectOk(m.api('GET', '/api/v1/tanso/events/grouped?groupBy=customer&eventType=CLIENT_TRACKED'));
    assert.deepEqual(byCustomer.items.map((i: any) => [i.key, i.usageUnits]), [['a', 5], ['b', 1]]);
    const byFeature = await m.expectOk(m.api('GET', `/api/v1/tanso/events/grouped?groupBy=feature&from=2026-03-09T00:00:00Z`));
    assert.deepEqual(byFeature.items.map((i: any) => i.key), [featureKey]);
  });

  test('when the events overview is read then every day of the window is listed (zeros too) with the top features and customers, exact', async () => {
    const three = await m.expectOk(m.api('GET', '/api/v1/tanso/events/overview?days=3&eventType=CLIENT_TRACKED'));
    assert.equal(three.from, '2026-03-08T00:00:00.000Z');
    assert.equal(three.to, '2026-03-11T00:00:00.000Z', 'the window ends with the service clock\'s UTC day');
    // Revenue at 0.002 a unit: b's subscription does not bill yet (its first invoice is DUE), so its unit earns nothing.
    assert.deepEqual(
      three.days.map((d: any) => [d.day, d.eventCount, d.usageUnits, d.revenueAmount]),
      [['2026-03-08', 1, 2, 0.004], ['2026-03-09', 2, 4, 0.006], ['2026-03-10', 0, 0, 0]],
    );
    assert.deepEqual(three.topFeatures.map((f: any) => [f.key, f.eventCount, f.usageUnits]), [[featureKey, 3, 6]]);
    assert.deepEqual(three.topCustomers.map((c: any) => [c.key, c.eventCount, c.usageUnits]), [['a', 2, 5], ['b', 1, 1]]);
    // Two days leave out 03-08: a and b tie on one event each and are listed by reference.
    const two = await m.expectOk(m.api('GET', '/api/v1/tanso/events/overview?days=2&top=1'));
    assert.deepEqual(two.days.map((d: any) => [d.day, d.eventCount]), [['2026-03-09', 2], ['2026-03-10', 0]]);
    assert.deepEqual(two.topCustomers.map((c: any) => [c.key, c.usageUnits]), [['a', 3]]);
    const checks = await m.expectOk(m.api('GET', '/api/v1/tanso/events/overview?eventType=ENTITLEMENT_CHECKED'));
    assert.equal(checks.days.length, 30);
    assert.equal(checks.days.reduce((n: number, d: any) => n + d.eventCount, 0), 0);
    assert.deepEqual(checks.topCustomers, []);
  });

  test('when the events overview is asked for 0 or 367 days or top 0 then 400 validation_failed; without a JWT 401', async () => {
    for (const query of ['days=0', 'days=367', 'days=x', 'top=0', 'eventType=OTHER']) {
      const res = await m.api('GET', `/api/v1/tanso/events/overview?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, 'validation_failed', query);
    }
    assert.equal((await svc.http.get('/api/v1/tanso/events/overview')).status, 401);
  });

  test('when an operator reads a customer usage report then it is the Client API report', async () => {
    const admin = await m.expectOk(m.api('GET', '/api/v1/tanso/customers/a/usage'));
    const client = await m.expectOk(m.client('GET', '/customers/a/usage'));
    assert.deepEqual(admin, client);
    assert.equal(admin.subscriptions.length, 1);
    assert.equal((await m.api('GET', '/api/v1/tanso/customers/nobody/usage')).status, 404);
  });

  test('when groupBy is missing or unknown then 400 validation_failed; without a JWT 401', async () => {
    assert.equal((await m.api('GET', '/api/v1/tanso/events/grouped')).status, 400);
    assert.equal((await m.api('GET', '/api/v1/tanso/events/grouped?groupBy=planet')).body.error.code, 'validation_failed');
    assert.equal((await svc.http.get('/api/v1/monetization/billing/overview')).status, 401);
  });
});
