import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyProcessorInvoices0007';

type Obj = Record<string, any>;

/**
 * Mirrored invoices (contract §5.5, §6.2): an invoice Stripe cannot collect is PAST_DUE and revokes
 * the subscription's entitlements until it is paid or voided, and every Stripe invoice mirrors,
 * however many Stripe raises for one period (a refused mirror would be retried by Stripe forever).
 */
describe('mirrored invoices (PROCESSOR_INTEGRATION)', () => {
  let svc: TestService;
  let fake: StripeFake;
  let m: ReturnType<typeof monetization>;
  let feature: Obj;
  let plan: Obj;
  let close: () => Promise<void>;

  const deliverAll = async () => {
    const deliveries = await fake.deliverWebhooks();
    assert.deepEqual(deliveries.filter((d) => d.status !== 201).map((d) => [d.type, d.status, d.body]), [], 'every delivery is accepted');
  };
  const allowed = async (ref: string) => (await m.check(ref, feature.key)).allowed as boolean;
  /** A customer subscribed at Stripe with a card; its Stripe subscription. */
  const subscribed = async (ref: string): Promise<Obj> => {
    await m.customer(ref);
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: ref, planId: plan.id, paymentMethodId: 'pm_card_visa' });
    assert.equal(res.status, 201, res.text);
    await deliverAll();
    return fake.list(STRIPE_KEY, 'subscription').find((s) => (s.metadata as Obj).tally_subscription_id === res.body.data.subscription.id)!;
  };
  /** A Stripe invoice of the subscription; `lines` are [amount, period start, period end]. */
  const invoice = (stripeSub: Obj, id: string, status: string, reason: string, lines: [number, number, number][]) => ({
    id, object: 'invoice', customer: stripeSub.customer, status, currency: 'usd', billing_reason: reason, created: lines[0]![1], due_date: null,
    total: lines.reduce((s, l) => s + l[0], 0), amount_due: lines.reduce((s, l) => s + l[0], 0), period_start: lines[0]![1], period_end: lines[0]![1], metadata: {},
    parent: { type: 'subscription_details', subscription_details: { subscription: stripeSub.id, metadata: stripeSub.metadata } },
    lines: { object: 'list', data: lines.map(([amount, start, end], i) => ({ id: `il_${id}_${i}`, object: 'line_item', amount, currency: 'usd', description: `Line ${i}`, period: { start, end } })) },
  });
  const periodOf = (stripeSub: Obj) => {
    const item = stripeSub.items.data[0];
    const length = item.current_period_end - item.current_period_start;
    return { p0: item.current_period_start as number, p1: item.current_period_end as number, p2: (item.current_period_end + length) as number };
  };
  const mirrored = async (ref: string) =>
    (await m.invoices(ref)).items.map((i: Obj) => [i.type, i.status, i.amount, new Date(i.periodStart).getTime() / 1000]).sort((a: unknown[], b: unknown[]) => String(a).localeCompare(String(b)));

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    const acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    feature = await m.feature();
    plan = await m.activePlan({ price: 30, features: [{ id: feature.id }] });
    await connectStripe(m, STRIPE_KEY, 'PROCESSOR_INTEGRATION');
  });
  after(() => close());

  test('when Stripe marks an invoice uncollectible then ours is PAST_DUE and the entitlements are revoked, and paying it restores them', async () => {
    const stripeSub = await subscribed('unpaid');
    const { p1, p2 } = periodOf(stripeSub);
    assert.equal(await allowed('unpaid'), true);
    fake.emitEvent(STRIPE_KEY, 'invoice.created', invoice(stripeSub, 'in_renewal', 'open', 'subscription_cycle', [[3000, p1, p2]]));
    await deliverAll();
    assert.equal(await allowed('unpaid'), true, 'a DUE invoice keeps them');

    fake.emitEvent(STRIPE_KEY, 'invoice.marked_uncollectible', invoice(stripeSub, 'in_renewal', 'uncollectible', 'subscription_cycle', [[3000, p1, p2]]));
    await deliverAll();
    assert.deepEqual((await m.invoices('unpaid')).items.filter((i: Obj) => i.type === 'REGULAR').map((i: Obj) => i.status), ['PAST_DUE']);
    assert.equal(await allowed('unpaid'), false);

    fake.emitEvent(STRIPE_KEY, 'invoice.paid', invoice(stripeSub, 'in_renewal', 'paid', 'subscription_cycle', [[3000, p1, p2]]));
    await deliverAll();
    assert.deepEqual((await m.invoices('unpaid')).items.filter((i: Obj) => i.type === 'REGULAR').map((i: Obj) => i.status), ['PAID']);
    assert.equal(await allowed('unpaid'), true);
  });

  test('when the first event of an invoice already says uncollectible then the entitlements are revoked, and voiding it restores them', async () => {
    const stripeSub = await subscribed('written-off');
    const { p1, p2 } = periodOf(stripeSub);
    fake.emitEvent(STRIPE_KEY, 'invoice.marked_uncollectible', invoice(stripeSub, 'in_written_off', 'uncollectible', 'subscription_cycle', [[3000, p1, p2]]));
    await deliverAll();
    assert.equal(await allowed('written-off'), false);
    fake.emitEvent(STRIPE_KEY, 'invoice.voided', invoice(stripeSub, 'in_written_off', 'void', 'subscription_cycle', [[3000, p1, p2]]));
    await deliverAll();
    assert.deepEqual((await m.invoices('written-off')).items.filter((i: Obj) => i.type === 'REGULAR').map((i: Obj) => i.status), ['VOID']);
    assert.equal(await allowed('written-off'), true);
  });

  test('when Stripe raises two invoices for one period then both mirror (the second as an ADJUSTMENT) and every delivery is accepted', async () => {
    const stripeSub = await subscribed('twice');
    const { p0, p1, p2 } = periodOf(stripeSub);
    // A renewal billing the new period in advance and the closed period's metered usage: it is the new period's invoice.
    fake.emitEvent(STRIPE_KEY, 'invoice.created', invoice(stripeSub, 'in_cycle', 'open', 'subscription_cycle', [[3000, p1, p2], [140, p0, p1]]));
    // A second cycle invoice for the same period, and a second "create" invoice for the first period.
    fake.emitEvent(STRIPE_KEY, 'invoice.created', invoice(stripeSub, 'in_cycle_again', 'open', 'subscription_cycle', [[500, p1, p2]]));
    fake.emitEvent(STRIPE_KEY, 'invoice.created', invoice(stripeSub, 'in_create_again', 'paid', 'subscription_create', [[700, p0, p1]]));
    await deliverAll();
    assert.deepEqual(await mirrored('twice'), [
      ['ADJUSTMENT', 'DUE', 5, p1],
      ['ADJUSTMENT', 'PAID', 7, p0],
      ['IN_ADVANCE_INITIAL', 'PAID', 30, p0],
      ['REGULAR', 'DUE', 31.4, p1],
    ]);
    // Stripe's retries of those events change nothing.
    for (const id of ['in_cycle', 'in_cycle_again']) fake.emitEvent(STRIPE_KEY, 'invoice.finalized', invoice(stripeSub, id, 'open', 'subscription_cycle', [[id === 'in_cycle' ? 3000 : 500, p1, p2]]));
    await deliverAll();
    assert.equal((await mirrored('twice')).length, 4);
  });
});
