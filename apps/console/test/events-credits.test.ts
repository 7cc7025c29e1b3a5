import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

const HOUR = 3600_000;

describe('console: events explorer and credits (browser)', () => {
  let c: ConsoleSession;
  let m: ReturnType<typeof monetization>;
  let feature: any;

  before(async () => {
    c = await openConsole({ now: '2027-03-01T10:00:00Z' });
    m = monetization(c.svc, c.account);
    const model = await m.creditModel({ name: 'Token credits', denomination: 'tokens', hardLimit: true, rolloverPolicy: 'NONE' });
    feature = await m.feature({ key: 'ai.gen' });
    const chat = await m.feature({ key: 'chat' });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'credits-pro', name: 'Credits Pro', description: 'With credits', priceAmount: 20, intervalMonths: 1 }), 201);
    await m.expectOk(
      m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'tokens', price_per_unit: 0 } } }),
      201,
    );
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: chat.id, value: { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: 0.002 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=1000`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    const at = new Date(c.svc.clock.now().getTime() + HOUR).toISOString();
    await m.expectOk(m.admin('POST', '/credits/weights/publish', { effectiveFrom: at, entries: [{ featureId: feature.id, model: 'gpt-4', creditsPerUnit: 2.5 }] }), 201);
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: at, entries: [{ denomination: 'tokens', pricePerCredit: 0.01 }] }), 201);
    c.svc.clock.advanceMs(2 * HOUR);
    for (const ref of ['alice', 'bob']) {
      await m.customer(ref);
      const sub = await m.subscribe(ref, plan.id);
      await m.markPaid(sub.invoice.id);
    }
    const gen = await m.event({ customerReferenceId: 'alice', featureKey: 'ai.gen', usageUnits: 10, eventIdempotencyKey: 'gen-1', costInput: { model: 'gpt-4' } });
    assert.equal(gen.status, 201, gen.text);
    for (let i = 0; i < 30; i++) {
      const ref = i % 3 === 0 ? 'bob' : 'alice';
      const res = await m.event({ customerReferenceId: ref, featureKey: 'chat', usageUnits: 1, eventIdempotencyKey: `chat-${i}`, ...(i === 7 ? { flowId: 'flow-seven' } : {}) });
      assert.equal(res.status, 201, res.text);
    }
    await c.signIn();
  });
  after(() => c.close());

  test('when the events explorer opens then it pages newest first, and filters by customer, feature, kind and flowId', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    const status = page.getByRole('navigation', { name: 'Pages' }).getByRole('status');
    await page.waitForFunction(() => /1–25 of 31/.test(document.querySelector('.pager [role=status]')?.textContent ?? ''));
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForFunction(() => /26–31 of 31/.test(document.querySelector('.pager [role=status]')?.textContent ?? ''));
    assert.match(page.url(), /offset=25/);
    assert.equal(await page.getByRole('table', { name: 'Events' }).locator('tbody tr').count(), 6);

    const filters = page.getByRole('form', { name: 'Event filters' });
    await filters.getByLabel('Customer').fill('bob');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForFunction(() => /of 10$/.test(document.querySelector('.pager [role=status]')?.textContent ?? ''));
    assert.match(page.url(), /customerReferenceId=bob/);
    assert.doesNotMatch(page.url(), /offset/);

    await filters.getByRole('button', { name: 'Clear' }).click();
    await filters.getByLabel('Flow id').fill('flow-seven');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForFunction(() => /1–1 of 1$/.test(document.querySelector('.pager [role=status]')?.textContent ?? ''));
    await page.getByRole('cell', { name: 'flow-seven' }).waitFor();

    await filters.getByRole('button', { name: 'Clear' }).click();
    await filters.getByLabel('Kind').selectOption('ENTITLEMENT_CHECKED');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No events match these filters.').waitFor();

    await filters.getByRole('button', { name: 'Clear' }).click();
    await filters.getByLabel('To', { exact: true }).fill('2027-03-01T11:00');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No events match these filters.').waitFor();
    assert.ok(await status.count() === 0);
  });

  test('when a credit-backed event is opened then its receipt shows the credits drawn and the weight matched', async () => {
    const { page } = c;
    const filters = page.getByRole('form', { name: 'Event filters' });
    await filters.getByRole('button', { name: 'Clear' }).click();
    await filters.getByLabel('Feature key').fill('ai.gen');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('button', { name: 'Receipt of gen-1' }).click();
    const receipt = page.getByLabel('Receipt gen-1');
    await receipt.waitFor();
    const text = await receipt.innerText();
    assert.match(text, /Credits drawn\s+25\b/);
    assert.match(text, /Usage covered by credits\s+10\b/);
    assert.match(text, /Weight match\s+MODEL/);
    await c.screenshot('events-receipt');
  });

  test('when credits open then models, the current tariff rows and the price book show; a future price is published, listed as scheduled and deleted', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Credits' }).click();
    const models = page.getByRole('table', { name: 'Credit models' });
    await models.waitFor();
    assert.match(await models.innerText(), /Token credits\s+tokens\s+hard\s+NONE/);
    const weights = page.getByRole('table', { name: 'Weight tariff' });
    await weights.waitFor();
    assert.match(await weights.innerText(), /ai\.gen\s+gpt-4\s+2\.5\s+.*CURRENT/);
    const prices = page.getByRole('table', { name: 'Price book' });
    assert.match(await prices.innerText(), /tokens\s+USD\s+\$0\.01\s+.*CURRENT/);

    const form = page.getByRole('form', { name: 'Publish price' });
    await form.getByLabel('Denomination').fill('tokens');
    await form.getByLabel('Price per credit').fill('0.0125');
    await form.getByLabel('Effective from').fill('2027-04-01T00:00');
    await form.getByRole('button', { name: 'Publish price' }).click();
    await prices.getByText('0.0125').waitFor();
    assert.match(await prices.innerText(), /\$0\.0125\s+.*SCHEDULED/);
    await c.screenshot('credits');
    await page.getByRole('button', { name: 'Delete scheduled price tokens 0.0125' }).click();
    await page.waitForFunction(() => !document.querySelector('table[aria-label="Price book"]')?.textContent?.includes('0.0125'));

    // A weight published in the past is refused with the API's message inline.
    const weightForm = page.getByRole('form', { name: 'Publish weight' });
    await weightForm.getByRole('combobox').selectOption({ label: 'ai.gen' });
    await weightForm.getByLabel('Credits per unit').fill('3');
    await weightForm.getByLabel('Effective from').fill('2026-01-01T00:00');
    await weightForm.getByRole('button', { name: 'Publish weight' }).click();
    assert.match(await weightForm.getByRole('alert').innerText(), /Weight not published: .*requestId/s);
  });

  test('when the ledger audit runs then it reports the pools checked and no discrepancy', async () => {
    const { page } = c;
    await page.getByRole('button', { name: 'Run ledger audit' }).click();
    assert.match(await page.getByTestId('audit-result').innerText(), /^2 pools checked: no discrepancy\.$/);
  });
});
