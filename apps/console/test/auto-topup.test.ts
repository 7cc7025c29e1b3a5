import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StripeFake } from '../../../packages/server/test/fakes/stripe/server.js';
import { connectStripe } from '../../../packages/server/test/fakes/stripe/with-service.js';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

const STRIPE_KEY = 'sk_test_tallyConsoleAutoTopup1';

/** The auto top-up rule and its attempts on the customer's pool (api-contract-money.md §2), against the Stripe fake. */
describe('console: auto top-up (browser)', () => {
  let c: ConsoleSession;
  let fake: StripeFake;
  let m: ReturnType<typeof monetization>;
  let w: { ref: string; poolId: string; featureKey: string; denomination: string };

  before(async () => {
    const started: { c?: ConsoleSession } = {};
    fake = await StripeFake.start({ now: () => started.c!.svc.clock.now() });
    c = await openConsole({ env: { APP_STRIPE_API_BASE: fake.baseUrl, APP_STRIPE_MAX_NETWORK_RETRIES: '0' } });
    started.c = c;
    m = monetization(c.svc, c.account);
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
    w = await m.wallet(100, false, 0);
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(c.svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: w.denomination, pricePerCredit: '0.01' }] }), 201);
    c.svc.clock.advanceMs(2000);
    await m.expectOk(m.client('POST', `/customers/${w.ref}/payment-methods/default`, { paymentMethodId: 'pm_card_visa' }));
    await c.signIn();
  });
  after(async () => {
    await c.close();
    await fake.close();
  });

  test('when the operator sets a rule on the pool then its state shows, a draw below the threshold lists a succeeded attempt, and disabling shows DISABLED', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('link', { name: w.ref }).click();
    await page.getByText('No auto top-up rule').waitFor();
    const form = page.getByRole('form', { name: /^Auto top-up rule of / });
    await form.getByLabel(/^Threshold/).fill('50');
    await form.getByLabel(/^Credits per top-up/).fill('0.5');
    await form.getByRole('button', { name: 'Set rule' }).click();
    // The API's refusal (the 0.50 minimum) shows with the form; nothing is stored.
    await form.getByRole('alert').getByText(/below the 0.50 payment minimum/).waitFor();
    await form.getByLabel(/^Credits per top-up/).fill('100');
    await form.getByLabel(/^Monthly cap/).fill('5');
    await form.getByRole('button', { name: 'Set rule' }).click();
    const summary = page.getByRole('definition').filter({ hasText: /^ARMED$/ });
    await summary.waitFor();
    const rule = await m.expectOk(m.client('GET', `/credits/${w.ref}/pools/${w.poolId}/auto-topup`));
    assert.equal(rule.threshold, 50);
    assert.equal(rule.maxMonthlyAmount, 5);
    assert.match(await page.getByLabel('Auto top-up rule', { exact: true }).innerText(), /1\.00/);

    const res = await m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 60, eventIdempotencyKey: 'console-draw-1' });
    assert.equal(res.status, 201, res.text);
    for (let i = 0; i < 100; i++) {
      const list = (await m.expectOk(m.client('GET', `/credits/${w.ref}/pools/${w.poolId}/auto-topup/attempts`))).items;
      if (list[0]?.status === 'SUCCEEDED') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await page.reload();
    const attempts = page.getByRole('table', { name: /^Auto top-up attempts of / });
    await attempts.getByText('SUCCEEDED').waitFor();
    assert.match(await attempts.innerText(), /100/);
    assert.match(await attempts.innerText(), /pi_/);

    const again = page.getByRole('form', { name: /^Auto top-up rule of / });
    await again.getByLabel('Enabled').uncheck();
    await again.getByRole('button', { name: 'Save rule' }).click();
    await page.getByRole('definition').filter({ hasText: /^DISABLED$/ }).waitFor();
    assert.equal((await m.expectOk(m.client('GET', `/credits/${w.ref}/pools/${w.poolId}/auto-topup`))).disabledReason, 'MANUAL');

    await page.getByRole('button', { name: /^Remove the auto top-up rule of / }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No auto top-up rule').waitFor();
    assert.equal((await m.client('GET', `/credits/${w.ref}/pools/${w.poolId}/auto-topup`)).status, 404);
  });
});
