import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

/** The catalog's actions end to end (issue 32 item 2): each through the form, visible on the page, and read back from the API. */
describe('console: catalog actions (browser)', () => {
  let c: ConsoleSession;
  let m: ReturnType<typeof monetization>;
  let messages: { id: string };
  let creditModel: { id: string };
  before(async () => {
    c = await openConsole();
    m = monetization(c.svc, c.account);
    messages = await m.feature({ name: 'Messages', key: 'messages' });
    await m.feature({ name: 'Tokens', key: 'tokens' });
    creditModel = await m.creditModel({ name: 'AI credits', denomination: 'ai-credits' });
    await m.activePlan({ key: 'starter', price: 0, features: [{ id: messages.id }] });
    await m.expectOk(m.admin('PATCH', `/plans/${(await m.expectOk(m.admin('GET', '/plans'))).find((p: any) => p.key === 'starter').id}`, { name: 'Starter' }));
    await m.expectOk(m.admin('POST', '/plans', { key: 'bare' }), 201);
    await m.expectOk(m.admin('POST', '/plans', { key: 'metered', name: 'Metered', description: 'Pay as you go', priceAmount: 10, intervalMonths: 1 }), 201);
    await c.signIn();
  });
  after(() => c.close());

  const planId = async (key: string): Promise<string> => (await m.expectOk(m.admin('GET', '/plans'))).find((p: any) => p.key === key).id;
  const rule = (plan: string, feature: string) => m.admin('GET', `/rules/plan-features/${plan}/${feature}`);
  const openPlan = async (name: string) => {
    await c.page.getByRole('link', { name: 'Plans' }).click();
    await c.page.getByRole('table', { name: 'Plans' }).getByRole('link', { name }).click();
    await c.page.getByRole('heading', { name }).waitFor();
  };
  /** Clicks an action's button, then the same-named button of its confirmation dialog. */
  const confirm = async (button: string, opener: string = button) => {
    await c.page.getByRole('button', { name: opener }).first().click();
    await c.page.getByRole('alertdialog').getByRole('button', { name: button }).click();
  };

  test('when a bare DRAFT plan is activated then every missing part is named; once its fields are saved and a feature linked it activates, then archives (each confirmed)', async () => {
    const { page } = c;
    await openPlan('bare');
    await page.getByText('No feature linked: a plan needs one before it can be activated').waitFor();
    await page.getByRole('button', { name: 'Activate plan' }).click();
    const dialog = page.getByRole('alertdialog');
    assert.match(await dialog.innerText(), /Activate bare\?[\s\S]*Customers can subscribe/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await dialog.count(), 0);
    assert.equal((await m.expectOk(m.admin('GET', `/plans/${await planId('bare')}`))).status, 'DRAFT', 'cancel changes nothing');

    await confirm('Activate plan');
    const missing = page.getByRole('alert', { name: 'Missing before activation' });
    await missing.waitFor();
    assert.match(await missing.innerText(), /missing 5 parts/);
    assert.deepEqual(await missing.locator('li').evaluateAll((li) => li.map((x) => x.getAttribute('data-field'))), ['name', 'description', 'intervalMonths', 'priceAmount', 'features']);

    const details = page.getByRole('form', { name: 'Plan details' });
    await details.getByLabel('Name').fill('Bare');
    await details.getByLabel('Description').fill('Just the basics');
    await details.getByLabel('Price per period').fill('19.5');
    await details.getByLabel('Currency').fill('EUR');
    await details.getByLabel('Interval (months)').fill('3');
    await details.getByLabel('Billing').selectOption('IN_ARREARS');
    await details.getByRole('button', { name: 'Save plan' }).click();
    await details.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByRole('heading', { name: 'Bare', exact: true }).waitFor();
    assert.match(await page.locator('.stat').nth(1).innerText(), /€19\.50/);
    const saved = await m.expectOk(m.admin('GET', `/plans/${await planId('bare')}`));
    assert.deepEqual([saved.name, saved.description, saved.priceAmount, saved.currency, saved.intervalMonths, saved.billingTiming], ['Bare', 'Just the basics', 19.5, 'EUR', 3, 'IN_ARREARS']);

    const link = page.getByRole('form', { name: 'Link a feature' });
    await link.getByLabel('Feature').selectOption({ label: 'Messages (messages)' });
    await link.getByLabel('Price per unit', { exact: true }).fill('0.002');
    await link.getByLabel(/Usage limit/).fill('100000');
    await link.getByRole('button', { name: 'Link feature' }).click();
    const rules = page.getByRole('table', { name: 'Plan features' });
    await rules.getByText('Limit: 100,000 units').waitFor();
    assert.match(await rules.innerText(), /Usage price: €0\.002 per units/);

    await confirm('Activate plan');
    await page.getByRole('button', { name: 'Archive plan' }).waitFor();
    assert.equal(await details.getByLabel('Key').isDisabled(), true, "an ACTIVE plan's key is fixed");
    // A rule change on an ACTIVE plan prices its subscribers at once: it asks first.
    await page.getByRole('button', { name: 'Edit rule of Messages' }).click();
    await page.getByRole('form', { name: 'Rule of Messages' }).getByLabel(/Usage limit/).fill('200000');
    await confirm('Save rule');
    await rules.getByText('Limit: 200,000 units').waitFor();
    const bare = await planId('bare');
    assert.equal((await m.expectOk(rule(bare, messages.id))).value.pricing.max_usage, 200000);
    await confirm('Archive plan');
    await page.getByRole('button', { name: 'Reactivate plan' }).waitFor();
    assert.equal((await m.expectOk(m.admin('GET', `/plans/${await planId('bare')}`))).status, 'ARCHIVED');
  });

  test('when a rule is linked with graduated tiers, a cost per AI model and a credit model, then edited and unlinked, the API agrees at each step', async () => {
    const { page } = c;
    await openPlan('Metered');
    const link = page.getByRole('form', { name: 'Link a feature' });
    await link.getByLabel('Feature').selectOption({ label: 'Tokens (tokens)' });
    await link.getByLabel('Pricing model').selectOption('graduated');
    await link.getByLabel('Usage unit').fill('tokens');
    await link.getByLabel('Usage counts').selectOption('accumulate');
    await link.getByLabel('Up to (empty: no end) (tier 1)').fill('1000');
    await link.getByLabel('Price per unit (tier 1)').fill('0.01');
    await link.getByLabel('Flat fee (tier 1)').fill('5');
    await link.getByRole('button', { name: 'Add tier' }).click();
    await link.getByLabel('Price per unit (tier 2)').fill('0.005');
    await link.getByLabel('Cost model').selectOption('model_aware');
    await link.getByLabel('Default input cost per unit').fill('0.001');
    await link.getByRole('button', { name: 'Add model cost' }).click();
    await link.getByLabel('AI model (model cost 1)').fill('gpt-4o');
    await link.getByLabel('Input cost (model cost 1)').fill('0.002');
    await link.getByLabel('Output cost (model cost 1)').fill('0.008');
    await link.getByLabel(/^Credit model/).selectOption({ label: 'AI credits (ai-credits)' });
    await link.getByRole('button', { name: 'Link feature' }).click();
    const rules = page.getByRole('table', { name: 'Plan features' });
    await rules.getByText('Tier up to 1,000').waitFor();
    assert.match(await rules.innerText(), /Tier up to 1,000: \$0\.01 per tokens \+ \$5\.00 flat/);
    assert.match(await rules.innerText(), /Tier above: \$0\.005 per tokens/);
    assert.match(await rules.innerText(), /Draws credits: AI credits/);
    assert.match(await rules.innerText(), /Cost per model: input \$0\.001 · gpt-4o: input \$0\.002, output \$0\.008/);

    const plan = await planId('metered');
    const tokens = (await m.expectOk(m.admin('GET', '/features'))).find((f: any) => f.key === 'tokens').id;
    const linked = await m.expectOk(rule(plan, tokens));
    assert.deepEqual(linked.value.pricing, {
      model: 'graduated', usage_unit_type: 'tokens', reset_mode: 'accumulate',
      tiers: [{ up_to: 1000, price_per_unit: 0.01, flat_fee: 5 }, { up_to: 'inf', price_per_unit: 0.005 }],
    });
    assert.deepEqual(linked.value.cost, { model: 'model_aware', default_input_cost_per_unit: 0.001, model_costs: { 'gpt-4o': { input: 0.002, output: 0.008 } } });
    assert.equal(linked.creditModelId, creditModel.id);

    await page.getByRole('button', { name: 'Edit rule of Tokens' }).click();
    const edit = page.getByRole('form', { name: 'Rule of Tokens' });
    assert.equal(await edit.getByLabel('Price per unit (tier 2)').inputValue(), '0.005', 'the stored rule fills the form');
    await edit.getByLabel('Pricing model').selectOption('usage');
    await edit.getByLabel('Price per unit', { exact: true }).fill('0.02');
    await edit.getByLabel(/Usage limit/).fill('500');
    await edit.getByLabel('Enabled').uncheck();
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await rules.getByText('Limit: 500 tokens').waitFor();
    assert.match(await rules.innerText(), /Usage price: \$0\.02 per tokens/);
    assert.match(await rules.locator('tbody tr').first().innerText(), /\bNo\b/);
    const edited = await m.expectOk(rule(plan, tokens));
    assert.deepEqual([edited.enabled, edited.value.pricing.model, edited.value.pricing.price_per_unit, edited.value.pricing.max_usage], [false, 'usage', 0.02, 500]);

    await confirm('Unlink feature', 'Unlink Tokens');
    await page.getByText('No feature linked').waitFor();
    assert.equal((await rule(plan, tokens)).status, 404);
  });

  test('when a feature is created, edited and deleted then the table and the API follow; a feature in use is not deleted and the refusal says why', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Features' }).click();
    const create = page.getByRole('form', { name: 'New feature' });
    await create.getByLabel('Name').fill('Seats');
    await create.getByLabel('Key').fill('seats');
    await create.getByRole('button', { name: 'Create feature' }).click();
    const table = page.getByRole('table', { name: 'Features' });
    await table.getByRole('row', { name: /Seats/ }).waitFor();
    const seats = (await m.expectOk(m.admin('GET', '/features'))).find((f: any) => f.key === 'seats');

    await page.getByRole('button', { name: 'Edit Seats' }).click();
    const edit = page.getByRole('form', { name: 'Edit Seats' });
    await edit.getByLabel('Name').fill('Seats per user');
    await edit.getByLabel('Description').fill('One per member');
    await edit.getByLabel('Enabled').uncheck();
    await edit.getByRole('button', { name: 'Save feature' }).click();
    await table.getByRole('row', { name: /Seats per user/ }).filter({ hasText: 'DISABLED' }).waitFor();
    const edited = await m.expectOk(m.admin('GET', `/features/${seats.id}`));
    assert.deepEqual([edited.name, edited.description, edited.isEnabled, edited.key], ['Seats per user', 'One per member', false, 'seats']);

    await confirm('Delete feature', 'Delete Seats per user');
    await table.getByRole('row', { name: /Seats per user/ }).waitFor({ state: 'detached' });
    assert.equal((await m.admin('GET', `/features/${seats.id}`)).status, 404);

    await confirm('Delete feature', 'Delete Messages');
    const refusal = page.getByRole('alert').filter({ hasText: 'Feature not deleted' });
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /requestId/);
    assert.equal((await m.admin('GET', `/features/${messages.id}`)).status, 200);
  });

  test('when the agent signup plan is chosen then the picker lists ACTIVE plans by name and the API stores its id', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Agent surface' }).click();
    const form = page.getByRole('form', { name: 'Agent settings' });
    const picker = form.getByLabel('Signup plan (a free ACTIVE plan)');
    await picker.locator('option', { hasText: 'Starter' }).waitFor({ state: 'attached' });
    const options = await picker.locator('option').allInnerTexts();
    assert.deepEqual(options.slice(1), ['Starter (starter) · $0.00 / 1 mo'], 'DRAFT and ARCHIVED plans are not offered');
    await picker.selectOption({ label: 'Starter (starter) · $0.00 / 1 mo' });
    await form.getByRole('button', { name: 'Save agent settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const settings = await m.expectOk(m.api('GET', '/api/v1/tanso/account-settings'));
    assert.equal(settings.agentSignupDefaultPlanId, await planId('starter'));
  });
});
