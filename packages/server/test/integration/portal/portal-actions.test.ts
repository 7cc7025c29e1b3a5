import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/** A customer portal that acts (api-contract-money.md §3.1–§3.3): permission flags, plan change, cancel at period end. */
describe('customer portal actions', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let basicPlanId: string;
  let proPlanId: string;
  let aliceSubscriptionId: string;
  let bobSubscriptionId: string;

  before(async () => {
    svc = await startTestService();
    const account = await createTestAccount(svc);
    m = monetization(svc, account);
    const feature = await m.feature();
    basicPlanId = (await m.activePlan({ price: 10, features: [{ id: feature.id }] })).id;
    proPlanId = (await m.activePlan({ price: 30, features: [{ id: feature.id }] })).id;
    await m.customer('alice');
    await m.customer('bob');
    aliceSubscriptionId = (await m.subscribe('alice', basicPlanId)).subscription.id;
    bobSubscriptionId = (await m.subscribe('bob', basicPlanId)).subscription.id;
    // Paid (no processor): the subscriptions are ACTIVE.
    for (const ref of ['alice', 'bob']) await m.markPaid((await m.invoices(ref)).items[0].id);
  });
  after(() => svc.close());

  const open = async (ref: string, body?: unknown) => m.expectOk(m.client('POST', `/customers/${ref}/portal-sessions`, body), 201);
  const as = (token: string, method: string, path: string, body?: unknown) =>
    svc.http.request(method, `/api/v1/client${path}`, { auth: token, ...(body === undefined ? {} : { body }) });
  const subscriptionOf = async (ref: string) => (await m.expectOk(m.client('GET', `/customers/${ref}`))).subscriptions[0];

  test('when a session is opened with every flag then its scopes list read first and the flags in the contract order, in every view', async () => {
    const session = await open('alice', { allowAutoTopup: true, allowCancel: true, allowPlanChange: true, allowPurchase: true });
    assert.deepEqual(session.scopes, ['read', 'purchase', 'plan_change', 'cancel', 'auto_topup']);
    assert.deepEqual([session.allowPurchase, session.allowPlanChange, session.allowCancel, session.allowAutoTopup], [true, true, true, true]);
    const own = await m.expectOk(as(session.token, 'GET', '/portal/session'));
    assert.deepEqual(own.scopes, session.scopes);
    assert.equal(own.allowCancel, true);
    const listed = (await m.expectOk(m.client('GET', '/customers/alice/portal-sessions'))).items.find((s: { id: string }) => s.id === session.id);
    assert.deepEqual(listed.scopes, session.scopes);
    const some = await open('alice', { allowCancel: true, allowPlanChange: false });
    assert.deepEqual(some.scopes, ['read', 'cancel']);
    assert.deepEqual([some.allowPurchase, some.allowPlanChange, some.allowCancel, some.allowAutoTopup], [false, false, true, false]);
  });

  test('when a session body has an unknown or misspelt field, or a flag that is not a boolean, then 400 and no session', async () => {
    for (const body of [{ allowCancell: true }, { allowPlanChange: 'true' }, { allowAutoTopUp: true }, { scopes: ['cancel'] }]) {
      const res = await m.client('POST', '/customers/alice/portal-sessions', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
    }
  });

  test('when a customer key is asked for a portal-only scope then 400 with the customer-key scopes', async () => {
    for (const scope of ['plan_change', 'cancel', 'auto_topup']) {
      const res = await m.client('POST', '/customers/alice/keys', { scopes: ['read', scope] });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.message, `Unknown scope '${scope}' — allowed: [read, purchase]`);
    }
  });

  test('when a portal link with allowCancel cancels immediately then 403 and nothing changes', async () => {
    const { token } = await open('alice', { allowCancel: true });
    const res = await as(token, 'POST', `/subscriptions/cancellation/${aliceSubscriptionId}?cancelMode=IMMEDIATE`);
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.code, 'forbidden');
    assert.equal(res.body.error.message, 'A portal link can only cancel at the end of the period');
    const subscription = await subscriptionOf('alice');
    assert.equal(subscription.status, 'ACTIVE');
    assert.equal(subscription.cancelMode, null);
  });

  test('when a portal link with allowCancel cancels at period end and undoes it then the subscription is scheduled, then active again', async () => {
    const { token } = await open('alice', { allowCancel: true });
    const cancel = await as(token, 'POST', `/subscriptions/cancellation/${aliceSubscriptionId}`);
    assert.equal(cancel.status, 200, cancel.text);
    let subscription = await subscriptionOf('alice');
    assert.equal(subscription.status, 'CANCEL_SCHEDULED');
    assert.equal(subscription.cancelEffectiveAt, subscription.currentPeriodEnd);
    const explicit = await as(token, 'POST', `/subscriptions/cancellation/${aliceSubscriptionId}?cancelMode=END_OF_PERIOD`);
    assert.equal(explicit.status, 200, explicit.text);
    const undo = await as(token, 'DELETE', `/subscriptions/cancellation/${aliceSubscriptionId}/scheduled`);
    assert.equal(undo.status, 200, undo.text);
    subscription = await subscriptionOf('alice');
    assert.equal(subscription.status, 'ACTIVE');
    assert.equal(subscription.cancelMode, null);
    assert.equal(subscription.cancelEffectiveAt, null);
    assert.equal(subscription.cancelledAt, null);
  });

  test("when a portal link cancels another customer's subscription then 403 scoped to another customer; without allowCancel the flag message", async () => {
    const { token } = await open('alice', { allowCancel: true });
    const other = await as(token, 'POST', `/subscriptions/cancellation/${bobSubscriptionId}`);
    assert.equal(other.status, 403, other.text);
    assert.equal(other.body.error.message, 'This API key is scoped to another customer');
    const readOnly = (await open('alice', { allowPurchase: true, allowPlanChange: true })).token;
    const refused = await as(readOnly, 'POST', `/subscriptions/cancellation/${aliceSubscriptionId}`);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.message, "This portal link lacks the 'cancel' permission");
    assert.equal((await subscriptionOf('bob')).status, 'ACTIVE');
  });

  test('when a portal link has allowPlanChange without allowPurchase then it previews and changes plan; purchase alone does not open it', async () => {
    const purchaseOnly = (await open('bob', { allowPurchase: true })).token;
    const refused = await as(purchaseOnly, 'POST', `/subscriptions/${bobSubscriptionId}/plan-change`, { changeToPlanId: proPlanId, changeType: 'UPGRADE' });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.message, "This portal link lacks the 'plan_change' permission");
    const { token } = await open('bob', { allowPlanChange: true });
    const plans = await m.expectOk(as(token, 'GET', '/plans'));
    assert.ok(plans.items.some((p: { plan: { id: string } }) => p.plan.id === proPlanId), 'the catalog is open to plan_change');
    const preview = await m.expectOk(as(token, 'POST', `/subscriptions/${bobSubscriptionId}/plan-change/preview`, { changeToPlanId: proPlanId, changeType: 'UPGRADE' }));
    const changed = await m.expectOk(as(token, 'POST', `/subscriptions/${bobSubscriptionId}/plan-change`, { changeToPlanId: proPlanId, changeType: 'UPGRADE' }));
    assert.equal(changed.subscription.plan.id, proPlanId);
    assert.ok(changed.invoice, 'an upgrade raises its ADJUSTMENT invoice');
    assert.equal(preview.invoice?.amount, changed.invoice.amount, 'the preview showed the proration the change charged');
    assert.equal((await subscriptionOf('bob')).plan.id, proPlanId);
  });

  test('when a portal token sends usage or an entitlement check then 403 Access denied: usage is the integrator’s to record', async () => {
    const { token } = await open('alice', { allowPurchase: true, allowPlanChange: true, allowCancel: true, allowAutoTopup: true });
    for (const [path, body] of [['/events', { customerReferenceId: 'alice', featureKey: 'x', usageUnits: 1 }], ['/entitlements', { customerReferenceId: 'alice', featureKey: 'x' }]] as const) {
      const res = await as(token, 'POST', path, body);
      assert.equal(res.status, 403, `${path}: ${res.text}`);
      assert.equal(res.body.error.message, 'Access denied');
    }
  });
});
