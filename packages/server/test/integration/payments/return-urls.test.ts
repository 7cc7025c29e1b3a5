import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_returnurls00001';

/** Where a hosted checkout returns (api-contract-agent-v2.md §5.6): our return pages unless the account set URLs. */
describe('hosted checkout return URLs', () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let m: ReturnType<typeof monetization>;
  let poolId: string;
  const ref = 'buyer';

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    m = monetization(svc, await createTestAccount(svc));
    await m.creditModel({ denomination: 'credits' });
    const customer = await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: ref, email: 'buyer@example.com' }), 201);
    poolId = (await m.expectOk(m.admin('POST', '/credits/pools', { name: 'wallet', denomination: 'credits', customerId: customer.id }), 201)).id;
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'credits', pricePerCredit: '0.01' }] }), 201);
    svc.clock.advanceMs(2000);
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
  });
  after(() => close());

  const openCheckout = async () => {
    const res = await m.client('POST', '/credits/purchases', { customerReferenceId: ref, creditPoolId: poolId, credits: 100 });
    assert.equal(res.status, 402, res.text);
    return fake.list(STRIPE_KEY, 'checkout.session').at(-1)!;
  };

  test('when the account set no return URLs then a payment checkout returns to complete?kind=payment or cancelled, and both pages answer', async () => {
    const session = await openCheckout();
    assert.equal(session.success_url, `${svc.baseUrl}/public/checkout/complete?kind=payment`);
    assert.equal(session.cancel_url, `${svc.baseUrl}/public/checkout/cancelled`);
    for (const url of [session.success_url, session.cancel_url] as string[]) assert.equal((await fetch(url)).status, 200, url);
  });

  test('when the account set its URLs then they win', async () => {
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { stripeCheckoutSuccessUrl: 'https://shop.example/ok', stripeCheckoutCancelUrl: 'https://shop.example/no' }));
    const session = await openCheckout();
    assert.deepEqual([session.success_url, session.cancel_url], ['https://shop.example/ok', 'https://shop.example/no']);
  });
});
