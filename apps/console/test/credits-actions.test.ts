import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

/**
 * The operator's credit actions, each end to end: the form or button in the console, the
 * confirmation naming the exact amount where credits move, the row in the table, then the API read
 * back: a credit model attached to a plan and detached, pools (a customer's, from either page),
 * a link to a subscription and its removal, a grant, a deduction and a reversal.
 */
describe('console: credit actions (browser)', () => {
  let c: ConsoleSession;
  let m: ReturnType<typeof monetization>;
  let plan: { id: string };
  let acme: { id: string };
  let subscriptionId: string;

  const customerId = async (ref: string) => (await m.expectOk<{ id: string; customerReferenceId: string }[]>(m.admin('GET', '/customers'))).find((x) => x.customerReferenceId === ref)!;
  const poolNamed = async (name: string) => (await m.expectOk<any[]>(m.admin('GET', '/credits/pools'))).find((p) => p.name === name);

  before(async () => {
    c = await openConsole({ now: '2027-03-01T10:00:00Z' });
    m = monetization(c.svc, c.account);
    await m.creditModel({ name: 'Token credits', denomination: 'tokens', hardLimit: false });
    const feature = await m.feature({ key: 'chat' });
    plan = await m.activePlan({ price: '25', features: [{ id: feature.id }], key: 'starter' });
    await m.customer('acme');
    await m.customer('globex');
    acme = await customerId('acme');
    subscriptionId = (await m.subscribe('acme', plan.id)).subscription.id;
    await c.signIn();
  });
  after(() => c.close());

  test('when a credit model is created and attached to a plan then the plan lists its credits, and detaching (confirmed) removes them', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Credits' }).click();
    const newModel = page.getByRole('form', { name: 'New credit model' });
    await newModel.getByLabel('Name').fill('Gems');
    await newModel.getByLabel('Denomination').fill('gems');
    await newModel.getByRole('button', { name: 'Create credit model' }).click();
    await page.getByRole('table', { name: 'Credit models' }).getByText('gems', { exact: true }).waitFor();
    const models = await m.expectOk<any[]>(m.admin('GET', '/credits/models'));
    assert.ok(models.some((x) => x.denomination === 'gems' && x.name === 'Gems'));

    await page.getByRole('combobox', { name: 'Plan', exact: true }).selectOption(plan.id);
    await page.getByText('This plan includes no credits yet').waitFor();
    const attach = page.getByRole('form', { name: 'Attach a credit model' });
    await attach.getByLabel('Credit model').selectOption({ label: 'Gems (gems)' });
    await attach.getByLabel('Credits per period').fill('250.5');
    await attach.getByLabel(/Grants expire after/).fill('3');
    await attach.getByRole('button', { name: 'Attach to plan' }).click();
    const table = page.getByRole('table', { name: 'Plan credit allocations' });
    await table.getByText('Gems (gems)').waitFor();
    assert.match(await table.innerText(), /Gems \(gems\)\s+250\.5\s+3 months\s+soft/);
    const allocations = await m.expectOk<any[]>(m.admin('GET', `/credits/plans/${plan.id}/allocations`));
    assert.deepEqual(allocations.map((a) => [a.denomination, String(a.creditAmount), a.grantExpiresMonths]), [['gems', '250.5', 3]]);

    // The same model twice: the API's refusal is shown with the form.
    await attach.getByLabel('Credit model').selectOption({ label: 'Gems (gems)' });
    await attach.getByLabel('Credits per period').fill('10');
    await attach.getByRole('button', { name: 'Attach to plan' }).click();
    await attach.getByRole('alert').getByText(/Allocation already exists/).waitFor();

    await table.getByRole('button', { name: 'Detach Gems' }).click();
    const dialog = page.getByRole('alertdialog');
    assert.match(await dialog.innerText(), /250\.5 gems each period/);
    await dialog.getByRole('button', { name: 'Detach' }).click();
    await page.getByText('This plan includes no credits yet').waitFor();
    assert.deepEqual(await m.expectOk(m.admin('GET', `/credits/plans/${plan.id}/allocations`)), []);
  });

  test('when a pool is created on the customer page and linked to a subscription then the link lists, and unlinking (confirmed) removes it', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('link', { name: 'acme' }).click();
    await page.getByText('No credit pool yet').waitFor();
    const form = page.getByRole('form', { name: 'New credit pool' });
    await form.getByLabel('Pool name').fill('Main pool');
    await form.getByLabel('Credit model').selectOption({ label: 'Token credits (tokens)' });
    await form.getByRole('button', { name: 'Create pool' }).click();
    const pool = page.getByRole('article', { name: 'Pool Main pool' });
    await pool.waitFor();
    const stored = await poolNamed('Main pool');
    assert.equal(stored.customerId, acme.id);
    assert.equal(stored.denomination, 'tokens');

    await pool.getByText('No subscription draws on this pool yet').waitFor();
    const link = pool.getByRole('form', { name: 'Link Main pool to a subscription' });
    await link.getByLabel('Subscription').selectOption({ index: 1 });
    await link.getByLabel(/Draw priority/).fill('2');
    await link.getByLabel(/Draw limit/).fill('40.5');
    await link.getByRole('button', { name: 'Link subscription' }).click();
    const links = pool.getByRole('table', { name: 'Links of Main pool' });
    await links.waitFor();
    assert.match(await links.innerText(), /starter · PENDING_PAYMENT[^\n]*\s+2\s+40\.5\s+0/);
    const stored2 = await m.expectOk<any[]>(m.admin('GET', `/credits/pools/${stored.id}/subscriptions`));
    assert.deepEqual(stored2.map((l) => [l.subscriptionId, l.drawPriority, String(l.drawLimit)]), [[subscriptionId, 2, '40.5']]);

    // Linking the same subscription again: the API's refusal shows.
    await link.getByLabel('Subscription').selectOption({ index: 1 });
    await link.getByRole('button', { name: 'Link subscription' }).click();
    await link.getByText(/Pool already linked to subscription/).waitFor();

    await links.getByRole('button', { name: /^Unlink / }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Unlink' }).click();
    await pool.getByText('No subscription draws on this pool yet').waitFor();
    assert.deepEqual(await m.expectOk(m.admin('GET', `/credits/pools/${stored.id}/subscriptions`)), []);
  });

  test('when credits are granted, deducted and the deduction reversed then each confirmation names the exact amount and the balance follows', async () => {
    const { page } = c;
    const pool = page.getByRole('article', { name: 'Pool Main pool' });
    const form = pool.getByRole('form', { name: 'Grant or deduct on Main pool' });
    const dialog = page.getByRole('alertdialog');
    const stored = await poolNamed('Main pool');

    // An amount the API refuses: its message shows under the field.
    await form.getByLabel('Credits (tokens)').fill('0');
    await form.getByRole('button', { name: 'Grant…' }).click();
    await dialog.getByRole('button', { name: 'Grant credits' }).click();
    await form.locator('.field-error').first().waitFor();

    await form.getByLabel('Credits (tokens)').fill('100.25');
    await form.getByLabel('Grant type').selectOption('PROMOTIONAL');
    await form.getByRole('button', { name: 'Grant…' }).click();
    assert.equal(await dialog.getByRole('heading').innerText(), 'Grant 100.25 tokens to Main pool?');
    assert.match(await dialog.innerText(), /rises by exactly 100\.25 tokens \(a PROMOTIONAL grant, never expiring\)/);
    await dialog.getByRole('button', { name: 'Grant credits' }).click();
    await page.waitForFunction(() => document.querySelector('[aria-label="Pool Main pool"] [data-testid=pool-balance]')?.textContent === '100.25 tokens');
    assert.match(await pool.getByRole('table', { name: 'Grants of Main pool' }).innerText(), /PROMOTIONAL\s+100\.25\s+100\.25\s+never/);
    assert.equal(String((await m.expectOk<any>(m.admin('GET', `/credits/pools/${stored.id}`))).balance), '100.25');

    await form.getByLabel('Action').selectOption('deduct');
    await form.getByLabel('Credits (tokens)').fill('12.5');
    await form.getByLabel('Description').fill('support call');
    await form.getByRole('button', { name: 'Deduct…' }).click();
    assert.equal(await dialog.getByRole('heading').innerText(), 'Deduct 12.5 tokens from Main pool?');
    assert.match(await dialog.innerText(), /falls by exactly 12\.5 tokens/);
    await dialog.getByRole('button', { name: 'Deduct credits' }).click();
    await page.waitForFunction(() => document.querySelector('[aria-label="Pool Main pool"] [data-testid=pool-balance]')?.textContent === '87.75 tokens');
    assert.equal(String((await m.expectOk<any>(m.admin('GET', `/credits/pools/${stored.id}`))).balance), '87.75');

    const ledger = pool.getByRole('table', { name: 'Ledger of Main pool' });
    await ledger.getByRole('button', { name: 'Reverse DEDUCTION of -12.5' }).click();
    assert.equal(await dialog.getByRole('heading').innerText(), 'Reverse the DEDUCTION of -12.5 tokens?');
    assert.match(await dialog.innerText(), /A REVERSAL of 12\.5 tokens is added to the ledger: the balance of Main pool rises by exactly 12\.5 tokens/);
    await dialog.getByRole('button', { name: 'Reverse' }).click();
    await page.waitForFunction(() => document.querySelector('[aria-label="Pool Main pool"] [data-testid=pool-balance]')?.textContent === '100.25 tokens');
    await ledger.getByText('REVERSAL', { exact: true }).waitFor();
    assert.equal(await ledger.getByRole('button', { name: 'Reverse DEDUCTION of -12.5' }).count(), 0, 'a reversed row is not offered again');
    const transactions = await m.expectOk<any[]>(m.admin('GET', `/credits/pools/${stored.id}/transactions`));
    const deduction = transactions.find((t) => t.transactionType === 'DEDUCTION');
    const reversal = transactions.find((t) => t.transactionType === 'REVERSAL');
    assert.equal(String(reversal.amount), '12.5');
    assert.equal(reversal.reversedTransactionId, deduction.id);
  });

  test('when a pool is created from the credits page for a picked customer then it lists, and a grant through the pool picker moves its balance', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Credits' }).click();
    const form = page.getByRole('form', { name: 'New credit pool' });
    await form.getByLabel('Pool name').fill('Globex pool');
    await form.getByLabel('Credit model').selectOption({ label: 'Token credits (tokens)' });
    await form.getByLabel('Customer').selectOption((await customerId('globex')).id);
    await form.getByRole('button', { name: 'Create pool' }).click();
    const pools = page.getByRole('table', { name: 'Credit pools' });
    await pools.getByText('Globex pool').waitFor();
    assert.equal((await poolNamed('Globex pool')).customerId, (await customerId('globex')).id);

    await page.getByRole('combobox', { name: 'Pool', exact: true }).selectOption((await poolNamed('Globex pool')).id);
    const grant = page.getByRole('form', { name: 'Grant or deduct on Globex pool' });
    await grant.getByLabel('Credits (tokens)').fill('5');
    await grant.getByLabel(/Expires/).fill('2027-12-31T00:00');
    await grant.getByRole('button', { name: 'Grant…' }).click();
    const dialog = page.getByRole('alertdialog');
    assert.match(await dialog.innerText(), /rises by exactly 5 tokens \(a MANUAL grant, expiring 2027-12-31 00:00 UTC\)/);
    await dialog.getByRole('button', { name: 'Grant credits' }).click();
    await pools.getByRole('row', { name: /Globex pool/ }).getByText('5', { exact: true }).first().waitFor();
    const stored = await poolNamed('Globex pool');
    assert.equal(String(stored.balance), '5');
    const grants = await m.expectOk<any[]>(m.admin('GET', `/credits/pools/${stored.id}/grants`));
    assert.equal(grants[0].expiresAt, '2027-12-31T00:00:00.000Z');
  });
});
