import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyCheckoutList0001';
const LIST = '/api/v1/data/stripe/checkout-sessions';

/** The console's list of hosted checkouts (Admin API), against the Stripe fake. */
describe('checkout sessions on the Admin API (console, issue 18)', () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  const ids: Record<string, string> = {};

  type Page = { items: { id: string; customerReferenceId: string; status: string; purpose: string; amount: number | null; currency: string | null; credits: number | null; checkoutUrl: string | null }[]; pagination: { total: number; limit: number; offset: number; hasMore: boolean } };
  const list = (query = '') => m.expectOk<Page>(m.api('GET', `${LIST}${query}`));

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
    await m.creditModel({ denomination: 'credits' });
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'credits', pricePerCredit: '0.01' }] }), 201);
    svc.clock.advanceMs(2000);
    const pools: Record<string, string> = {};
    for (const ref of ['buyer-a', 'buyer-b']) {
      const customer = await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: ref, email: `${ref}@example.com` }), 201);
      pools[ref] = (await m.expectOk(m.admin('POST', '/credits/pools', { name: `wallet ${ref}`, denomination: 'credits', customerId: customer.id }), 201)).id;
    }
    // No saved card: each purchase opens a hosted checkout (402). One a second, so newest first is well defined.
    for (const [name, ref, credits] of [['a1', 'buyer-a', '100'], ['b1', 'buyer-b', '250'], ['a2', 'buyer-a', '1250']] as const) {
      const res = await m.client('POST', '/credits/purchases', { customerReferenceId: ref, creditPoolId: pools[ref], credits });
      assert.equal(res.status, 402, res.text);
      ids[name] = res.body.data.checkoutSessionId;
      svc.clock.advanceMs(1000);
    }
    const session = fake.list(STRIPE_KEY, 'checkout.session').find((s) => (s.metadata as Record<string, string>).tally_checkout_session_id === ids.b1);
    fake.completeCheckout(STRIPE_KEY, session!.id as string);
    const deliveries = await fake.deliverWebhooks();
    assert.ok(deliveries.every((d) => d.status === 201), JSON.stringify(deliveries));
  });
  after(() => close());

  test('when no JWT (or a tenant key) is sent then 401', async () => {
    for (const auth of [undefined, acct.apiKey]) {
      const res = await svc.http.request('GET', LIST, auth ? { auth } : {});
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'unauthorized');
    }
  });

  test('when listed then newest first with the customer, purpose, status, amount, currency, credits and the hosted page', async () => {
    const page = await list();
    assert.deepEqual(page.items.map((s) => s.id), [ids.a2, ids.b1, ids.a1]);
    assert.deepEqual(page.pagination, { total: 3, limit: 50, offset: 0, hasMore: false });
    const [a2, b1] = page.items;
    assert.deepEqual(
      { ref: a2!.customerReferenceId, purpose: a2!.purpose, status: a2!.status, amount: a2!.amount, currency: a2!.currency, credits: a2!.credits },
      { ref: 'buyer-a', purpose: 'CREDIT_TOPUP', status: 'PENDING', amount: 12.5, currency: 'USD', credits: 1250 },
    );
    assert.match(a2!.checkoutUrl!, /\/c\/pay\/cs_test_/);
    assert.equal(b1!.status, 'COMPLETED');
  });

  test('when filtered by customer, status or purpose then only those match, and the total counts them', async () => {
    assert.deepEqual((await list('?customerReferenceId=buyer-a')).items.map((s) => s.id), [ids.a2, ids.a1]);
    const completed = await list('?status=COMPLETED');
    assert.deepEqual(completed.items.map((s) => s.id), [ids.b1]);
    assert.equal(completed.pagination.total, 1);
    assert.equal((await list('?status=PENDING&customerReferenceId=buyer-b')).pagination.total, 0);
    assert.equal((await list('?purpose=SUBSCRIPTION')).pagination.total, 0);
    assert.equal((await list('?customerReferenceId=nobody')).pagination.total, 0);
  });

  test('when paged then each page holds the next sessions and hasMore says whether more follow', async () => {
    const first = await list('?limit=2');
    assert.deepEqual(first.items.map((s) => s.id), [ids.a2, ids.b1]);
    assert.deepEqual(first.pagination, { total: 3, limit: 2, offset: 0, hasMore: true });
    const rest = await list('?limit=2&offset=2');
    assert.deepEqual(rest.items.map((s) => s.id), [ids.a1]);
    assert.equal(rest.pagination.hasMore, false);
  });

  test('when a filter or page value is bad then 400 validation_failed', async () => {
    for (const query of ['?status=OPEN', '?purpose=refund', '?limit=0', '?offset=-1', '?limit=abc', `?customerReferenceId=${'x'.repeat(256)}`]) {
      const res = await m.api('GET', `${LIST}${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
    }
  });

  test("when another account's operator lists then none of these sessions show", async () => {
    const other = await createTestAccount(svc);
    const res = await svc.http.request('GET', LIST, { auth: other.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.pagination.total, 0);
  });
});
