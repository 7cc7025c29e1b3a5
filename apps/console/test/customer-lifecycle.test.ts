import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

/**
 * Money in a customer's account, each action driven in the console end to end (issue 32 item 2):
 * create and edit a customer, subscribe, change plan with the API's proration shown first, undo a
 * scheduled change, cancel at the period end and undo it, cancel now, mark an invoice paid, and
 * open, copy and revoke a portal link. After each, the API is read back.
 */
describe('console: a customer lifecycle (browser)', () => {
  let c: ConsoleSession;
  let m: ReturnType<typeof monetization>;
  let starter: { id: string };
  let pro: { id: string };

  before(async () => {
    c = await openConsole({ now: '2028-04-01T09:00:00Z' });
    m = monetization(c.svc, c.account);
    const feature = await m.feature({ key: 'chat' });
    starter = await m.activePlan({ price: '25', features: [{ id: feature.id }], key: 'starter' });
    pro = await m.activePlan({ price: '75', features: [{ id: feature.id }], key: 'pro' });
    await m.expectOk(m.admin('POST', '/plans', { key: 'draft', name: 'Plan draft', description: 'not yet', priceAmount: 5, intervalMonths: 1 }), 201);
    await c.signIn();
  });
  after(() => c.close());

  /** The customer as the Client API reads it (tenant key), with its subscriptions. */
  const apiCustomer = async () => m.expectOk(m.client('GET', '/customers/acme'));
  const subscriptionOf = async () => (await apiCustomer()).subscriptions[0];
  const confirm = async (button: string) => c.page.getByRole('alertdialog').getByRole('button', { name: button }).click();

  test('when a customer is created from the list then its row shows and the API has it; a taken reference is refused', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByText('No customers yet: create one with the form above').waitFor();
    const form = page.getByRole('form', { name: 'New customer' });
    await form.getByLabel('Reference').fill('acme');
    await form.getByLabel('E-mail').fill('billing@acme.test');
    await form.getByLabel('First name').fill('Ada');
    await form.getByRole('button', { name: 'Create customer' }).click();
    const table = page.getByRole('table', { name: 'Customers' });
    await table.getByRole('link', { name: 'acme' }).waitFor();
    assert.match(await table.locator('tbody tr').innerText(), /acme\s+Ada\s+billing@acme\.test\s+MANUAL/);
    const stored = await apiCustomer();
    assert.equal(stored.email, 'billing@acme.test');
    assert.equal(stored.firstName, 'Ada');

    await form.getByLabel('Reference').fill('acme');
    await form.getByLabel('E-mail').fill('other@acme.test');
    await form.getByRole('button', { name: 'Create customer' }).click();
    await form.getByRole('alert').filter({ hasText: 'Customer not created' }).waitFor();
    assert.equal(await table.locator('tbody tr').count(), 1);
  });

  test('when the customer is edited then the page shows the new details and the API agrees', async () => {
    const { page } = c;
    await page.getByRole('table', { name: 'Customers' }).getByRole('link', { name: 'acme' }).click();
    await page.getByRole('heading', { name: 'acme', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Edit customer' }).click();
    const form = page.getByRole('form', { name: 'Edit customer' });
    await form.getByLabel('Last name').fill('Lovelace');
    await form.getByLabel('Phone').fill('+44 20 7946 0000');
    await form.getByRole('button', { name: 'Save customer' }).click();
    await page.getByTestId('customer-details').filter({ hasText: 'Ada Lovelace' }).waitFor();
    assert.match(await page.getByTestId('customer-details').innerText(), /Ada Lovelace · billing@acme\.test · \+44 20 7946 0000/);
    const stored = await apiCustomer();
    assert.equal(stored.lastName, 'Lovelace');
    assert.equal(stored.firstName, 'Ada', 'a field not changed stays');
  });

  test('when the customer is subscribed and the invoice marked paid then the subscription is active, in the page and the API', async () => {
    const { page } = c;
    await page.getByText('No subscription yet: subscribe the customer to a plan').waitFor();
    const form = page.getByRole('form', { name: 'Subscribe' });
    const options = await form.getByLabel('Plan').locator('option').allInnerTexts();
    assert.ok(!options.some((o) => o.includes('draft')), `only ACTIVE plans are offered: ${options.join(', ')}`);
    await form.getByLabel('Plan').selectOption({ label: 'Plan starter (starter) · $25.00 / 1 mo' });
    await form.getByRole('button', { name: 'Subscribe' }).click();
    assert.match(await page.getByRole('alertdialog').innerText(), /\$25\.00 per period/);
    await confirm('Subscribe');
    const subscriptions = page.getByRole('table', { name: 'Subscriptions' });
    await subscriptions.getByText('PENDING_PAYMENT', { exact: true }).waitFor();
    const invoices = page.getByRole('table', { name: 'Invoices' });
    assert.match(await invoices.innerText(), /IN_ADVANCE_INITIAL\s+\$25\.00[\s\S]*DUE/);

    await invoices.getByRole('button', { name: 'Mark paid' }).click();
    await confirm('Mark paid');
    await invoices.getByText('PAID', { exact: true }).waitFor();
    await subscriptions.getByText('ACTIVE', { exact: true }).waitFor();
    const sub = await subscriptionOf();
    assert.equal(sub.plan.id, starter.id);
    assert.equal(sub.status, 'ACTIVE');
  });

  test('when an upgrade is previewed then the proration the API computes is shown before anything changes, and confirming makes that change', async () => {
    const { page } = c;
    c.svc.clock.set('2028-04-11T00:00:00Z'); // 20 of the period's 30 days remain
    await c.signIn(); // the session ended with the clock's jump
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('table', { name: 'Customers' }).getByRole('link', { name: 'acme' }).click();
    const subscriptions = page.getByRole('table', { name: 'Subscriptions' });
    await subscriptions.getByRole('button', { name: 'Change plan' }).click();
    const form = page.getByRole('form', { name: 'Change plan of Plan starter' });
    await form.getByLabel('New plan').selectOption({ label: 'Plan pro (pro) · $75.00 / 1 mo' });
    assert.equal(await form.getByLabel('When').inputValue(), 'UPGRADE', 'a dearer plan is an upgrade');
    await form.getByRole('button', { name: 'Preview change' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Change Plan starter to Plan pro?' });
    // round(0.66666667 × 75) − round(0.66666667 × 25) = 50.00 − 16.67
    assert.equal(await dialog.getByTestId('due-now').innerText(), '$33.33');
    assert.equal(await dialog.getByTestId('due-at-period-end').innerText(), '$75.00');
    assert.match(await dialog.innerText(), /Credit from old plan: Plan starter -\$16\.67; Credit from new plan: Plan pro \$50\.00[\s\S]*May 1, 2028/);
    assert.equal((await subscriptionOf()).plan.id, starter.id, 'the preview changed nothing');
    assert.equal((await m.invoices('acme')).items.length, 1, 'the preview raised no invoice');

    await confirm('Change plan');
    await subscriptions.getByText('Plan pro', { exact: true }).waitFor();
    const invoices = page.getByRole('table', { name: 'Invoices' });
    assert.match(await invoices.innerText(), /ADJUSTMENT\s+\$33\.33[\s\S]*DUE/);
    assert.equal((await subscriptionOf()).plan.id, pro.id);
    const adjustment = (await m.invoices('acme')).items.find((i: { type: string }) => i.type === 'ADJUSTMENT');
    assert.equal(String(adjustment.amount), '33.33', 'the change raised what the preview showed');
  });

  test('when a downgrade is scheduled then the page names it, and undoing it leaves the plan as it was', async () => {
    const { page } = c;
    const subscriptions = page.getByRole('table', { name: 'Subscriptions' });
    await subscriptions.getByRole('button', { name: 'Change plan' }).click();
    const form = page.getByRole('form', { name: 'Change plan of Plan pro' });
    await form.getByLabel('New plan').selectOption({ label: 'Plan starter (starter) · $25.00 / 1 mo' });
    assert.equal(await form.getByLabel('When').inputValue(), 'DOWNGRADE');
    await form.getByRole('button', { name: 'Preview change' }).click();
    const dialog = page.getByRole('alertdialog');
    assert.equal(await dialog.getByTestId('due-now').innerText(), '$0.00');
    assert.equal(await dialog.getByTestId('due-at-period-end').innerText(), '$25.00');
    await confirm('Change plan');
    await subscriptions.getByText('Downgrade to Plan starter on May 1, 2028').waitFor();
    let sub = await subscriptionOf();
    assert.equal(sub.scheduledChange.status, 'PENDING');
    assert.equal(sub.scheduledChange.toPlan, starter.id);

    await subscriptions.getByRole('button', { name: 'Undo plan change' }).click();
    await subscriptions.getByText('Downgrade to Plan starter').waitFor({ state: 'detached' });
    sub = await subscriptionOf();
    assert.equal(sub.scheduledChange, null);
    assert.equal(sub.plan.id, pro.id);
  });

  test('when cancelled at the period end then it is scheduled, and undoing it makes it active again', async () => {
    const { page } = c;
    const subscriptions = page.getByRole('table', { name: 'Subscriptions' });
    await subscriptions.getByRole('button', { name: 'Cancel at period end' }).click();
    await confirm('Cancel at period end');
    await subscriptions.getByText('CANCEL_SCHEDULED', { exact: true }).waitFor();
    let sub = await subscriptionOf();
    assert.equal(sub.cancelMode, 'END_OF_PERIOD');
    assert.equal(sub.cancelEffectiveAt, '2028-05-01T00:00:00.000Z');

    await subscriptions.getByRole('button', { name: 'Undo cancellation' }).click();
    await subscriptions.getByText('ACTIVE', { exact: true }).waitFor();
    sub = await subscriptionOf();
    assert.equal(sub.cancelEffectiveAt, null);
    assert.equal(sub.status, 'ACTIVE');
  });

  test('when cancelled now then the subscription ends, its open invoice is voided and the refund is raised', async () => {
    const { page } = c;
    const subscriptions = page.getByRole('table', { name: 'Subscriptions' });
    await subscriptions.getByRole('button', { name: 'Cancel now' }).click();
    assert.match(await page.getByRole('alertdialog').innerText(), /open invoices are voided/);
    await confirm('Cancel now');
    await subscriptions.getByText('CANCELLED', { exact: true }).waitFor();
    const invoices = page.getByRole('table', { name: 'Invoices' });
    await invoices.getByText('CREDIT', { exact: true }).waitFor();
    assert.match(await invoices.innerText(), /ADJUSTMENT\s+\$33\.33[\s\S]*VOID/);
    assert.equal(await subscriptions.getByRole('button').count(), 0, 'an ended subscription offers no action');
    assert.equal((await subscriptionOf()).status, 'CANCELLED');
    const stored = (await m.invoices('acme')).items;
    assert.equal(stored.find((i: { type: string }) => i.type === 'ADJUSTMENT').status, 'VOID');
    assert.equal(stored.find((i: { type: string }) => i.type === 'CREDIT').status, 'PAID');
  });

  test('when a portal link is created then its URL is shown once and works; revoked, it stops working', async () => {
    const { page } = c;
    await page.getByText('No portal link yet').waitFor();
    const form = page.getByRole('form', { name: 'New portal link' });
    await form.getByLabel('Lifetime').selectOption({ label: '15 minutes' });
    await form.getByLabel('Allow credit top-ups').check();
    await form.getByRole('button', { name: 'Create link' }).click();
    const url = await page.getByRole('region', { name: 'New portal link' }).getByTestId('secret-value').innerText();
    const token = /#token=(pt_test_[^&]+)&customer=acme$/.exec(url)?.[1];
    assert.ok(token, url);
    const session = await c.svc.http.request('GET', '/api/v1/client/portal/session', { auth: token });
    assert.equal(session.status, 200, session.text);
    assert.equal(session.body.data.expiresAt, '2028-04-11T00:15:00.000Z');
    const links = page.getByRole('table', { name: 'Portal links' });
    const hint = session.body.data.tokenHint as string;
    assert.match(await links.locator('tbody tr').innerText(), /read, purchase[\s\S]*ACTIVE/);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('region', { name: 'New portal link' }).waitFor({ state: 'detached' });

    await links.getByRole('button', { name: `Revoke ${hint}` }).click();
    await page.getByRole('alertdialog', { name: `Revoke ${hint}?` }).getByRole('button', { name: 'Revoke link' }).click();
    await links.getByText('REVOKED', { exact: true }).waitFor();
    assert.equal((await c.svc.http.request('GET', '/api/v1/client/portal/session', { auth: token })).status, 401);
  });
});
