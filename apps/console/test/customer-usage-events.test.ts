import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

/** The customer page's usage events (issue 35 §6): the Client API's usage/events read, newest first, paged. */
describe('console: a customer\'s usage events (browser)', () => {
  let c: ConsoleSession;
  before(async () => {
    c = await openConsole();
    const m = monetization(c.svc, c.account);
    const feature = await m.feature({ key: 'chat' });
    const plan = await m.activePlan({ price: 0, features: [{ id: feature.id }], key: 'free' });
    await m.customer('initech');
    await m.subscribe('initech', plan.id);
    const now = c.svc.clock.now().getTime();
    for (const [key, units, minutesAgo] of [['evt-old', 2, 30], ['evt-new', '0.5', 10]] as const) {
      const res = await m.event({ customerReferenceId: 'initech', featureKey: 'chat', eventName: 'chat.completion', eventIdempotencyKey: key, usageUnits: units, occurredAt: new Date(now - minutesAgo * 60_000).toISOString() });
      assert.ok(res.status < 300, res.text);
    }
    await m.check('initech', 'chat');
    await c.signIn();
  });
  after(() => c.close());

  test('when a customer opens then its recorded events are listed newest first with units and unit, checks left out', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('link', { name: 'initech' }).click();
    const table = page.getByRole('table', { name: 'Usage events' });
    await table.locator('tbody tr').first().waitFor();
    const rows = await table.locator('tbody tr').allInnerTexts();
    assert.equal(rows.length, 2, rows.join('\n'));
    assert.match(rows[0]!, /chat\s+chat\.completion\s+0\.5 messages\s+evt-new/);
    assert.match(rows[1]!, /chat\s+chat\.completion\s+2 messages\s+evt-old/);
  });
});
