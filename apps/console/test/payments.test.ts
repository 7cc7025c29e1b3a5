import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StripeFake } from '../../../packages/server/test/fakes/stripe/server.js';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

const STRIPE_KEY = 'sk_test_tallyConsolePayments01';

/** The payments page against the Stripe fake of the payments tests. */
describe('console: payments (browser)', () => {
  let c: ConsoleSession;
  let fake: StripeFake;
  let m: ReturnType<typeof monetization>;

  before(async () => {
    const started: { c?: ConsoleSession } = {};
    fake = await StripeFake.start({ now: () => started.c!.svc.clock.now() });
    c = await openConsole({ env: { APP_STRIPE_API_BASE: fake.baseUrl, APP_STRIPE_MAX_NETWORK_RETRIES: '0' } });
    started.c = c;
    m = monetization(c.svc, c.account);
    await c.signIn();
  });
  after(async () => {
    await c.close();
    await fake.close();
  });

  test('when a return URL is invalid its message shows under the field; a valid mode and URL save and enable the processor', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Payments' }).click();
    assert.equal(await page.getByTestId('stripe-enabled').innerText(), 'disabled');
    const form = page.getByRole('form', { name: 'Processor settings' });
    await form.getByLabel('Processor mode').selectOption('PAYMENT_PASS_THROUGH');
    await form.getByLabel('Return URL after a paid checkout').fill('not a url');
    await form.getByRole('button', { name: 'Save processor settings' }).click();
    const inline = form.locator('label', { hasText: 'Return URL after a paid checkout' }).getByRole('alert');
    await inline.waitFor();
    assert.ok((await inline.innerText()).length > 0);
    assert.equal(await page.getByTestId('stripe-mode').innerText(), 'NONE', 'nothing saved');

    await form.getByLabel('Return URL after a paid checkout').fill('https://shop.example/thanks');
    await form.getByRole('button', { name: 'Save processor settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.equal(await page.getByTestId('stripe-mode').innerText(), 'PAYMENT_PASS_THROUGH');
    assert.equal(await page.getByTestId('stripe-enabled').innerText(), 'enabled');
  });

  test('when a malformed key is stored its message shows inline; a test key connects in test mode', async () => {
    const { page } = c;
    const form = page.getByRole('form', { name: 'Processor key' });
    const input = form.getByLabel(/Stripe secret key/);
    await input.fill('pk_test_not-a-secret');
    await form.getByRole('button', { name: 'Store key' }).click();
    const inline = form.locator('label').getByRole('alert');
    await inline.waitFor();
    assert.match(await inline.innerText(), /Stripe secret or restricted key/);
    assert.match(await page.getByTestId('stripe-connection').innerText(), /Not connected/);

    await input.fill(STRIPE_KEY);
    await form.getByRole('button', { name: 'Store key' }).click();
    await page.getByTestId('stripe-key-mode').waitFor();
    assert.equal(await page.getByTestId('stripe-key-mode').innerText(), 'test');
    assert.match(await page.getByTestId('stripe-connection').innerText(), /sk_t\*{12}ts01/);
  });

  test('when customers buy credits through hosted checkouts then the sessions list newest first and filter by customer and status', async () => {
    const { page } = c;
    await m.expectOk(m.api('POST', '/api/v1/data/stripe/webhook/register'), 201);
    await m.creditModel({ denomination: 'credits' });
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(c.svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'credits', pricePerCredit: '0.01' }] }), 201);
    c.svc.clock.advanceMs(2000);
    const sessions: Record<string, string> = {};
    for (const [ref, credits] of [['ann', '100'], ['bob', '2550']] as const) {
      const customer = await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: ref, email: `${ref}@example.com` }), 201);
      const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: `wallet ${ref}`, denomination: 'credits', customerId: customer.id }), 201);
      const res = await m.client('POST', '/credits/purchases', { customerReferenceId: ref, creditPoolId: pool.id, credits });
      assert.equal(res.status, 402, res.text);
      sessions[ref] = res.body.data.checkoutSessionId;
      c.svc.clock.advanceMs(1000);
    }
    const annSession = fake.list(STRIPE_KEY, 'checkout.session').find((s) => (s.metadata as Record<string, string>).tally_checkout_session_id === sessions.ann);
    fake.completeCheckout(STRIPE_KEY, annSession!.id as string);
    assert.ok((await fake.deliverWebhooks()).every((d) => d.status === 201));

    await page.reload();
    await c.signIn();
    await page.getByRole('link', { name: 'Payments' }).click();
    const table = page.getByRole('table', { name: 'Checkout sessions' });
    await table.waitFor();
    const rows = await table.locator('tbody tr').allInnerTexts();
    assert.equal(rows.length, 2);
    assert.match(rows[0]!, /bob\s+CREDIT_TOPUP\s+\$25\.50\s+2,550\s+PENDING\s+open/);
    assert.match(rows[1]!, /ann\s+CREDIT_TOPUP\s+\$1\.00\s+100\s+COMPLETED/);
    assert.equal(await page.getByTestId('checkout-page').innerText(), '1–2 of 2');

    const filters = page.getByRole('form', { name: 'Checkout filters' });
    await filters.getByLabel('Status').selectOption('COMPLETED');
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Checkout sessions"] tbody tr').length === 1);
    assert.match(await table.innerText(), /ann[\s\S]*COMPLETED/);

    await filters.getByLabel('Status').selectOption('');
    await filters.getByLabel('Customer reference').fill('nobody');
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No checkout session matches these filters.').waitFor();
    await c.screenshot('payments');
  });
});
