import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Tally, TallyApiError, TallyError, TallyNotFoundError, TallyValidationError } from '@tally/client';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * `@tally/client` (issue 17 item 2), from its built dist, against a real server: every helper of
 * the ergonomic layer once, amounts as decimal strings both ways, errors as typed classes carrying
 * the envelope's code, message and requestId.
 */
describe(`@tally/client helpers (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let tally: Tally;
  const unique = () => randomBytes(4).toString('hex');

  before(async () => {
    svc = await startTestService();
    const account = await createTestAccount(svc);
    m = monetization(svc, account);
    tally = new Tally({ baseUrl: svc.baseUrl, apiKey: account.apiKey, retryBaseMs: 1, retryMaxMs: 5 });
  });
  after(() => svc.close());

  /** A free plan whose feature draws on a pool of `credits` (identity weights: credits = units), and a priced plan. */
  async function catalog(credits: number) {
    const model = await m.creditModel({ hardLimit: true });
    const feature = await m.feature();
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: `p-${unique()}`, name: `p-${unique()}`, description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0.5 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=${credits}`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    const paid = await m.activePlan({ price: '12.50', features: [{ id: feature.id }] });
    return { denomination: model.denomination as string, featureKey: feature.key as string, planId: plan.id as string, paidPlanId: paid.id as string };
  }

  test('when the whole loop runs through the client then check, track, credits and reservations answer exact decimal strings', async () => {
    const c = await catalog(100);
    const ref = `c-${unique()}`;
    const created = await tally.customers.create({ customerReferenceId: ref, email: `${ref}@example.com` });
    assert.equal(created.customerReferenceId, ref);
    const sub = await tally.subscriptions.create({ customerReferenceId: ref, planId: c.planId });
    assert.equal(sub.subscription?.status, 'ACTIVE');

    const allowed = await tally.check(ref, c.featureKey, { units: '4.25', model: 'gpt-4o' });
    assert.equal(allowed.allowed, true);
    assert.equal(allowed.creditQuote?.estimatedCredits, '4.25');
    assert.equal(typeof allowed.flowId, 'string');
    const denied = await tally.check(ref, c.featureKey, { units: '100.000001' });
    assert.equal(denied.allowed, false);
    assert.equal(denied.meta?.reason.code, 'CREDIT_LIMIT_REACHED');

    const key = `call-${unique()}`;
    const stored = await tally.track({ eventName: 'chat.completion', customerReferenceId: ref, featureKey: c.featureKey, usageUnits: '2.5', eventIdempotencyKey: key });
    assert.ok(stored.status === 'stored');
    assert.deepEqual([stored.eventIdempotencyKey, stored.creditsDeducted, stored.remainingBalance], [key, '2.5', '97.5']);
    const again = await tally.track({ eventName: 'chat.completion', customerReferenceId: ref, featureKey: c.featureKey, usageUnits: '2.5', eventIdempotencyKey: key });
    assert.ok(again.status === 'duplicate', 'the same key again answers as a duplicate');
    assert.equal(again.eventId, stored.eventId);
    const keyless = await tally.track({ eventName: 'chat.completion', customerReferenceId: ref, featureKey: c.featureKey, usageUnits: 1 });
    assert.equal(keyless.status, 'stored');
    assert.match(keyless.eventIdempotencyKey, /^[0-9a-f-]{36}$/);
    const refused = await tally.track({ eventName: 'chat.completion', customerReferenceId: ref, featureKey: c.featureKey, usageUnits: '1000' });
    assert.equal(refused.status, 'refused');
    assert.ok(refused.status === 'refused' && refused.error.code === 'insufficient_credits');

    const pools = await tally.credits.pools(ref);
    assert.equal(pools.items.length, 1);
    const pool = pools.items[0]!;
    assert.equal(pool.balance, '96.5');
    assert.equal(typeof pools.pagination.limit, 'number');
    assert.equal((await tally.credits.pool(ref, pool.id)).balance, '96.5');
    const grants = await tally.credits.grants(ref, pool.id);
    assert.equal(grants.items[0]?.amount, '100');
    const ledger = await tally.credits.ledger(ref, pool.id);
    assert.deepEqual(ledger.items.map((t) => t.amount), ['100', '-2.5', '-1']);
    assert.ok(Array.isArray((await tally.credits.prices()).items));

    const hold = await tally.credits.reservations.hold({ customerReferenceId: ref, denomination: c.denomination, amount: '10.5' });
    assert.deepEqual([hold.status, hold.amountHeld], ['HELD', '10.5']);
    assert.equal((await tally.credits.reservations.get(hold.id)).status, 'HELD');
    const captured = await tally.credits.reservations.capture(hold.id, '4.125');
    assert.deepEqual([captured.status, captured.amountCaptured], ['CAPTURED', '4.125']);
    const second = await tally.credits.reservations.hold({ customerReferenceId: ref, denomination: c.denomination, amount: 3 });
    assert.equal((await tally.credits.reservations.release(second.id)).status, 'RELEASED');

    const reserved = await tally.check(ref, c.featureKey, { units: '6', reserve: true });
    assert.equal(reserved.reservation?.amountHeld, '6');
    const flowEvent = await tally.track({ eventName: 'chat.completion', customerReferenceId: ref, featureKey: c.featureKey, usageUnits: '2', flowId: reserved.flowId! });
    assert.ok(flowEvent.status === 'stored');
    assert.equal((await tally.credits.reservations.get(reserved.reservation!.id)).status, 'CAPTURED');
    assert.equal((await tally.credits.pool(ref, pool.id)).balance, '90.375');
    await m.audit();
  });

  test('when customers, keys, subscriptions, entitlements, catalog and billing are driven through the client then each answers', async () => {
    const c = await catalog(10);
    const ref = `c-${unique()}`;
    await tally.customers.create({ customerReferenceId: ref, email: `${ref}@example.com` });
    assert.equal((await tally.customers.list({ customerReferenceId: ref })).items[0]?.customerReferenceId, ref);
    assert.equal((await tally.customers.update(ref, { firstName: 'Ada' })).firstName, 'Ada');
    const sub = await tally.subscriptions.create({ customerReferenceId: ref, planId: c.paidPlanId });
    const subscriptionId = sub.subscription!.id;
    assert.equal(sub.invoice?.status, 'DUE');
    assert.equal(sub.invoice?.amount, '12.5');
    const got = await tally.customers.get(ref);
    assert.equal(got.customerReferenceId, ref);

    const invoices = await tally.billing.invoices(ref);
    assert.equal(invoices.items.length, 1);
    assert.equal((await tally.billing.markPaid(invoices.items[0]!.id)).status, 'PAID');
    await assert.rejects(tally.billing.hostedInvoicePage(subscriptionId), (e) => e instanceof TallyApiError && e.status < 500);

    assert.equal((await tally.entitlements.get(ref, c.featureKey, { record: false })).allowed, true);
    assert.ok((await tally.entitlements.list(ref)).items.length >= 1);
    assert.ok((await tally.customers.usage(ref)) !== undefined);
    assert.ok((await tally.catalog.plans()).items.some((p) => p.plan.id === c.paidPlanId));
    assert.ok((await tally.catalog.features({ limit: 200 })).items.some((f) => f.key === c.featureKey));
    assert.equal((await tally.catalog.feature(c.featureKey)).key, c.featureKey);

    const issued = await tally.customers.keys.create(ref, { scopes: ['read'] });
    assert.match(issued.apiKey, /^ck_/);
    const keys = await tally.customers.keys.list(ref);
    assert.equal(keys.items.length, 1);
    const rotated = await tally.customers.keys.rotate(ref, keys.items[0]!.id);
    assert.match(rotated.apiKey, /^ck_/);
    await tally.customers.keys.revoke(ref, rotated.id);
    assert.equal((await tally.customers.keys.list(ref)).items.filter((k) => k.active).length, 0);
    await assert.rejects(tally.customers.paymentMethods.setupIntent(ref), (e) => e instanceof TallyApiError && e.status < 500);
    await assert.rejects(tally.customers.paymentMethods.setDefault(ref, 'pm_x'), (e) => e instanceof TallyApiError && e.status < 500);
    await assert.rejects(tally.credits.purchase({ customerReferenceId: ref, creditPoolId: randomUUID(), credits: '5' }), (e) => e instanceof TallyApiError && e.status < 500);
    await assert.rejects(tally.credits.checkoutSession(randomUUID()), TallyNotFoundError);

    const upgrade = await m.activePlan({ price: '20', features: [{ id: (await m.feature()).id }] });
    await tally.subscriptions.changePlan(subscriptionId, { changeToPlanId: upgrade.id, changeType: 'DOWNGRADE' });
    await tally.subscriptions.cancelScheduledPlanChange(subscriptionId);
    await tally.subscriptions.cancel(subscriptionId);
    await tally.subscriptions.undoCancellation(subscriptionId);
    const outcome = await tally.outcomes.post({ externalId: `o-${unique()}`, kind: 'CUSTOM' }).then(
      () => 'posted',
      (e: unknown) => (e instanceof TallyApiError && e.status < 500 ? e.code : e),
    );
    assert.equal(typeof outcome, 'string', String(outcome));
  });

  test('when the service refuses a call then the typed error carries its code, message and requestId', async () => {
    const missing = await tally.customers.get(`nobody-${unique()}`).catch((e: unknown) => e);
    assert.ok(missing instanceof TallyNotFoundError);
    assert.equal(missing.code, 'not_found');
    assert.equal(missing.status, 404);
    assert.match(missing.requestId ?? '', /.+/);
    assert.equal(missing.headers?.get('x-request-id'), missing.requestId);
    const invalid = await tally.customers.create({ customerReferenceId: `x-${unique()}`, email: 'not-an-email' }).catch((e: unknown) => e);
    assert.ok(invalid instanceof TallyValidationError);
    assert.equal(invalid.code, 'validation_failed');
    assert.ok(invalid.fields?.some((f) => f.field === 'email'));
    const float = await tally.check('x', 'y', { units: 0.1 }).catch((e: unknown) => e);
    assert.ok(float instanceof TypeError && !(float instanceof TallyError), 'a float amount is refused before it is sent');
  });
});
