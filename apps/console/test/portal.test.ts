import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { StripeFake } from '../../../packages/server/test/fakes/stripe/server.js';
import { connectStripe } from '../../../packages/server/test/fakes/stripe/with-service.js';
import { openConsole, type ConsoleSession } from './browser.js';

const STRIPE_KEY = 'sk_test_tallyPortalAccount00001';

/**
 * The customer portal (issue 18 item 6, ADR 0025): an operator opens a link with the tenant key,
 * the customer sees the balance and burndown the operator sees, tops up against the Stripe fake
 * with the saved card and sees the grant, and an expired or revoked link is refused.
 */
describe('customer portal (browser)', () => {
  let c: ConsoleSession;
  let fake: StripeFake;
  let m: ReturnType<typeof monetization>;
  const openLink = async (body: Record<string, unknown>) => m.expectOk(m.client('POST', '/customers/acme/portal-sessions', body), 201);

  before(async () => {
    const started: { c?: ConsoleSession } = {};
    fake = await StripeFake.start({ now: () => started.c!.svc.clock.now() });
    c = await openConsole({ env: { APP_STRIPE_API_BASE: fake.baseUrl, APP_STRIPE_MAX_NETWORK_RETRIES: '0' } });
    started.c = c;
    m = monetization(c.svc, c.account);
    const feature = await m.feature({ key: 'chat' });
    const plan = await m.activePlan({ price: '25', features: [{ id: feature.id }], key: 'starter' });
    const customer = await m.customer('acme');
    await m.subscribe('acme', plan.id);
    await m.creditModel({ denomination: 'tokens' });
    const adminCustomer = (await m.expectOk<{ id: string; customerReferenceId: string }[]>(m.admin('GET', '/customers'))).find((x) => x.customerReferenceId === customer.customerReferenceId)!;
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'Main pool', denomination: 'tokens', customerId: adminCustomer.id }), 201);
    await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 100, grantType: 'MANUAL', expiresAt: '2026-12-31T00:00:00Z' }), 201);
    await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: pool.id, amount: '12.5', description: 'support call' }));
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(c.svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'tokens', pricePerCredit: '0.01' }] }), 201);
    c.svc.clock.advanceMs(2000);
    // The customer's saved card, for the portal's off-session top-up.
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
    const intent = await m.expectOk(m.client('POST', '/customers/acme/payment-methods/setup-intent'));
    fake.confirmSetupIntent(STRIPE_KEY, intent.setup_intent_id);
    await fake.deliverWebhooks();
    await c.signIn();
  });
  after(async () => {
    await c.close();
    await fake.close();
  });

  /** The burndown's day-by-day figures, from the chart's table for screen readers. */
  const burndownTable = async (pool: ReturnType<ConsoleSession['page']['getByRole']>) => (await pool.getByRole('table', { name: 'Burndown' }).textContent()) ?? '';

  test("when the customer opens the portal link then it shows the operator's balance, depletion and burndown, with the token gone from the address bar", async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('link', { name: 'acme' }).click();
    const operatorPool = page.getByRole('article', { name: 'Pool Main pool' });
    await operatorPool.getByRole('figure', { name: 'Burndown' }).locator('canvas').waitFor();
    const operator = {
      balance: await operatorPool.getByTestId('pool-balance').innerText(),
      depletion: await operatorPool.getByTestId('pool-depletion').innerText(),
      burndown: await burndownTable(operatorPool),
    };
    assert.equal(operator.balance, '87.5 tokens');
    assert.match(operator.burndown, /87\.5/);

    const link = await openLink({ allowPurchase: true, returnUrl: 'https://app.example/account' });
    assert.match(link.url, /\/portal#token=pt_test_/);
    await page.goto(link.url);
    await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    assert.ok(!page.url().includes('token'), `the token left the address bar: ${page.url()}`);
    const pool = page.getByRole('article', { name: 'Pool Main pool' });
    await pool.getByRole('figure', { name: 'Burndown' }).locator('canvas').waitFor();
    assert.equal(await pool.getByTestId('pool-balance').innerText(), operator.balance);
    assert.equal(await pool.getByTestId('pool-depletion').innerText(), operator.depletion);
    assert.equal(await burndownTable(pool), operator.burndown);
    assert.match(await page.getByRole('table', { name: 'Plan' }).innerText(), /Plan starter\s+PENDING_PAYMENT/);
    assert.match(await page.getByRole('table', { name: 'Invoices' }).innerText(), /\$25\.00[\s\S]*DUE/);
    // The subscription waits for its first invoice: no active subscription to meter yet.
    await page.getByText('No active subscription with metered features.').waitFor();
    assert.match(await pool.getByRole('table', { name: 'Recent activity of Main pool' }).innerText(), /-12\.5\s+87\.5\s+support call/);
    assert.equal(await page.getByRole('link', { name: 'Back' }).getAttribute('href'), 'https://app.example/account');
    await c.screenshot('portal');
  });

  test('when the customer tops up then the saved card is charged at the Stripe fake and the grant raises the balance', async () => {
    const { page } = c;
    const form = page.getByRole('form', { name: 'Top up' });
    await form.getByLabel('Credits').fill('100');
    await form.getByRole('button', { name: 'Buy credits' }).click();
    await page.getByRole('status').filter({ hasText: 'Bought 100 credits for $1.00' }).waitFor();
    const pool = page.getByRole('article', { name: 'Pool Main pool' });
    await pool.getByTestId('pool-balance').filter({ hasText: '187.5 tokens' }).waitFor();
    // The activity table refetches on its own: the grant's row may land a moment after the balance.
    await page.waitForFunction(() => /GRANT\s+100\s+187\.5/.test((document.querySelector('table[aria-label="Recent activity of Main pool"] tbody tr') as HTMLElement | null)?.innerText ?? ''));
    assert.match(await pool.getByRole('table', { name: 'Recent activity of Main pool' }).locator('tbody tr').first().innerText(), /GRANT\s+100\s+187\.5/);
    assert.equal(fake.list(STRIPE_KEY, 'payment_intent').filter((p) => p.status === 'succeeded' && p.amount === 100).length, 1);
    const grants = await m.expectOk<{ grantType: string; amount: number }[]>(m.admin('GET', `/credits/pools/${await poolId()}/grants`));
    assert.equal(grants.filter((g) => g.grantType === 'PURCHASED').length, 1);

    await form.getByLabel('Credits').fill('0.000001');
    await form.getByRole('button', { name: 'Buy credits' }).click();
    const error = form.getByRole('alert');
    await error.waitFor();
    assert.match(await error.innerText(), /below the 0\.50 payment minimum[\s\S]*requestId [0-9a-f-]{36}/);
    await c.screenshot('portal-top-up');
  });

  test('when the link is revoked, or another one has expired, then the portal says the link expired or was revoked', async () => {
    const { page } = c;
    const revoked = await openLink({});
    await m.expectOk(m.client('DELETE', `/customers/acme/portal-sessions/${revoked.id}`));
    await page.goto(revoked.url);
    await page.getByRole('heading', { name: 'Link expired or revoked' }).waitFor();
    assert.equal(await page.getByRole('article').count(), 0, 'no account data on the page');

    const shortLived = await openLink({ expiresInSeconds: 60 });
    c.svc.clock.advanceMs(61_000);
    await page.goto(shortLived.url);
    await page.getByRole('heading', { name: 'Link expired or revoked' }).waitFor();
    await c.screenshot('portal-link-expired');

    await page.goto('/portal');
    await page.getByRole('heading', { name: 'Link expired or revoked' }).waitFor();
  });

  async function poolId(): Promise<string> {
    const pools = await m.expectOk<{ items: { id: string }[] }>(m.client('GET', '/credits/acme/pools'));
    return pools.items[0]!.id;
  }
});
