import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

describe('console: overview (browser)', () => {
  let c: ConsoleSession;
  before(async () => {
    c = await openConsole();
    const m = monetization(c.svc, c.account);
    const feature = await m.feature({ key: 'chat' });
    const plan = await m.activePlan({ price: '30', features: [{ id: feature.id }] });
    for (const ref of ['acme', 'globex']) {
      await m.customer(ref);
      await m.subscribe(ref, plan.id);
    }
    await m.markPaid((await m.invoices('acme')).items[0].id);
    for (const [ref, n] of [['acme', 3], ['globex', 1]] as const) {
      for (let i = 0; i < n; i++) {
        const res = await m.event({ customerReferenceId: ref, featureKey: 'chat', usageUnits: 2, eventIdempotencyKey: `${ref}-${i}` });
        assert.ok(res.status < 300, res.text);
      }
    }
  });
  after(() => c.close());

  test('when the overview opens then it shows subscriptions, MRR, 30 days of events and the top tables', async () => {
    const { page } = c;
    await c.signIn();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    assert.equal(await page.getByTestId('active-subscriptions').innerText(), '1');
    assert.match(await page.getByTestId('mrr').innerText(), /\$30\.00/);
    assert.equal(await page.getByTestId('past-due').innerText(), 'None');
    assert.match(await page.getByTestId('events-30d').innerText(), /^4 events in the last 30 days/);
    await page.locator('.chart canvas').first().waitFor();
    const customers = page.getByRole('table', { name: 'Top customers by usage' });
    const rows = await customers.locator('tbody tr').allInnerTexts();
    assert.match(rows[0]!, /acme\s+3\s+6/);
    assert.match(rows[1]!, /globex\s+1\s+2/);
    assert.match(await page.getByRole('table', { name: 'Top features' }).innerText(), /chat\s+4\s+8/);
    await c.screenshot('overview');
  });
});
