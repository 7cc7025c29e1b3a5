import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { snapshotTables } from '../../snapshot.js';

const TABLES = ['credit_pools', 'credit_grants', 'credit_transactions', 'credit_transaction_draws'] as const;

/** An account with a funded pool, a customer with a subscription, a usage event and an invoice. */
async function tenant(svc: TestService, tag: string) {
  const acct = await createTestAccount(svc);
  const m = monetization(svc, acct);
  const feature = await m.feature();
  const plan = await m.activePlan({ price: 5, features: [{ id: feature.id }] });
  const customer = await m.customer(`own-${tag}`);
  const sub = await m.subscribe(customer.customerReferenceId, plan.id);
  await m.markPaid(sub.invoice.id);
  const event = await m.event({ customerReferenceId: customer.customerReferenceId, featureKey: feature.key, usageUnits: 1, eventIdempotencyKey: `own-${tag}-1` });
  assert.equal(event.status, 201, event.text);
  await m.creditModel({ denomination: `own-${tag}` });
  const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: `own-${tag}`, denomination: `own-${tag}` }), 201);
  await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 100, grantType: 'MANUAL' }), 201);
  const deduction = await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: pool.id, amount: 1 }));
  return {
    m,
    token: acct.token,
    poolId: pool.id as string,
    subscriptionId: sub.subscription.id as string,
    // The Client API shows customers by reference; the internal id is what admin routes take.
    customerId: (await svc.ctx.db.selectFrom('customers').select('id').where('account_id', '=', acct.accountId).where('customer_reference_id', '=', customer.customerReferenceId).executeTakeFirstOrThrow()).id,
    eventId: event.body.data.eventId as string,
    invoiceId: sub.invoice.id as string,
    transactionId: deduction.id as string,
  };
}

describe("manual deductions, grants and reversals refuse another account's ids and non-positive amounts", () => {
  let svc: TestService;
  let a: Awaited<ReturnType<typeof tenant>>;
  let b: Awaited<ReturnType<typeof tenant>>;
  before(async () => {
    svc = await startTestService();
    a = await tenant(svc, 'a');
    b = await tenant(svc, 'b');
  });
  after(() => svc.close());

  async function expectRefused(res: { status: number; body: any; text: string }, status: number, code: string, label: string) {
    assert.equal(res.status, status, `${label}: ${res.text}`);
    assert.equal(res.body.success, false, label);
    assert.equal(res.body.error.code, code, label);
    assert.equal(typeof res.body.error.requestId, 'string', label);
  }

  test("when a deduction or grant names another account's subscription, customer, event or invoice then 404 and nothing is written", async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['/credits/deductions', { subscriptionId: b.subscriptionId }],
      ['/credits/deductions', { customerId: b.customerId }],
      ['/credits/deductions', { eventId: b.eventId }],
      ['/credits/deductions', { eventId: a.eventId, subscriptionId: b.subscriptionId }],
      ['/credits/grants', { grantType: 'MANUAL', subscriptionId: b.subscriptionId }],
      ['/credits/grants', { grantType: 'MANUAL', invoiceId: b.invoiceId }],
    ];
    const before = await snapshotTables(svc, TABLES);
    for (const [path, refs] of cases) {
      assert.ok(Object.values(refs).every((v) => typeof v === 'string'), JSON.stringify(refs));
      const res = await a.m.admin('POST', path, { creditPoolId: a.poolId, amount: 1, ...refs });
      await expectRefused(res, 404, 'not_found', `${path} ${JSON.stringify(refs)}`);
    }
    assert.deepEqual(await snapshotTables(svc, TABLES), before, 'no ledger row, grant or pool changed');
  });

  test("when a reversal names another account's transaction then 404 and it stays unreversed", async () => {
    const before = await snapshotTables(svc, TABLES);
    await expectRefused(await a.m.admin('POST', `/credits/transactions/${b.transactionId}/reverse`), 404, 'not_found', 'reverse theirs');
    assert.deepEqual(await snapshotTables(svc, TABLES), before);
    const reversed = await b.m.admin('POST', `/credits/transactions/${b.transactionId}/reverse`);
    assert.equal(reversed.status, 200, 'its owner can still reverse it');
  });

  test('when a deduction or grant amount is NaN, infinite, zero, negative or too precise then 400 and nothing is written', async () => {
    const bodies = ['"NaN"', 'NaN', '"Infinity"', '"-Infinity"', '1e309', '-1e309', '0', '-0', '-1', '"-0.5"', '0.0000001', '"1e-7"', 'null', '"abc"'];
    const before = await snapshotTables(svc, TABLES);
    for (const path of ['/credits/deductions', '/credits/grants']) {
      for (const amount of bodies) {
        const res = await svc.http.post(`/api/v1/monetization${path}`, {
          auth: a.token,
          rawBody: `{"creditPoolId":"${a.poolId}","grantType":"MANUAL","amount":${amount}}`,
          headers: { 'content-type': 'application/json' },
        });
        await expectRefused(res, 400, 'validation_failed', `${path} amount ${amount}`);
      }
    }
    assert.deepEqual(await snapshotTables(svc, TABLES), before);
  });

  test('when a deduction names its own subscription, customer and event then it is recorded with them', async () => {
    const res = await a.m.admin('POST', '/credits/deductions', {
      creditPoolId: a.poolId,
      amount: 2,
      subscriptionId: a.subscriptionId,
      customerId: a.customerId,
      eventId: a.eventId,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.amount, -2);
    const row = await svc.ctx.db.selectFrom('credit_transactions').select(['subscription_id', 'event_id']).where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { subscription_id: a.subscriptionId, event_id: a.eventId });
  });
});
