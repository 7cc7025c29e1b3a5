import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyPortalTopUp00000001';

/**
 * The portal offers only what works (issue 29 item 8): its own session read names the seller and
 * lists the pools a top-up can go through, which takes the purchase scope, a connected processor, a
 * pool that is not archived and a published price for the pool's denomination.
 */
describe('customer portal: top-up availability', () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let m: ReturnType<typeof monetization>;
  let accountName: string;
  let tokensPool: string;
  let pointsPool: string;

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    const account = await createTestAccount(svc);
    m = monetization(svc, account);
    accountName = (await svc.ctx.db.selectFrom('accounts').select('name').where('id', '=', account.accountId).executeTakeFirstOrThrow()).name;
    await m.creditModel({ denomination: 'tokens' });
    await m.creditModel({ denomination: 'points' });
    const customer = await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: 'acme', email: 'acme@example.com' }), 201);
    await m.customer('bob');
    const pool = async (name: string, denomination: string) => (await m.expectOk(m.admin('POST', '/credits/pools', { name, denomination, customerId: customer.id }), 201)).id as string;
    tokensPool = await pool('Tokens', 'tokens');
    pointsPool = await pool('Points', 'points');
  });
  after(() => close());

  /** The portal's own session read, through a fresh link of `acme`. */
  async function ownSession(body: Record<string, unknown> = { allowPurchase: true }) {
    const link = await m.expectOk(m.client('POST', '/customers/acme/portal-sessions', body), 201);
    const res = await svc.http.request('GET', '/api/v1/client/portal/session', { auth: link.token });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  }

  test('when neither a price nor a processor is set up then the session offers no top-up and names the seller', async () => {
    const session = await ownSession();
    assert.equal(session.allowPurchase, true);
    assert.deepEqual(session.topUpPools, []);
    assert.equal(session.operatorName, accountName);
  });

  test('when a price is published but no processor is connected then no top-up is offered', async () => {
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'tokens', pricePerCredit: '0.0125' }] }), 201);
    svc.clock.advanceMs(2000);
    assert.deepEqual((await ownSession()).topUpPools, []);
  });

  test("when a processor is connected then the pools with a published price are offered, at that price, and the others are not", async () => {
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
    const session = await ownSession();
    assert.deepEqual(session.topUpPools, [{ poolId: tokensPool, denomination: 'tokens', pricePerCredit: 0.0125, currency: 'USD' }]);
    assert.ok(!session.topUpPools.some((p: { poolId: string }) => p.poolId === pointsPool), 'points has no price');
    // What is offered goes through: a purchase for the offered pool reaches the processor (a hosted checkout, no saved card).
    const before = fake.requests.length;
    const bought = await m.client('POST', '/credits/purchases', { customerReferenceId: 'acme', creditPoolId: tokensPool, credits: 100 });
    assert.equal(bought.status, 402, bought.text);
    assert.match(bought.body.data.checkoutUrl, /^https?:\/\//);
    assert.ok(fake.requests.length > before);
  });

  test('when the link lacks the purchase scope then no top-up is offered, even where one would work', async () => {
    const session = await ownSession({});
    assert.equal(session.allowPurchase, false);
    assert.deepEqual(session.topUpPools, []);
    assert.equal(session.operatorName, accountName);
  });

  test('when the pool is archived then it is no longer offered', async () => {
    await svc.ctx.db.updateTable('credit_pools').set({ status: 'ARCHIVED' }).where('id', '=', tokensPool).execute();
    try {
      assert.deepEqual((await ownSession()).topUpPools, []);
    } finally {
      await svc.ctx.db.updateTable('credit_pools').set({ status: 'ACTIVE' }).where('id', '=', tokensPool).execute();
    }
  });

  test('when the processor mode is set back to NONE then no top-up is offered, though the key stays stored', async () => {
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { stripeMode: 'NONE' }));
    try {
      assert.deepEqual((await ownSession()).topUpPools, []);
    } finally {
      await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { stripeMode: 'PAYMENT_PASS_THROUGH' }));
    }
    assert.equal((await ownSession()).topUpPools.length, 1);
  });

  test('when sessions are opened, listed or revoked with the tenant key then their shape is unchanged (no portal-only fields)', async () => {
    const created = await m.expectOk(m.client('POST', '/customers/acme/portal-sessions', { allowPurchase: true }), 201);
    const listed = (await m.expectOk(m.client('GET', '/customers/acme/portal-sessions'))).items[0];
    const revoked = await m.expectOk(m.client('DELETE', `/customers/acme/portal-sessions/${created.id}`));
    for (const view of [created, listed, revoked]) {
      assert.equal(view.topUpPools, undefined);
      assert.equal(view.operatorName, undefined);
    }
    // Another customer's link sees only its own pools: bob has none.
    const bob = await m.expectOk(m.client('POST', '/customers/bob/portal-sessions', { allowPurchase: true }), 201);
    const res = await svc.http.request('GET', '/api/v1/client/portal/session', { auth: bob.token });
    assert.deepEqual(res.body.data.topUpPools, []);
  });
});
