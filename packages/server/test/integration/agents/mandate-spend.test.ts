import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { activateMandate, mandateSpentIn, mandateWindow, releaseMandateSpend, reserveMandateSpend, settleMandateSpend } from '../../../src/modules/customers/index.js';
import { withTransaction } from '../../../src/platform/db/transaction.js';
import { newId } from '../../../src/platform/ids.js';
import { dec } from '../../../src/platform/money.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * The spend mandate's check and reservation (api-contract-agent-v2.md §4.6): one transaction under
 * the customer row lock, so concurrent charges from any of the customer's keys never pass it.
 */
describe(`spend mandate spend (api-contract-agent-v2.md §4.6) on ${backend}`, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-09-14T10:00:00Z' });
  });
  after(() => svc.close());

  async function customerWithMandate(amount: string, period: 'day' | 'week' | 'month' = 'month') {
    const acct = await createTestAccount(svc);
    const m = monetization(svc, acct);
    const c = await m.customer();
    const row = await svc.ctx.db.selectFrom('customers').selectAll().where('account_id', '=', acct.accountId).where('customer_reference_id', '=', c.customerReferenceId).executeTakeFirstOrThrow();
    await withTransaction(svc.ctx.db, (tx) => activateMandate(tx, acct.accountId, row.id, { amount: dec(amount), period }, svc.clock.now()));
    const charge = (amount: string, id = newId()) =>
      withTransaction(svc.ctx.db, (tx) => reserveMandateSpend(tx, { accountId: acct.accountId, customerId: row.id, id, amount: dec(amount), now: svc.clock.now() }));
    const spent = async () => {
      const now = svc.clock.now();
      const r = await svc.ctx.db.selectFrom('customers').selectAll().where('account_id', '=', acct.accountId).where('id', '=', row.id).executeTakeFirstOrThrow();
      return mandateSpentIn(svc.ctx.db, acct.accountId, row.id, { startedAt: r.spend_mandate_started_at! }, mandateWindow(r.spend_mandate_started_at!, period, now).start);
    };
    return { ...acct, ref: c.customerReferenceId, customerId: row.id, charge, spent };
  }

  test('when 20 charges of 2.00 race a 10.00 mandate then exactly 5 are reserved and the window holds exactly 10.00', async () => {
    const c = await customerWithMandate('10');
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => c.charge('2')));
    assert.equal(outcomes.filter((o) => o === null).length, 5, JSON.stringify(outcomes.map((o) => o?.kind ?? 'ok')));
    assert.equal(outcomes.filter((o) => o?.kind === 'window').length, 15);
    assert.equal((await c.spent()).toFixed(2), '10.00');
    const rows = await svc.ctx.db.selectFrom('customer_mandate_spend').selectAll().where('account_id', '=', c.accountId).execute();
    assert.equal(rows.length, 5);
    const status = await svc.http.get(`/api/v1/client/customers/${c.ref}/status`, { auth: c.apiKey });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(status.body.data.spend_mandate, {
      status: 'active', setup_url: null, max_amount: 10, spent: 10, remaining: 0, period: 'month', resets_at: '2026-10-14T10:00:00.000Z', currency: 'USD',
    });
  });

  test('when a charge is declined its reservation is released; a settled one stays; a charge above the whole mandate is refused as such', async () => {
    const c = await customerWithMandate('10', 'week');
    const declined = newId();
    assert.equal(await c.charge('4', declined), null);
    const kept = newId();
    assert.equal(await c.charge('4', kept), null);
    const refused = await c.charge('4');
    assert.equal(refused?.kind, 'window');
    assert.match(refused!.message, /^This charge \(4\.00\) would pass the 10\.00 per week your principal approved: 8\.00 already spent in this window, which resets at 2026-09-21T10:00:00Z; wait for the window to reset or buy less\.$/);
    await withTransaction(svc.ctx.db, (tx) => releaseMandateSpend(tx, c.accountId, declined));
    await withTransaction(svc.ctx.db, (tx) => settleMandateSpend(tx, c.accountId, kept, svc.clock.now()));
    await withTransaction(svc.ctx.db, (tx) => releaseMandateSpend(tx, c.accountId, kept));
    assert.equal((await c.spent()).toFixed(2), '4.00', 'a settled charge is not released');
    assert.equal(await c.charge('6'), null, 'the released 4.00 is room again');
    const whole = await c.charge('10.01');
    assert.equal(whole?.kind, 'whole');
    assert.equal(whole!.message, 'This charge (10.01) is above the 10.00 per week your principal approved; give your principal url to approve a higher limit, or buy less.');
  });

  test('when the window resets then the spend starts from zero; a new mandate with the same period keeps the window, a new period starts one', async () => {
    const c = await customerWithMandate('5', 'day');
    const start = svc.clock.now();
    try {
      assert.equal(await c.charge('5'), null);
      assert.equal((await c.charge('1'))?.kind, 'window');
      svc.clock.set(new Date(start.getTime() + 24 * 3600 * 1000));
      assert.equal(await c.charge('5'), null, 'a new window');
      await withTransaction(svc.ctx.db, (tx) => activateMandate(tx, c.accountId, c.customerId, { amount: dec('8'), period: 'day' }, svc.clock.now()));
      assert.equal(await c.charge('3'), null, '5 + 3 fits the raised 8 in the same window');
      assert.equal((await c.charge('1'))?.kind, 'window');
      await withTransaction(svc.ctx.db, (tx) => activateMandate(tx, c.accountId, c.customerId, { amount: dec('8'), period: 'week' }, svc.clock.now()));
      assert.equal(await c.charge('8'), null, 'a new period starts a new window at now');
    } finally {
      svc.clock.set(start);
    }
  });
});
