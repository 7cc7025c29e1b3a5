import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { activateMandate } from '../../../src/modules/customers/index.js';
import { withTransaction } from '../../../src/platform/db/transaction.js';
import { dec } from '../../../src/platform/money.js';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, type HttpResponse, type TestService } from '../../harness.js';
import { callTool, mcpClient } from '../mcp/mcp-helpers.js';

const STRIPE_KEY = 'sk_test_tallyPaidUpgrades0048';

type Obj = Record<string, any>;

/**
 * Paid upgrades in PAYMENT_PASS_THROUGH (api-contract-agent-v2.md §4.8): an upgrade whose proration
 * costs money, asked with an API key, moves the plan only once paid: off-session at once (200), else
 * its DUE ADJUSTMENT invoice gets a hosted page (402 gate for a customer key, 202 for the tenant)
 * whose invoice.paid completes it once. The key budget and the mandate are checked and reserved
 * before any processor call, so racing upgrades never pass them.
 */
describe(`paid upgrades, pass-through (§4.8) on ${backend}`, () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  let basic: Obj;
  let pro: Obj;
  let max: Obj;
  /** The proration of basic → pro at the frozen clock (every subscription here starts the same period). */
  let proration: number;

  const asKey = (key: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    svc.http.request(method, `/api/v1/client${path}`, { auth: key, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });
  const upgrade = (key: string, subscriptionId: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
    asKey(key, 'POST', `/subscriptions/${subscriptionId}/plan-change`, { changeToPlanId: pro.id, changeType: 'UPGRADE', ...extra }, headers);
  const issue = async (ref: string) => {
    const k = await m.expectOk(m.client('POST', `/customers/${ref}/keys`, { scopes: ['read', 'purchase'] }), 201);
    return { id: k.id as string, key: k.apiKey as string };
  };
  const setBudget = (ref: string, keyId: string, amountLimit: number) => m.expectOk(m.client('PUT', `/customers/${ref}/keys/${keyId}/budget`, { period: 'MONTH', amountLimit }));
  const budget = async (ref: string, keyId: string) => m.expectOk(m.client('GET', `/customers/${ref}/keys/${keyId}/budget`));
  const subscription = async (ref: string, id: string): Promise<Obj> => ((await m.expectOk(m.client('GET', `/customers/${ref}`))).subscriptions as Obj[]).find((s) => s.id === id)!;
  /** An ACTIVE basic subscription (its first invoice marked paid), optionally with a saved card. */
  const subscribed = async (ref: string, card?: string): Promise<string> => {
    const sub = await m.subscribe(ref, basic.id);
    await m.markPaid(sub.invoice.id);
    if (card) await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/default`, { paymentMethodId: card }));
    return sub.subscription.id;
  };
  const customer = async (ref: string) => (await m.customer(ref)).customerReferenceId as string;
  const adjustments = async (ref: string) => (await m.invoices(ref)).items.filter((i: Obj) => i.type === 'ADJUSTMENT');
  const charges = () => fake.calls('/v1/payment_intents', 'POST').filter((c) => /^tally-plan-change-/.test(c.idempotencyKey ?? ''));
  const stripeInvoice = (url: string) => fake.list(STRIPE_KEY, 'invoice').find((i) => i.hosted_invoice_url === url)!;
  const poolBalance = async (ref: string) => (await m.expectOk(m.client('GET', `/credits/${ref}/pools`))).items.reduce((sum: number, p: Obj) => sum + Number(p.balance), 0);

  function assertGate(res: HttpResponse, status: number, code: string, gate: string, action: string) {
    assert.equal(res.status, status, res.text);
    const e = res.body.error;
    assert.deepEqual([e.code, e.gate, e.action], [code, gate, action], res.text);
    for (const f of ['url', 'poll', 'retry_after']) assert.ok(f in e, `${f} in ${res.text}`);
    assert.equal(e.detail, `errorId=${e.requestId}`);
    return e;
  }

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    const feature = await m.feature();
    basic = await m.activePlan({ price: 30, features: [{ id: feature.id }] });
    pro = await m.activePlan({ price: 60, features: [{ id: feature.id }] });
    max = await m.activePlan({ price: 90, features: [{ id: feature.id }] });
    const model = await m.creditModel();
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${basic.id}?creditAmount=100`), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${pro.id}?creditAmount=250`), 201);
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
    const ref = await customer('preview');
    const preview = await m.expectOk(m.client('POST', `/subscriptions/${await subscribed(ref)}/plan-change/preview`, { changeToPlanId: pro.id, changeType: 'UPGRADE' }));
    proration = preview.invoice.amount;
    assert.ok(proration > 0 && proration < 30, `a prorated difference: ${proration}`);
  });
  after(() => close());

  test('when a customer key upgrades with a saved card then 200: charged off-session once (keyed by its invoice, the reservation), the plan moves at once, the invoice is PAID and the key budget counts it', async () => {
    const ref = await customer('saved');
    const id = await subscribed(ref, 'pm_card_visa');
    const k = await issue(ref);
    await setBudget(ref, k.id, 100);
    const before = charges().length;
    const res = await upgrade(k.key, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.subscription.plan.id, pro.id);
    assert.equal(res.body.data.subscription.scheduledChange, null);
    assert.deepEqual([res.body.data.invoice.type, res.body.data.invoice.status, res.body.data.invoice.amount], ['ADJUSTMENT', 'PAID', proration]);
    assert.equal(charges().length - before, 1, 'one off-session charge');
    const change = await svc.ctx.db.selectFrom('scheduled_plan_changes').selectAll().where('subscription_id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual([change.type, change.status], ['UPGRADE', 'COMPLETED']);
    assert.equal(charges().at(-1)!.idempotencyKey, `tally-plan-change-${res.body.data.invoice.id}`);
    assert.equal(res.body.data.invoice.metadata.planChangeId, change.id);
    assert.equal((await subscription(ref, id)).plan.id, pro.id);
    assert.equal((await budget(ref, k.id)).amountSpent, proration);
    assert.equal(await poolBalance(ref), 250, 'the plan credits plus the upgrade difference');
    await m.audit();
  });

  test('when a customer key without a method upgrades then 402 with the complete_checkout gate (hosted invoice, customer status poll), the plan stays, a retry returns the same invoice, and another change is 409', async () => {
    const ref = await customer('nomethod');
    const id = await subscribed(ref);
    const k = await issue(ref);
    const res = await upgrade(k.key, id);
    const e = assertGate(res, 402, 'payment_required', 'payment', 'complete_checkout');
    const data = res.body.data;
    assert.equal(e.url, data.checkoutUrl);
    assert.ok(stripeInvoice(data.checkoutUrl), 'url is the processor-hosted invoice');
    assert.equal(stripeInvoice(data.checkoutUrl).status, 'open');
    assert.ok(e.poll.endsWith(`/api/v1/client/customers/${ref}/status`), e.poll);
    assert.match(e.poll, /^https?:\/\//);
    assert.equal(e.retry_after, null);
    assert.equal(data.checkoutSessionId, undefined, 'a hosted invoice with no checkout session');
    assert.equal(data.subscription.plan.id, basic.id, 'the plan does not move');
    assert.deepEqual([data.subscription.scheduledChange.type, data.subscription.scheduledChange.status, data.subscription.scheduledChange.toPlan], ['UPGRADE', 'PENDING', pro.id]);
    assert.deepEqual([data.invoice.type, data.invoice.status, data.invoice.amount], ['ADJUSTMENT', 'DUE', proration]);
    assert.equal(data.invoice.metadata.planChangeId, data.subscription.scheduledChange.id);
    assert.equal((await subscription(ref, id)).plan.id, basic.id);

    const stripeInvoices = fake.list(STRIPE_KEY, 'invoice').length;
    const again = await upgrade(k.key, id);
    assertGate(again, 402, 'payment_required', 'payment', 'complete_checkout');
    assert.equal(again.body.data.invoice.id, data.invoice.id, 'the same invoice');
    assert.equal(again.body.data.checkoutUrl, data.checkoutUrl, 'the same page');
    assert.equal(fake.list(STRIPE_KEY, 'invoice').length, stripeInvoices, 'no new processor invoice');
    assert.equal((await adjustments(ref)).length, 1);

    const other = await upgrade(k.key, id, { changeToPlanId: max.id });
    assert.equal(other.status, 409, other.text);
    assert.match(other.body.error.message, /waits for the payment of its invoice/);
    assert.equal((await subscription(ref, id)).scheduledChange.id, data.subscription.scheduledChange.id);
  });

  test('when the hosted invoice is paid then invoice.paid (delivered twice) completes the change once: plan, credits difference, and the key budget counts the hosted payment', async () => {
    const ref = await customer('hosted');
    const id = await subscribed(ref);
    const k = await issue(ref);
    await setBudget(ref, k.id, 1);
    const res = await upgrade(k.key, id);
    assert.equal(res.status, 402, 'a hosted payment is not refused by the key budget');
    assert.equal((await budget(ref, k.id)).amountSpent, 0, 'counted when paid, not before');
    fake.payInvoice(STRIPE_KEY, stripeInvoice(res.body.data.checkoutUrl).id as string);
    const events = fake.pendingEvents(STRIPE_KEY);
    assert.ok(events.some((ev) => ev.type === 'invoice.paid'));
    await fake.deliverWebhooks();
    const endpoint = fake.list(STRIPE_KEY, 'webhook_endpoint')[0]!;
    for (const event of events) assert.equal((await fake.deliver(event, endpoint.url as string, endpoint.secret as string)).status, 201);
    const ours = await subscription(ref, id);
    assert.equal(ours.plan.id, pro.id);
    assert.equal(ours.scheduledChange, null);
    assert.deepEqual((await adjustments(ref)).map((i: Obj) => [i.id, i.status]), [[res.body.data.invoice.id, 'PAID']]);
    assert.equal(await poolBalance(ref), 250, 'the difference granted once');
    const b = await budget(ref, k.id);
    assert.deepEqual([b.amountSpent, b.amountRemaining], [proration, 0], 'a payment a person made counts, past the limit');
    const changed = await svc.ctx.db.selectFrom('outbound_events').select('payload').where('account_id', '=', acct.accountId).where('type', '=', 'subscription.plan_changed').execute();
    assert.equal(changed.filter((e) => e.payload.includes(id)).length, 1, 'subscription.plan_changed once');
    await m.audit();
  });

  test('when the tenant key upgrades without a method then 202 payment_pending with the hosted invoice; a replay under the same Idempotency-Key answers the same', async () => {
    const ref = await customer('tenant');
    const id = await subscribed(ref);
    const headers = { 'Idempotency-Key': `upgrade-${id}` };
    const res = await upgrade(acct.apiKey, id, {}, headers);
    assert.equal(res.status, 202, res.text);
    const data = res.body.data;
    assert.equal(data.status, 'payment_pending');
    assert.equal(stripeInvoice(data.paymentUrl).status, 'open');
    assert.equal(data.subscription.plan.id, basic.id);
    assert.deepEqual([data.invoice.type, data.invoice.status, data.invoice.amount], ['ADJUSTMENT', 'DUE', proration]);
    const replay = await upgrade(acct.apiKey, id, {}, headers);
    assert.equal(replay.status, 202);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.body.data.invoice.id, data.invoice.id);
  });

  test('when a waiting upgrade is cancelled then its invoice is voided here and at the processor, its hosted spend is gone, and a new upgrade raises a new invoice', async () => {
    const ref = await customer('cancel');
    const id = await subscribed(ref);
    const k = await issue(ref);
    await setBudget(ref, k.id, 100);
    const res = await upgrade(k.key, id);
    assert.equal(res.status, 402, res.text);
    const hosted = stripeInvoice(res.body.data.checkoutUrl);
    const cancel = await asKey(k.key, 'DELETE', `/subscriptions/${id}/plan-change/scheduled`);
    assert.equal(cancel.status, 200, cancel.text);
    assert.equal(fake.list(STRIPE_KEY, 'invoice').find((i) => i.id === hosted.id)!.status, 'void');
    assert.deepEqual((await adjustments(ref)).map((i: Obj) => i.status), ['VOID']);
    const ours = await subscription(ref, id);
    assert.deepEqual([ours.plan.id, ours.scheduledChange], [basic.id, null]);
    const spends = await svc.ctx.db.selectFrom('api_key_spend').selectAll().where('account_id', '=', acct.accountId).where('key_id', '=', k.id).execute();
    assert.deepEqual(spends, []);
    await fake.deliverWebhooks();
    assert.deepEqual((await adjustments(ref)).map((i: Obj) => i.status), ['VOID'], 'the processor void changes nothing more');

    await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/default`, { paymentMethodId: 'pm_card_visa' }));
    const paid = await upgrade(k.key, id);
    assert.equal(paid.status, 200, paid.text);
    assert.notEqual(paid.body.data.invoice.id, res.body.data.invoice.id);
    assert.equal((await budget(ref, k.id)).amountSpent, proration);
  });

  test('when the saved card is declined then 402 with declineReason, the reservations on key budget and mandate are given back, and the plan stays', async () => {
    const ref = await customer('declined');
    const id = await subscribed(ref, 'pm_card_chargeDeclined');
    const k = await issue(ref);
    await setBudget(ref, k.id, 100);
    await mandate(ref, '100');
    const res = await upgrade(k.key, id);
    assertGate(res, 402, 'payment_required', 'payment', 'complete_checkout');
    assert.equal(res.body.data.declineReason, 'off-session charge declined');
    assert.equal((await budget(ref, k.id)).amountSpent, 0);
    const held = await svc.ctx.db.selectFrom('customer_mandate_spend').selectAll().where('account_id', '=', acct.accountId).execute();
    assert.deepEqual(held.filter((r) => r.state === 'PENDING'), []);
    assert.equal((await subscription(ref, id)).plan.id, basic.id);
  });

  async function mandate(ref: string, amount: string) {
    const row = await svc.ctx.db.selectFrom('customers').select('id').where('account_id', '=', acct.accountId).where('customer_reference_id', '=', ref).executeTakeFirstOrThrow();
    await withTransaction(svc.ctx.db, (tx) => activateMandate(tx, acct.accountId, row.id, { amount: dec(amount), period: 'month' }, svc.clock.now()));
  }

  test('when the key budget, the mandate or the spend cap refuses then 403 with its gate, before any processor call, and nothing is written', async () => {
    const ref = await customer('refused');
    const first = await subscribed(ref, 'pm_card_visa');
    const id = await subscribed(ref);
    const k = await issue(ref);
    await setBudget(ref, k.id, 1);
    const whole = assertGate(await upgrade(k.key, first), 403, 'spend_cap_exceeded', 'budget', 'raise_spend_cap');
    assert.match(whole.message, /above this API key's whole spend budget of 1;/);
    await setBudget(ref, k.id, proration + 1);
    assert.equal((await upgrade(k.key, first)).status, 200);
    const calls = fake.requests.length;
    const window = assertGate(await upgrade(k.key, id), 403, 'budget_exceeded', 'budget', 'wait');
    assert.ok(Number.isInteger(window.retry_after) && window.retry_after >= 1, JSON.stringify(window));
    await setBudget(ref, k.id, 1000);

    await mandate(ref, '1');
    const above = assertGate(await upgrade(k.key, id), 403, 'spend_cap_exceeded', 'budget', 'raise_mandate');
    assert.ok(above.url.endsWith(`/api/v1/client/customers/${ref}/spend-mandate`), above.url);
    assert.match(above.message, /^This charge \(\d+\.\d\d\) is above the 1\.00 per month your principal approved/);
    await mandate(ref, '1000');

    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { agentMaxTopupAmount: 1 }));
    try {
      const cap = assertGate(await upgrade(k.key, id), 403, 'spend_cap_exceeded', 'budget', 'raise_spend_cap');
      assert.match(cap.message, /exceeds this account's agent spend cap of 1\.00/);
    } finally {
      await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { agentMaxTopupAmount: 0 }));
    }
    assert.deepEqual(fake.requests.slice(calls), [], 'no processor call');
    const ours = await subscription(ref, id);
    assert.deepEqual([ours.plan.id, ours.scheduledChange], [basic.id, null]);
    assert.equal((await adjustments(ref)).length, 1, "only the first upgrade's invoice");
    assert.equal((await budget(ref, k.id)).amountSpent, proration);
    const held = await svc.ctx.db.selectFrom('customer_mandate_spend').selectAll().where('account_id', '=', acct.accountId).execute();
    assert.deepEqual(held, [], 'a refusal reserves nothing');

    const ok = await upgrade(k.key, id);
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await budget(ref, k.id)).amountSpent, proration * 2);
  });

  test('when 20 upgrades of 20 subscriptions of one customer race against a key budget of 5 prorations then exactly 5 are charged and move, 15 get 403 and stay', async () => {
    const ref = await customer('race');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await subscribed(ref, i === 0 ? 'pm_card_visa' : undefined));
    const k = await issue(ref);
    await setBudget(ref, k.id, proration * 5);
    const before = charges().length;
    const results = await Promise.all(ids.map((id) => upgrade(k.key, id)));
    assert.equal(results.filter((r) => r.status === 200).length, 5, results.map((r) => `${r.status}`).join(','));
    const refused = results.filter((r) => r.status === 403);
    assert.equal(refused.length, 15);
    for (const r of refused) assert.equal(r.body.error.code, 'budget_exceeded');
    assert.equal(charges().length - before, 5, 'the processor saw exactly 5 charges');
    const b = await budget(ref, k.id);
    assert.deepEqual([b.amountSpent, b.amountRemaining], [proration * 5, 0]);
    const subs = (await m.expectOk(m.client('GET', `/customers/${ref}`))).subscriptions as Obj[];
    assert.equal(subs.filter((s) => s.plan.id === pro.id).length, 5);
    assert.deepEqual(subs.filter((s) => s.plan.id === basic.id).map((s) => s.scheduledChange), Array(15).fill(null));
    assert.deepEqual((await adjustments(ref)).map((i: Obj) => i.status), Array(5).fill('PAID'));
    await m.audit();
  });

  test('when an operator changes plan from the console then it applies at once as before (no charge, a DUE invoice); a downgrade with a key is scheduled as before', async () => {
    const ref = await customer('operator');
    const id = await subscribed(ref);
    const signIn = await svc.http.post('/public/v1/sessions', { body: { username: acct.username, password: acct.password } });
    assert.equal(signIn.status, 200, signIn.text);
    const headers = { cookie: /^(tally_session=[^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')![1]!, 'x-csrf-token': signIn.body.data.csrfToken as string };
    const res = await svc.http.request('POST', `/api/v1/client/subscriptions/${id}/plan-change`, { headers, body: { changeToPlanId: pro.id, changeType: 'UPGRADE' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.subscription.plan.id, pro.id);
    assert.deepEqual([res.body.data.invoice.status, res.body.data.invoice.amount], ['DUE', proration]);
    const down = await upgrade(acct.apiKey, id, { changeToPlanId: basic.id, changeType: 'DOWNGRADE' });
    assert.equal(down.status, 200, down.text);
    assert.equal(down.body.data.invoice, null);
  });

  test('when the MCP tool changes plan with the tenant key and no method then its result is the payment_pending answer', async () => {
    const ref = await customer('mcp');
    const id = await subscribed(ref);
    const client = await mcpClient(svc, acct.apiKey);
    try {
      const out = await callTool(client, 'changeSubscriptionPlan', { subscriptionId: id, newPlanId: pro.id, changeType: 'UPGRADE', confirmAction: true });
      assert.equal(out.isError, false, out.text);
      assert.equal(out.json.status, 'payment_pending');
      assert.equal(stripeInvoice(out.json.paymentUrl).status, 'open');
      assert.equal(out.json.subscription.plan.id, basic.id);
      assert.equal(out.json.invoice.status, 'DUE');
    } finally {
      await client.close();
    }
  });
});
