import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { spendFixtures } from '../../../packages/server/test/integration/spend/reports-fixtures.js';
import { openConsole, type ConsoleSession } from './browser.js';

/**
 * The spend-unit tree, attribution rules and budgets, each action end to end from an account with
 * no unit: the empty states lead to the editor, a unit is created under a parent, edited, given a
 * rule and a budget (bumped, the bump ended, deleted), then deleted; the API is read back each time.
 */
describe('console: spend units, rules and budgets (browser)', () => {
  let c: ConsoleSession;
  let f: ReturnType<typeof spendFixtures>;
  const units = async () => f.expectOk<{ id: string; name: string; type: string; parentId: string | null }[]>(f.api('GET', '/units'));
  const unitNamed = async (name: string) => (await units()).find((u) => u.name === name)!;

  before(async () => {
    c = await openConsole({ now: '2026-03-06T12:00:00Z' });
    f = spendFixtures(c.svc, c.account);
    await c.signIn();
  });
  after(() => c.close());

  test('when no unit exists then Allocation and Budgets say so and lead to the units editor', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Budgets' }).click();
    await page.getByText('No spend unit yet: a budget belongs to a unit.').waitFor();
    await page.getByRole('link', { name: 'Allocation' }).click();
    await page.getByText('No spend unit yet: every dollar is unattributed.').waitFor();
    await page.getByRole('link', { name: 'Create a spend unit and its rules' }).click();
    await page.getByRole('heading', { name: 'Units & rules', level: 1 }).waitFor();
    await page.getByText('No spend unit yet: create a team, project or person').waitFor();
    await page.getByText('No rule yet').waitFor();
  });

  test('when units are created under a parent and edited then the tree shows them, and the API refuses a loop and a person while person level is off', async () => {
    const { page } = c;
    const form = page.getByRole('form', { name: 'New spend unit' });
    await form.getByLabel('Name').fill('Platform');
    await form.getByRole('button', { name: 'Create unit' }).click();
    const tree = page.getByRole('table', { name: 'Spend units' });
    await tree.getByText('Platform').waitFor();
    await form.getByLabel('Name').fill('Backend');
    await form.getByLabel('Parent').selectOption({ label: 'Platform (TEAM)' });
    await form.getByRole('button', { name: 'Create unit' }).click();
    await tree.getByText('Backend').waitFor();
    const platform = await unitNamed('Platform');
    assert.equal((await unitNamed('Backend')).parentId, platform.id);
    assert.deepEqual((await tree.locator('tbody tr td:first-child').allInnerTexts()).map((t) => t.trim()), ['Platform', 'Backend'], 'the child under its parent');

    await form.getByLabel('Type').selectOption('PERSON');
    await form.getByLabel('Name').fill('Ada');
    await form.getByLabel('E-mail').fill('ada@example.com');
    await form.getByRole('button', { name: 'Create unit' }).click();
    await form.getByText(/Person-level attribution is off/).waitFor();
    assert.equal((await units()).length, 2);

    await tree.getByRole('button', { name: 'Edit Backend' }).click();
    const edit = page.getByRole('form', { name: 'Edit Backend' });
    await edit.getByLabel('Name').fill('Backend API');
    await edit.getByRole('button', { name: 'Save unit' }).click();
    await tree.getByText('Backend API').waitFor();
    const backend = await unitNamed('Backend API');
    assert.equal(backend.parentId, platform.id, 'the PUT kept the parent');

    await tree.getByRole('button', { name: 'Edit Platform' }).click();
    const loop = page.getByRole('form', { name: 'Edit Platform' });
    await loop.getByLabel('Parent').selectOption({ label: 'Backend API (TEAM)' });
    await loop.getByRole('button', { name: 'Save unit' }).click();
    await loop.getByText(/That would make Platform an ancestor of itself/).waitFor();
    assert.equal((await unitNamed('Platform')).parentId, null);
    await tree.getByRole('button', { name: 'Edit Platform' }).click();
  });

  test('when a rule is added then it lists and the API has it; a duplicate is refused; deleting it (confirmed) removes it', async () => {
    const { page } = c;
    const form = page.getByRole('form', { name: 'New attribution rule' });
    await form.getByLabel('Unit').selectOption({ label: 'Backend API (TEAM)' });
    await form.getByLabel('Provider').selectOption('ANTHROPIC');
    await form.getByLabel('Match').selectOption('WORKSPACE_ID');
    await form.getByLabel('Value').fill('wrkspc_be');
    await form.getByLabel(/Priority/).fill('10');
    await form.getByRole('button', { name: 'Add rule' }).click();
    const table = page.getByRole('table', { name: 'Attribution rules' });
    await table.getByText('wrkspc_be').waitFor();
    assert.match(await table.innerText(), /Backend API\s+ANTHROPIC\s+WORKSPACE_ID\s+wrkspc_be\s+10/);
    const backend = await unitNamed('Backend API');
    const rules = await f.expectOk<any[]>(f.api('GET', '/rules'));
    assert.deepEqual(rules.map((r) => [r.spendUnitId, r.provider, r.matchKind, r.matchValue, r.priority]), [[backend.id, 'ANTHROPIC', 'WORKSPACE_ID', 'wrkspc_be', 10]]);

    await form.getByLabel('Unit').selectOption({ label: 'Backend API (TEAM)' });
    await form.getByLabel('Value').fill('wrkspc_be');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await form.getByText(/That rule already exists on Backend API/).waitFor();

    await table.getByRole('button', { name: 'Delete rule ANTHROPIC WORKSPACE_ID wrkspc_be' }).click();
    const dialog = page.getByRole('alertdialog');
    assert.match(await dialog.innerText(), /Backend API, history included/);
    await dialog.getByRole('button', { name: 'Delete rule' }).click();
    await page.getByText('No rule yet').waitFor();
    assert.deepEqual(await f.expectOk(f.api('GET', '/rules')), []);
  });

  test('when a budget is set, bumped, the bump ended and the budget deleted (each confirmed) then the card and the API follow', async () => {
    const { page } = c;
    const backend = await unitNamed('Backend API');
    await page.getByRole('link', { name: 'Budgets' }).click();
    const card = page.getByRole('article', { name: 'Budget of Backend API' });
    await card.getByRole('button', { name: 'Set budget' }).click();
    const form = card.getByRole('form', { name: 'Budget form of Backend API' });
    await form.getByLabel('Monthly ceiling ($)').fill('1200');
    await form.getByRole('button', { name: 'Save budget' }).click();
    await card.getByText(/of \$1,200\.00/).waitFor();
    assert.equal(String((await f.expectOk<any>(f.api('GET', `/units/${backend.id}/budget`))).monthlyCents), '120000');

    await card.getByRole('button', { name: 'Bump' }).click();
    const bump = card.getByRole('form', { name: 'Bump of Backend API' });
    await bump.getByLabel('Lifted monthly ceiling ($)').fill('1500.50');
    await bump.getByLabel('Until').fill('2026-03-20T12:00');
    await bump.getByRole('button', { name: 'Bump budget' }).click();
    await card.getByText(/bumped to \$1,500\.50 until/).waitFor();
    assert.equal(String((await f.expectOk<any>(f.api('GET', `/units/${backend.id}/budget`))).bumpMonthlyCents), '150050');

    await card.getByRole('button', { name: 'End bump' }).click();
    const dialog = page.getByRole('alertdialog');
    assert.match(await dialog.innerText(), /from \$1,500\.50 to the standing \$1,200\.00 a month/);
    await dialog.getByRole('button', { name: 'End bump' }).click();
    await card.getByText(/bumped to/).waitFor({ state: 'detached' });
    assert.equal((await f.expectOk<any>(f.api('GET', `/units/${backend.id}/budget`))).bumpMonthlyCents, null);

    await card.getByRole('button', { name: 'Delete budget' }).click();
    await dialog.getByRole('button', { name: 'Delete budget' }).click();
    await card.getByText('No budget.').waitFor();
    assert.equal((await f.api('GET', `/units/${backend.id}/budget`)).status, 404);
  });

  test('when a parent unit is deleted (confirmed) then its child moves to the top level', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Units & rules' }).click();
    const tree = page.getByRole('table', { name: 'Spend units' });
    await tree.getByRole('button', { name: 'Delete Platform' }).click();
    const dialog = page.getByRole('alertdialog');
    assert.match(await dialog.innerText(), /children move up to the top level/);
    await dialog.getByRole('button', { name: 'Delete unit' }).click();
    await tree.getByText('Platform').waitFor({ state: 'detached' });
    const left = await units();
    assert.deepEqual(left.map((u) => [u.name, u.parentId]), [['Backend API', null]]);
  });
});
