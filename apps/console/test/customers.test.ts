import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

describe('console: customers (browser)', () => {
  let c: ConsoleSession;
  before(async () => {
    c = await openConsole();
    const m = monetization(c.svc, c.account);
    const feature = await m.feature({ key: 'chat' });
    const plan = await m.activePlan({ price: '25', features: [{ id: feature.id }], key: 'starter' });
    await m.customer('acme');
    await m.customer('globex');
    const acme = (await m.expectOk<{ id: string; customerReferenceId: string }[]>(m.admin('GET', '/customers'))).find((x) => x.customerReferenceId === 'acme')!;
    await m.subscribe('acme', plan.id);
    await m.creditModel({ denomination: 'tokens' });
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'Main pool', denomination: 'tokens', customerId: acme.id }), 201);
    await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 100, grantType: 'MANUAL', expiresAt: '2026-12-31T00:00:00Z' }), 201);
    await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: pool.id, amount: '12.5', description: 'support call' }));
    await c.signIn();
  });
  after(() => c.close());

  test('when the list is searched then only the matching customer is listed', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Customers' }).click();
    const table = page.getByRole('table', { name: 'Customers' });
    await table.getByRole('link', { name: 'globex' }).waitFor();
    await page.getByLabel('Search customers').fill('acm');
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label=Customers] tbody tr').length === 1);
    assert.match(await table.innerText(), /acme/);
  });

  test('when a customer opens then the subscription, the invoice (marked paid), the pool balance, grants and ledger show', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'acme' }).click();
    await page.getByRole('heading', { name: 'acme', level: 1 }).waitFor();
    const subscriptions = page.getByRole('table', { name: 'Subscriptions' });
    await subscriptions.waitFor();
    assert.match(await subscriptions.innerText(), /PENDING_PAYMENT/);
    const invoices = page.getByRole('table', { name: 'Invoices' });
    assert.match(await invoices.innerText(), /\$25\.00[\s\S]*DUE/);
    // Its number (api-contract-money.md §4.1) and its PDF through the console session (§4.3).
    assert.match(await invoices.innerText(), /INV-\d{4}-000001/);
    const pdfHref = await invoices.getByRole('link', { name: 'PDF' }).first().getAttribute('href');
    assert.match(pdfHref!, /^\/api\/v1\/monetization\/billing\/invoices\/[0-9a-f-]{36}\/pdf$/);
    const pdf = await page.evaluate(async (href) => {
      const res = await fetch(href, { credentials: 'same-origin' });
      return { status: res.status, type: res.headers.get('content-type'), head: new TextDecoder().decode((await res.arrayBuffer()).slice(0, 5)) };
    }, pdfHref!);
    assert.deepEqual(pdf, { status: 200, type: 'application/pdf', head: '%PDF-' });
    await page.getByText('No active subscription, so no feature may be used.').waitFor();
    await invoices.getByRole('button', { name: 'Mark paid' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Mark paid' }).click();
    await invoices.getByText('PAID', { exact: true }).waitFor();
    await subscriptions.getByText('ACTIVE', { exact: true }).waitFor();
    const entitlements = page.getByRole('table', { name: 'Entitlements' });
    await entitlements.waitFor();
    assert.match(await entitlements.innerText(), /Plan starter\s+chat\s+ALLOWED/);

    const pool = page.getByRole('article', { name: 'Pool Main pool' });
    assert.equal(await pool.getByTestId('pool-balance').innerText(), '87.5 tokens');
    const grants = await pool.getByRole('table', { name: 'Grants of Main pool' }).innerText();
    assert.match(grants, /MANUAL\s+100\s+87\.5/);
    assert.match(grants, /Dec 31, 2026/);
    const ledger = await pool.getByRole('table', { name: 'Ledger of Main pool' }).locator('tbody tr').allInnerTexts();
    assert.equal(ledger.length, 2);
    // Credits, held change, balance before and after.
    assert.ok(ledger.some((row) => /-12\.5\s+0\s+100\s+87\.5\s+support call/.test(row)), ledger.join('\n'));
    assert.ok(ledger.some((row) => /GRANT\s+100\s+0\s+0\s+100/.test(row)), ledger.join('\n'));
    const usage = page.getByRole('table', { name: 'Usage this period' });
    assert.match(await usage.innerText(), /starter\s+chat\s+0\s+unlimited/);
    await pool.getByRole('figure', { name: 'Burndown' }).locator('canvas').waitFor();
    assert.ok((await pool.getByTestId('pool-depletion').innerText()).length > 0);
    await c.screenshot('customer');
  });

  test('when a key is created, used, rotated and revoked then the page shows it once, its last use and each state', async () => {
    const { page } = c;
    await page.getByRole('heading', { name: 'acme', level: 1 }).waitFor();
    await page.getByText('No customer key.').waitFor();
    const form = page.getByRole('form', { name: 'New customer key' });
    await form.getByLabel('purchase').check();
    await form.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByRole('region', { name: 'New customer key' }).getByTestId('secret-value');
    const apiKey = await secret.innerText();
    assert.match(apiKey, /^ck_test_[0-9a-f]{32}$/);
    const keys = page.getByRole('table', { name: 'Customer keys' });
    const hint = `ck_test_\u2026${apiKey.slice(-4)}`;
    assert.match(await keys.locator('tbody tr').innerText(), new RegExp(`${hint}\\s+read, purchase\\s+.+\\s+never\\s+ACTIVE`));

    const used = await c.svc.http.request('GET', '/api/v1/client/customers/acme/usage', { auth: apiKey });
    assert.equal(used.status, 200, used.text);
    await page.getByRole('button', { name: 'Done' }).click();
    await keys.getByRole('button', { name: `Rotate ${hint}` }).click();
    await page.getByRole('alertdialog', { name: `Rotate ${hint}?` }).getByRole('button', { name: 'Rotate key' }).click();
    const replacement = await page.getByRole('region', { name: 'Replacement customer key' }).getByTestId('secret-value').innerText();
    assert.notEqual(replacement, apiKey);
    await keys.locator('tbody tr').nth(1).waitFor();
    const [old, fresh] = await keys.locator('tbody tr').allInnerTexts();
    assert.match(old!, new RegExp(`${hint}[\\s\\S]*REVOKED`));
    assert.doesNotMatch(old!, /never/, 'the used key shows its last use');
    assert.match(fresh!, /read, purchase[\s\S]*never[\s\S]*ACTIVE/);
    assert.equal((await c.svc.http.request('GET', '/api/v1/client/customers/acme/usage', { auth: apiKey })).status, 401);

    const freshHint = `ck_test_\u2026${replacement.slice(-4)}`;
    await keys.getByRole('button', { name: `Revoke ${freshHint}` }).click();
    await page.getByRole('alertdialog', { name: `Revoke ${freshHint}?` }).getByRole('button', { name: 'Revoke key' }).click();
    await keys.getByRole('button', { name: `Revoke ${freshHint}` }).waitFor({ state: 'detached' });
    assert.equal(await keys.getByText('REVOKED', { exact: true }).count(), 2);
    assert.equal((await c.svc.http.request('GET', '/api/v1/client/customers/acme/usage', { auth: replacement })).status, 401);
    await c.screenshot('customer-keys');
  });
});
