import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { StripeFake } from '../../../packages/server/test/fakes/stripe/server.js';
import { connectStripe } from '../../../packages/server/test/fakes/stripe/with-service.js';
import { openConsole, type ConsoleSession } from './browser.js';

const STRIPE_KEY = 'sk_test_tallyPortalActions00001';

/**
 * A customer portal that acts (issue 34 §3, ADR 0038): the link's flags decide what the page
 * offers; a plan change shows the proration the API computes before it is confirmed; cancel at the
 * end of the period and its undo; a card added on the processor's hosted page (the Stripe fake).
 */
describe('customer portal actions (browser)', () => {
  let c: ConsoleSession;
  let fake: StripeFake;
  let m: ReturnType<typeof monetization>;
  let basicPlanId: string;
  const openLink = async (body: Record<string, unknown>) => m.expectOk(m.client('POST', '/customers/acme/portal-sessions', body), 201);

  before(async () => {
    const started: { c?: ConsoleSession } = {};
    fake = await StripeFake.start({ now: () => started.c!.svc.clock.now() });
    c = await openConsole({ env: { APP_STRIPE_API_BASE: fake.baseUrl, APP_STRIPE_MAX_NETWORK_RETRIES: '0' } });
    started.c = c;
    m = monetization(c.svc, c.account);
    const feature = await m.feature({ key: 'chat' });
    const basic = await m.activePlan({ price: '10', features: [{ id: feature.id }], key: 'basic' });
    basicPlanId = basic.id;
    await m.activePlan({ price: '40', features: [{ id: feature.id }], key: 'pro' });
    await m.customer('acme');
    await m.subscribe('acme', basic.id);
    await m.markPaid((await m.invoices('acme')).items[0].id);
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
    await m.creditModel({ denomination: 'tokens' });
    const customer = (await m.expectOk<{ id: string; customerReferenceId: string }[]>(m.admin('GET', '/customers'))).find((x) => x.customerReferenceId === 'acme')!;
    await m.expectOk(m.admin('POST', '/credits/pools', { name: 'Wallet', denomination: 'tokens', customerId: customer.id }), 201);
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(c.svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'tokens', pricePerCredit: '0.01' }] }), 201);
    c.svc.clock.advanceMs(2000);
  });
  after(async () => {
    await c.close();
    await fake.close();
  });

  test('when the link reads only then the page offers no plan change, cancel, card or auto top-up', async () => {
    const { page } = c;
    await page.goto((await openLink({})).url);
    await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Plan' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Change to|Cancel at the end|Add card|Replace card/ }).count(), 0);
    assert.equal(await page.getByRole('heading', { name: 'Payment method' }).count(), 0);
  });

  // With a processor connected and no card saved, a paid upgrade waits for its payment (agent v2
  // §4.8): the page goes to the hosted invoice, and the plan moves once that is paid.
  test('when the link allows plan changes then the proration is shown before confirming, the upgrade goes to the hosted invoice, and once paid the plan changes', async () => {
    const { page } = c;
    const link = await openLink({ allowPlanChange: true });
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Change to Plan pro' }).click();
    const preview = page.getByRole('region', { name: 'Plan change preview' });
    await preview.getByText(/Charged now for the rest of this period: \$\d+\.\d\d/).waitFor();
    const shown = await preview.innerText();
    const leaving = page.waitForURL(new RegExp(`^${fake.baseUrl}/i/in_`));
    await preview.getByRole('button', { name: 'Confirm the change' }).click();
    await leaving;
    const hostedId = new URL(page.url()).pathname.split('/').at(-1)!;
    const adjustment = (await m.invoices('acme')).items.find((i: { type: string }) => i.type === 'ADJUSTMENT');
    assert.ok(adjustment, 'the upgrade raised its adjustment invoice');
    assert.ok(shown.includes(`$${Number(adjustment.amount).toFixed(2)}`), `preview "${shown}" showed the charged ${adjustment.amount}`);
    assert.equal((await m.expectOk(m.client('GET', '/customers/acme'))).subscriptions[0].plan.id, basicPlanId, 'the plan waits for the payment');
    fake.payInvoice(STRIPE_KEY, hostedId);
    await fake.deliverWebhooks();
    await page.goto(link.url);
    await page.getByRole('table', { name: 'Plan' }).filter({ hasText: 'Plan pro' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Cancel at the end/ }).count(), 0, 'no cancel without allowCancel');
  });

  test('when the link allows cancelling then the customer cancels at the end of the period and undoes it', async () => {
    const { page } = c;
    await page.goto((await openLink({ allowCancel: true })).url);
    await page.getByRole('button', { name: 'Cancel at the end of the period' }).click();
    await page.getByRole('button', { name: 'Keep my plan' }).waitFor();
    assert.equal((await m.expectOk(m.client('GET', '/customers/acme'))).subscriptions[0].status, 'CANCEL_SCHEDULED');
    await page.getByRole('button', { name: 'Keep my plan' }).click();
    await page.getByRole('button', { name: 'Cancel at the end of the period' }).waitFor();
    assert.equal((await m.expectOk(m.client('GET', '/customers/acme'))).subscriptions[0].status, 'ACTIVE');
  });

  test('when the customer opens an invoice PDF then the document opens in a new tab from the portal token', async (t) => {
    if (!c.svc.app.routeTable.some((r) => r.url === '/api/v1/client/billing/invoices/:invoiceId/pdf')) {
      t.skip('the invoice PDF route is not built yet');
      return;
    }
    const { page } = c;
    await page.goto((await openLink({})).url);
    const invoices = page.getByRole('table', { name: 'Invoices' });
    await invoices.waitFor();
    const invoiceId = (await m.invoices('acme')).items[0].id as string;
    const popup = page.waitForEvent('popup');
    await invoices.getByRole('button', { name: `PDF of invoice ${invoiceId}` }).click();
    const tab = await popup;
    await tab.waitForURL(/^blob:/);
    assert.equal(await page.getByRole('alert').count(), 0);
  });

  test('when the customer adds a card then the page goes to the hosted setup checkout, and once completed shows the card', async () => {
    const { page } = c;
    const link = await openLink({ allowAutoTopup: true });
    await page.goto(link.url);
    await page.getByTestId('saved-card').filter({ hasText: 'No card saved.' }).waitFor();
    const leaving = page.waitForURL(/\/c\/pay\/cs_test_/);
    await page.getByRole('button', { name: 'Add card' }).click();
    await leaving;
    const [session] = fake.list(STRIPE_KEY, 'checkout.session').filter((s) => s.mode === 'setup');
    fake.completeCheckout(STRIPE_KEY, session!.id);
    await fake.deliverWebhooks();
    await page.goto(link.url);
    await page.getByTestId('saved-card').filter({ hasText: 'visa ending 4242, expires 12/2034' }).waitFor();
    await page.getByRole('button', { name: 'Replace card' }).waitFor();
  });

  // After the card test: an enabled rule needs the saved default payment method.
  test('when the link allows auto top-up then the customer sets a rule for a pool, sees its state and removes it', async () => {
    const { page } = c;
    await page.goto((await openLink({ allowAutoTopup: true })).url);
    const form = page.getByRole('form', { name: 'Auto top-up of Wallet' });
    await form.getByLabel('When the balance falls below').fill('10');
    await form.getByLabel('Buy credits').fill('1000');
    await form.getByRole('button', { name: 'Save auto top-up' }).click();
    const state = page.getByTestId('auto-topup-state');
    await state.filter({ hasText: 'ARMED' }).waitFor();
    assert.match(await state.innerText(), /ARMED · \$10\.00 per top-up/);
    await page.getByRole('button', { name: 'Remove auto top-up' }).click();
    await page.getByRole('button', { name: 'Remove auto top-up' }).waitFor({ state: 'detached' });
    assert.equal(await state.count(), 0);
  });
});
