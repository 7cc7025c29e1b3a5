import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { snapshotTables } from '../../snapshot.js';

const TABLES = ['features', 'plans', 'plan_feature_rules', 'customers', 'subscriptions', 'invoices', 'invoice_items', 'usage_events', 'usage_counters', 'scheduled_plan_changes'] as const;
const MISSING = '00000000-0000-7000-8000-000000000000';
/** Arrays nested `levels` deep (above the body depth limit of 64). */
const deep = (levels: number): unknown => (levels === 0 ? [] : [deep(levels - 1)]);

describe('bad inputs on monetization routes: 4xx in the envelope, nothing written', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let other: ReturnType<typeof monetization>;
  const ids: Record<string, string> = {};

  before(async () => {
    svc = await startTestService();
    m = monetization(svc, await createTestAccount(svc));
    other = monetization(svc, await createTestAccount(svc));
    const feature = await m.feature({ key: 'mine' });
    const plan = await m.activePlan({ price: 10, features: [{ id: feature.id }] });
    await m.customer('me');
    const sub = await m.subscribe('me', plan.id);
    await m.customer('payer');
    const paid = await m.subscribe('payer', plan.id);
    await m.markPaid(paid.invoice.id);
    const cancelled = await m.subscribe((await m.customer('gone')).customerReferenceId, plan.id);
    await m.client('POST', `/subscriptions/cancellation/${cancelled.subscription.id}?cancelMode=IMMEDIATE`);
    const theirs = await other.feature({ key: 'theirs' });
    const theirPlan = await other.activePlan({ price: 5, features: [{ id: theirs.id }] });
    await other.customer('them');
    const theirSub = await other.subscribe('them', theirPlan.id);
    Object.assign(ids, {
      feature: feature.id,
      plan: plan.id,
      sub: sub.subscription.id,
      paidSub: paid.subscription.id,
      invoice: sub.invoice.id,
      voidInvoice: cancelled.invoice.id,
      theirFeature: theirs.id,
      theirPlan: theirPlan.id,
      theirSub: theirSub.subscription.id,
      theirInvoice: theirSub.invoice.id,
    });
  });
  after(() => svc.close());

  const snapshot = () => snapshotTables(svc, TABLES);

  test('every bad request is refused with the expected status and code, and no row changes', async () => {
    const cases: [string, string, unknown, 'admin' | 'client' | 'api', number, string][] = [
      ['POST', '/features', { name: 'x' }, 'admin', 400, 'validation_failed'],
      ['POST', '/features', { name: 'x', key: 42 }, 'admin', 400, 'validation_failed'],
      ['POST', '/features', { name: 'dup', key: 'mine' }, 'admin', 409, 'conflict'],
      ['GET', '/features/not-a-uuid', undefined, 'admin', 400, 'validation_failed'],
      ['GET', `/features/${MISSING}`, undefined, 'admin', 404, 'not_found'],
      ['GET', `/features/{theirFeature}`, undefined, 'admin', 404, 'not_found'],
      ['PATCH', '/features/{feature}', { isEnabled: 'yes' }, 'admin', 400, 'validation_failed'],
      ['DELETE', '/features/{feature}', undefined, 'admin', 409, 'conflict'],
      ['DELETE', '/features/{theirFeature}', undefined, 'admin', 404, 'not_found'],
      ['POST', '/plans', { name: 'no key' }, 'admin', 400, 'validation_failed'],
      ['POST', '/plans', { key: 'neg', priceAmount: -1 }, 'admin', 400, 'validation_failed'],
      ['POST', '/plans', { key: 'dp', priceAmount: 1.005 }, 'admin', 400, 'validation_failed'],
      ['POST', '/plans', { key: 'iv', intervalMonths: 0 }, 'admin', 400, 'validation_failed'],
      ['POST', '/plans', { key: 'cur', currency: 'dollars' }, 'admin', 400, 'validation_failed'],
      ['POST', '/plans', { key: 'bt', billingTiming: 'SOMETIMES' }, 'admin', 400, 'validation_failed'],
      ['GET', '/plans/{theirPlan}', undefined, 'admin', 404, 'not_found'],
      ['GET', '/plans/{theirPlan}/features', undefined, 'admin', 404, 'not_found'],
      ['PATCH', '/plans/{plan}', { status: 'LIVE' }, 'admin', 400, 'validation_failed'],
      ['PATCH', '/plans/{plan}', { status: 'DRAFT' }, 'admin', 400, 'validation_failed'],
      ['PATCH', '/plans/{plan}', { priceAmount: 99 }, 'admin', 400, 'validation_failed'],
      ['PATCH', '/plans/{theirPlan}', { description: 'x' }, 'admin', 404, 'not_found'],
      ['DELETE', '/plans/{plan}', undefined, 'admin', 409, 'conflict'],
      ['POST', '/rules/plan-features', { planId: MISSING, featureId: '{feature}' }, 'admin', 404, 'not_found'],
      ['POST', '/rules/plan-features', { planId: '{plan}', featureId: '{theirFeature}' }, 'admin', 404, 'not_found'],
      ['POST', '/rules/plan-features', { planId: '{theirPlan}', featureId: '{feature}' }, 'admin', 404, 'not_found'],
      ['POST', '/rules/plan-features', { planId: '{plan}', featureId: '{feature}', value: { pricing: { model: 'usage', usage_unit_type: 'x', price_per_unit: 1, max_usage: -1 } } }, 'admin', 400, 'validation_failed'],
      ['POST', '/rules/plan-features', { planId: '{plan}', featureId: '{feature}', value: { pricing: { model: 'magic' } } }, 'admin', 400, 'validation_failed'],
      ['POST', '/rules/plan-features', { planId: 'nope', featureId: '{feature}' }, 'admin', 400, 'validation_failed'],
      ['PATCH', '/rules/plan-features', { planId: '{theirPlan}', featureId: '{theirFeature}', isEnabled: false }, 'admin', 404, 'not_found'],
      ['GET', `/rules/plan-features/{plan}/${MISSING}`, undefined, 'admin', 404, 'not_found'],
      ['DELETE', '/rules/plan-features/{plan}/{feature}', undefined, 'admin', 400, 'validation_failed'],
      ['POST', '/customers', { customerReferenceId: 'x1' }, 'client', 400, 'validation_failed'],
      ['POST', '/customers', { customerReferenceId: 'x2', email: 'not-an-email' }, 'client', 400, 'validation_failed'],
      ['POST', '/customers', { email: 'a@example.com' }, 'client', 400, 'validation_failed'],
      ['POST', '/customers', { customerReferenceId: 'me', email: 'a@example.com' }, 'client', 409, 'conflict'],
      ['GET', '/customers/nobody', undefined, 'client', 404, 'not_found'],
      ['GET', '/customers/them', undefined, 'client', 404, 'not_found'],
      ['PATCH', '/customers/me', { email: 'broken' }, 'client', 400, 'validation_failed'],
      ['GET', '/plans?limit=0', undefined, 'client', 400, 'validation_failed'],
      ['POST', '/subscriptions', { customerReferenceId: 'me' }, 'client', 400, 'validation_failed'],
      ['POST', '/subscriptions', { customerReferenceId: 'me', planId: MISSING }, 'client', 404, 'not_found'],
      ['POST', '/subscriptions', { customerReferenceId: 'me', planId: '{theirPlan}' }, 'client', 404, 'not_found'],
      ['POST', '/subscriptions', { customerReferenceId: 'them', planId: '{plan}' }, 'client', 404, 'not_found'],
      ['POST', '/subscriptions', { customerReferenceId: 'me', planId: '{plan}', gracePeriod: 'long' }, 'client', 400, 'validation_failed'],
      ['POST', '/subscriptions/cancellation/not-a-uuid', undefined, 'client', 400, 'validation_failed'],
      ['POST', '/subscriptions/cancellation/{theirSub}', undefined, 'client', 404, 'not_found'],
      ['POST', '/subscriptions/cancellation/{sub}?cancelMode=SOMEDAY', undefined, 'client', 400, 'validation_failed'],
      ['DELETE', '/subscriptions/cancellation/{sub}/scheduled', undefined, 'client', 400, 'validation_failed'],
      ['POST', '/subscriptions/{paidSub}/plan-change', { changeToPlanId: '{plan}' }, 'client', 400, 'validation_failed'],
      ['POST', '/subscriptions/{paidSub}/plan-change', { changeToPlanId: '{theirPlan}', changeType: 'UPGRADE' }, 'client', 404, 'not_found'],
      ['POST', '/subscriptions/{paidSub}/plan-change', { changeToPlanId: '{plan}', changeType: 'UPGRADE' }, 'client', 400, 'validation_failed'],
      ['POST', '/subscriptions/{sub}/plan-change', { changeToPlanId: '{plan}', changeType: 'DOWNGRADE' }, 'client', 400, 'validation_failed'],
      ['DELETE', '/subscriptions/cancellation/{paidSub}/scheduled', undefined, 'client', 400, 'validation_failed'],
      ['GET', '/billing/invoices/nobody', undefined, 'client', 404, 'not_found'],
      ['POST', '/billing/invoices/{theirInvoice}/mark-paid', undefined, 'client', 404, 'not_found'],
      ['POST', '/billing/invoices/{voidInvoice}/mark-paid', undefined, 'client', 409, 'conflict'],
      ['GET', '/entitlements/nobody/mine', undefined, 'client', 404, 'not_found'],
      ['POST', '/entitlements', { customerReferenceId: 'me', featureKey: 'mine', usage: { usageUnits: 0 } }, 'client', 400, 'validation_failed'],
      ['POST', '/entitlements', { customerReferenceId: 'me' }, 'client', 400, 'validation_failed'],
      ['POST', '/events', { customerReferenceId: 'me', featureKey: 'mine' }, 'client', 400, 'validation_failed'],
      ['POST', '/events', { eventName: 'e', customerReferenceId: 'me', featureKey: 'mine', usageUnits: -1 }, 'client', 400, 'validation_failed'],
      ['POST', '/events', { eventName: 'e', customerReferenceId: 'me', featureKey: 'mine', usageUnits: 'lots' }, 'client', 400, 'validation_failed'],
      ['POST', '/events', { eventName: 'e', featureKey: 'mine' }, 'client', 400, 'validation_failed'],
      ['GET', '/customers/nobody/usage', undefined, 'client', 404, 'not_found'],
      ['GET', '/api/v1/tanso/events?from=yesterday', undefined, 'api', 400, 'validation_failed'],
      ['GET', '/api/v1/monetization/billing/invoices?customerId=x', undefined, 'api', 400, 'validation_failed'],
      ['GET', '/api/v1/monetization/billing/invoices/{theirInvoice}', undefined, 'api', 404, 'not_found'],
      ['GET', '/api/v1/monetization/subscriptions/{theirSub}', undefined, 'api', 404, 'not_found'],
      // Request edge: NUL, lone surrogates, deep nesting, long and malformed paths, wrong methods.
      ['POST', '/features', { name: 'a\u0000b', key: 'nul' }, 'admin', 400, 'validation_failed'],
      ['PATCH', '/features/{feature}', { name: 'x\ud800' }, 'admin', 400, 'validation_failed'],
      ['PATCH', '/plans/{plan}', { description: 'x\u0000' }, 'admin', 400, 'validation_failed'],
      ['POST', '/customers', { customerReferenceId: 'nul', email: 'n@example.com', metadata: { x: '\u0000' } }, 'client', 400, 'validation_failed'],
      ['PATCH', '/customers/me', { metadata: { x: deep(1000) } }, 'client', 400, 'validation_failed'],
      ['PATCH', '/customers/me', { metadata: { ['k\udc00']: 1 } }, 'client', 400, 'validation_failed'],
      ['GET', '/customers/a%00b', undefined, 'client', 400, 'validation_failed'],
      ['PATCH', '/customers/me%ED%A0%80', { email: 'x@example.com' }, 'client', 400, 'validation_failed'],
      ['GET', `/customers/${'r'.repeat(256)}`, undefined, 'client', 400, 'validation_failed'],
      ['GET', `/customers/${'r'.repeat(5000)}`, undefined, 'client', 400, 'validation_failed'],
      ['GET', '/customers?customerReferenceId=%00', undefined, 'client', 400, 'validation_failed'],
      ['POST', '/events', { eventName: 'e', customerReferenceId: 'me', featureKey: 'mine', usageUnits: 1, meta: { x: 'a\u0000' } }, 'client', 400, 'validation_failed'],
      ['POST', '/events', { eventName: deep(100), customerReferenceId: 'me', featureKey: 'mine', usageUnits: 1 }, 'client', 400, 'validation_failed'],
      ['PUT', '/customers/me', { email: 'x@example.com' }, 'client', 405, 'method_not_allowed'],
      ['DELETE', '/plans/{plan}/features', undefined, 'admin', 405, 'method_not_allowed'],
    ];
    const fill = (s: string) => s.replace(/\{(\w+)\}/g, (_, k: string) => ids[k] ?? `{${k}}`);
    const before = await snapshot();
    for (const [method, path, body, surface, status, code] of cases) {
      const filledBody = body === undefined ? undefined : JSON.parse(fill(JSON.stringify(body)));
      const res = await m[surface](method, fill(path), filledBody);
      const label = `${method} ${path} ${JSON.stringify(body) ?? ''}`;
      assert.equal(res.status, status, `${label}: ${res.text}`);
      assert.equal(res.body.success, false, label);
      assert.equal(res.body.error.code, code, label);
      assert.equal(typeof res.body.error.message, 'string', label);
      assert.equal(typeof res.body.error.requestId, 'string', label);
    }
    assert.deepEqual(await snapshot(), before, 'no bad request wrote anything');
  });

  test('when a flowId is empty or blank then the event, batch or evaluate is 400 naming flowId, and nothing is stored', async () => {
    const event = { eventName: 'e', customerReferenceId: 'me', featureKey: 'mine', usageUnits: 1 };
    const cases: [string, unknown, string][] = [
      ['/events', { ...event, eventIdempotencyKey: 'flow-empty', flowId: '' }, 'flowId'],
      ['/events', { ...event, eventIdempotencyKey: 'flow-blank', flowId: '   ' }, 'flowId'],
      ['/events', { ...event, eventIdempotencyKey: 'flow-ctx', context: { flowId: '' } }, 'context.flowId'],
      ['/events/batch', { events: [{ ...event, eventIdempotencyKey: 'b-ok' }, { ...event, eventIdempotencyKey: 'b-empty', flowId: '' }] }, 'events[1].flowId'],
      ['/entitlements', { customerReferenceId: 'me', featureKey: 'mine', context: { flowId: ' ' } }, 'context.flowId'],
    ];
    const before = await snapshot();
    for (const [path, body, field] of cases) {
      const res = await m.client('POST', path, body);
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.ok(
        (res.body.error.fields ?? []).some((f: { field: string }) => f.field === field),
        `${path}: fields[] names ${field}: ${res.text}`,
      );
    }
    assert.deepEqual(await snapshot(), before, 'nothing was stored');
    const withNull = await m.client('POST', '/events', { ...event, eventIdempotencyKey: 'flow-null', flowId: null });
    assert.equal(withNull.status, 201, `null still means no flow: ${withNull.text}`);
  });

  test('when an entitlement is checked then the result names the customer as customerReferenceId, and as referenceCustomerId for clients of the original', async () => {
    for (const res of [
      await m.client('GET', '/entitlements/me/mine'),
      await m.client('POST', '/entitlements', { customerReferenceId: 'me', featureKey: 'mine', usage: { usageUnits: 1 } }),
    ]) {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.customerReferenceId, 'me');
      assert.equal(res.body.data.referenceCustomerId, 'me');
    }
  });
});
