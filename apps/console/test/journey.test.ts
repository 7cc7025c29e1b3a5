import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

/**
 * The quickstart's whole journey in the console only (issue 32, "Done when"): a feature, a plan with a
 * rule, activated; a customer, subscribed and its invoice paid; a credit model, a pool and a grant; a
 * portal link; a spend unit with a rule and a budget. Nothing is seeded: each step uses the console's
 * forms, and the API is read back after each.
 */
describe('console: the quickstart journey (browser)', () => {
  let c: ConsoleSession;
  let m: ReturnType<typeof monetization>;
  let planId = '';
  before(async () => {
    c = await openConsole();
    m = monetization(c.svc, c.account);
    await c.signIn();
  });
  after(() => c.close());

  const confirm = (button: string) => c.page.getByRole('alertdialog').getByRole('button', { name: button }).click();
  const nav = (name: string) => c.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  const spend = (path: string) => m.expectOk<any>(c.svc.http.get(`/api/v1/spend${path}`, { auth: c.account.token }));

  test('when a feature and a plan with a usage rule are created and the plan activated then the API has an ACTIVE plan selling it', async () => {
    const { page } = c;
    await nav('Features');
    const feature = page.getByRole('form', { name: 'New feature' });
    await feature.getByLabel('Name').fill('API calls');
    await feature.getByLabel('Key').fill('api_calls');
    await feature.getByRole('button', { name: 'Create feature' }).click();
    await page.getByRole('table', { name: 'Features' }).getByRole('cell', { name: 'api_calls' }).waitFor();

    await nav('Plans');
    const plan = page.getByRole('form', { name: 'New plan' });
    await plan.getByLabel('Key').fill('quickstart');
    await plan.getByLabel('Name').fill('Quickstart');
    await plan.getByLabel('Description').fill('The quickstart plan');
    await plan.getByLabel('Price per period').fill('19');
    await plan.getByRole('button', { name: 'Create plan' }).click();
    await page.getByRole('heading', { name: 'Quickstart' }).waitFor();
    const link = page.getByRole('form', { name: 'Link a feature' });
    await link.getByLabel('Feature').selectOption({ label: 'API calls (api_calls)' });
    await link.getByLabel('Price per unit', { exact: true }).fill('0.002');
    await link.getByLabel(/Usage limit/).fill('100000');
    await link.getByRole('button', { name: 'Link feature' }).click();
    await page.getByRole('table', { name: 'Plan features' }).getByText('Limit: 100,000 units').waitFor();
    await page.getByRole('button', { name: 'Activate plan' }).click();
    await confirm('Activate plan');
    await page.getByRole('button', { name: 'Archive plan' }).waitFor();

    const stored = (await m.expectOk<any[]>(m.admin('GET', '/plans'))).find((p) => p.key === 'quickstart');
    assert.equal(stored.status, 'ACTIVE');
    planId = stored.id;
    const apiCalls = (await m.expectOk<any[]>(m.admin('GET', '/features'))).find((f) => f.key === 'api_calls');
    const rule = await m.expectOk<any>(m.admin('GET', `/rules/plan-features/${stored.id}/${apiCalls.id}`));
    assert.equal(String(rule.value.pricing.price_per_unit), '0.002');
  });

  test('when a customer is created and subscribed, and its first invoice marked paid, then its subscription is ACTIVE', async () => {
    const { page } = c;
    await nav('Customers');
    const form = page.getByRole('form', { name: 'New customer' });
    await form.getByLabel('Reference').fill('acme');
    await form.getByLabel('E-mail').fill('billing@acme.test');
    await form.getByRole('button', { name: 'Create customer' }).click();
    await page.getByRole('table', { name: 'Customers' }).getByRole('link', { name: 'acme' }).click();
    await page.getByRole('heading', { name: 'acme', level: 1 }).waitFor();
    const subscribe = page.getByRole('form', { name: 'Subscribe' });
    await subscribe.getByLabel('Plan').selectOption({ label: 'Quickstart (quickstart) · $19.00 / 1 mo' });
    await subscribe.getByRole('button', { name: 'Subscribe' }).click();
    await confirm('Subscribe');
    const invoices = page.getByRole('table', { name: 'Invoices' });
    await invoices.getByRole('button', { name: 'Mark paid' }).click();
    await confirm('Mark paid');
    await page.getByRole('table', { name: 'Subscriptions' }).getByText('ACTIVE', { exact: true }).waitFor();

    const customer = await m.expectOk<any>(m.client('GET', '/customers/acme'));
    assert.equal(customer.email, 'billing@acme.test');
    assert.deepEqual(customer.subscriptions.map((s: any) => [s.plan.id, s.status]), [[planId, 'ACTIVE']]);
  });

  test('when a credit model is created, a pool made for the customer and credits granted (confirmed) then the pool holds them', async () => {
    const { page } = c;
    await nav('Credits');
    const model = page.getByRole('form', { name: 'New credit model' });
    await model.getByLabel('Name').fill('Token credits');
    await model.getByLabel('Denomination').fill('tokens');
    await model.getByRole('button', { name: 'Create credit model' }).click();
    await page.getByRole('table', { name: 'Credit models' }).getByText('tokens', { exact: true }).waitFor();

    await nav('Customers');
    await page.getByRole('table', { name: 'Customers' }).getByRole('link', { name: 'acme' }).click();
    const form = page.getByRole('form', { name: 'New credit pool' });
    await form.getByLabel('Pool name').fill('Main pool');
    await form.getByLabel('Credit model').selectOption({ label: 'Token credits (tokens)' });
    await form.getByRole('button', { name: 'Create pool' }).click();
    const pool = page.getByRole('article', { name: 'Pool Main pool' });
    const grant = pool.getByRole('form', { name: 'Grant or deduct on Main pool' });
    await grant.getByLabel('Credits (tokens)').fill('500');
    await grant.getByRole('button', { name: 'Grant…' }).click();
    assert.equal(await page.getByRole('alertdialog').getByRole('heading').innerText(), 'Grant 500 tokens to Main pool?');
    await confirm('Grant credits');
    await page.waitForFunction(() => document.querySelector('[aria-label="Pool Main pool"] [data-testid=pool-balance]')?.textContent === '500 tokens');

    const stored = (await m.expectOk<any[]>(m.admin('GET', '/credits/pools'))).find((p) => p.name === 'Main pool');
    assert.equal(String((await m.expectOk<any>(m.admin('GET', `/credits/pools/${stored.id}`))).balance), '500');
  });

  test('when a portal link is created then its URL is shown once and opens a portal session', async () => {
    const { page } = c;
    const form = page.getByRole('form', { name: 'New portal link' });
    await form.getByLabel('Lifetime').selectOption({ label: '15 minutes' });
    await form.getByRole('button', { name: 'Create link' }).click();
    const url = await page.getByRole('region', { name: 'New portal link' }).getByTestId('secret-value').innerText();
    const token = /#token=(pt_test_[^&]+)&customer=acme$/.exec(url)?.[1];
    assert.ok(token, url);
    assert.equal((await c.svc.http.request('GET', '/api/v1/client/portal/session', { auth: token })).status, 200);
    await page.getByRole('button', { name: 'Done' }).click();
  });

  test('when a spend unit is created with an attribution rule and a budget then the API has all three', async () => {
    const { page } = c;
    await nav('Units & rules');
    const unit = page.getByRole('form', { name: 'New spend unit' });
    await unit.getByLabel('Name').fill('Platform');
    await unit.getByRole('button', { name: 'Create unit' }).click();
    await page.getByRole('table', { name: 'Spend units' }).getByText('Platform').waitFor();
    const rule = page.getByRole('form', { name: 'New attribution rule' });
    await rule.getByLabel('Unit').selectOption({ label: 'Platform (TEAM)' });
    await rule.getByLabel('Provider').selectOption('ANTHROPIC');
    await rule.getByLabel('Match').selectOption('WORKSPACE_ID');
    await rule.getByLabel('Value').fill('wrkspc_platform');
    await rule.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('table', { name: 'Attribution rules' }).getByText('wrkspc_platform').waitFor();

    await nav('Budgets');
    const card = page.getByRole('article', { name: 'Budget of Platform' });
    await card.getByRole('button', { name: 'Set budget' }).click();
    const budget = card.getByRole('form', { name: 'Budget form of Platform' });
    await budget.getByLabel('Monthly ceiling ($)').fill('1200');
    await budget.getByRole('button', { name: 'Save budget' }).click();
    await card.getByText(/of \$1,200\.00/).waitFor();

    const platform = (await spend('/units')).find((u: any) => u.name === 'Platform');
    const rules = await spend('/rules');
    assert.deepEqual(rules.map((r: any) => [r.spendUnitId, r.provider, r.matchKind, r.matchValue]), [[platform.id, 'ANTHROPIC', 'WORKSPACE_ID', 'wrkspc_platform']]);
    assert.equal(String((await spend(`/units/${platform.id}/budget`)).monthlyCents), '120000');
  });
});
