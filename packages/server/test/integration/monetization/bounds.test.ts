import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { snapshotTables } from '../../snapshot.js';

const TABLES = ['features', 'plans', 'plan_feature_rules', 'customers', 'subscriptions', 'invoices', 'invoice_items', 'usage_events', 'usage_counters'] as const;

/**
 * Numeric bounds of the monetization inputs (module READMEs, "Bounds"): at the bound accepted, just
 * over it 400 validation_failed naming the field, and nothing written.
 */
describe('numeric bounds on events, entitlements, plans, rule values and pages', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let apiKey: string;
  let token: string;
  let featureKey: string;
  const ids: Record<string, string> = {};

  before(async () => {
    svc = await startTestService();
    const account = await createTestAccount(svc);
    apiKey = account.apiKey;
    token = account.token;
    m = monetization(svc, account);
    const feature = await m.feature();
    featureKey = feature.key;
    ids.feature = feature.id;
    ids.plan = (await m.activePlan({ price: 10, features: [{ id: feature.id }] })).id;
    await m.customer('me');
    await m.subscribe('me', ids.plan!);
    ids.draft = (await m.expectOk(m.admin('POST', '/plans', { key: 'draft-plan' }), 201)).id;
  });
  after(() => svc.close());

  /** Every row of the tables, so an update is caught as well as an insert. */
  const counts = () => snapshotTables(svc, TABLES);

  /** Posts raw JSON text, so lexemes such as 1e309 reach the server as written. */
  const raw = (path: string, text: string) =>
    svc.http.post(`/api/v1/client${path}`, { rawBody: text, auth: apiKey, headers: { 'content-type': 'application/json' } });

  const adminRaw = (path: string, text: string) =>
    svc.http.post(`/api/v1/monetization${path}`, { rawBody: text, auth: token, headers: { 'content-type': 'application/json' } });

  const event = (fields: string) => `{"eventName":"e","customerReferenceId":"me","featureKey":"${featureKey}",${fields}}`;

  test('when a number is beyond its bound then the answer is 400 validation_failed naming the field and nothing is written', async () => {
    const rule = (pricing: Record<string, unknown>) => ({ planId: ids.draft, featureId: ids.feature, value: { pricing: { model: 'usage', usage_unit_type: 'x', price_per_unit: 1, ...pricing } } });
    const cases: [string, () => Promise<{ status: number; body: any; text: string }>, string][] = [
      ['usageUnits 1000000000.000001', () => raw('/events', event('"usageUnits":1000000000.000001')), 'usageUnits'],
      ['usageUnits 1e17', () => raw('/events', event('"usageUnits":1e17')), 'usageUnits'],
      ['usageUnits 1e21', () => raw('/events', event('"usageUnits":1e21')), 'usageUnits'],
      ['usageUnits 7 decimals', () => raw('/events', event('"usageUnits":0.0000001')), 'usageUnits'],
      ['usageUnits as a long string', () => raw('/events', event(`"usageUnits":"${'9'.repeat(40)}"`)), 'usageUnits'],
      ['costAmount 1e309', () => raw('/events', event('"costAmount":1e309')), 'costAmount'],
      ['costAmount -1e309', () => raw('/events', event('"costAmount":-1e309')), 'costAmount'],
      ['costAmount negative', () => raw('/events', event('"costAmount":-0.01')), 'costAmount'],
      ['costAmount over max', () => raw('/events', event('"costAmount":1000000000000000.01')), 'costAmount'],
      ['costAmount 30 decimals', () => raw('/events', event(`"costAmount":0.${'1'.repeat(30)}`)), 'costAmount'],
      ['revenueAmount negative', () => raw('/events', event('"revenueAmount":-1')), 'revenueAmount'],
      ['revenueAmount 1e16', () => raw('/events', event('"revenueAmount":1e16')), 'revenueAmount'],
      ['inputTokens over max', () => raw('/events', event('"costInput":{"inputTokens":1000000001}')), 'costInput.inputTokens'],
      ['outputTokens 1e21', () => raw('/events', event('"costInput":{"outputTokens":1e21}')), 'costInput.outputTokens'],
      ['evaluate units over max', () => raw('/entitlements', `{"customerReferenceId":"me","featureKey":"${featureKey}","usage":{"usageUnits":1000000001}}`), 'usage.usageUnits'],
      ['plan price over max', () => m.admin('POST', '/plans', { key: 'big', priceAmount: 1000000000000.01 }), 'priceAmount'],
      ['plan price 1e309', () => adminRaw('/plans', '{"key":"huge","priceAmount":1e309}'), 'priceAmount'],
      ['price_per_unit over max', () => m.admin('POST', '/rules/plan-features', rule({ price_per_unit: 1000000.01 })), 'value.pricing.price_per_unit'],
      ['price_per_unit 31 decimals', () => m.admin('POST', '/rules/plan-features', rule({ price_per_unit: `0.${'0'.repeat(30)}1` })), 'value.pricing.price_per_unit'],
      ['max_usage over max', () => m.admin('POST', '/rules/plan-features', rule({ max_usage: 1e16 })), 'value.pricing.max_usage'],
      ['page offset 1e20', () => m.client('GET', '/plans?offset=1e20'), 'offset'],
      ['page limit 1e20', () => m.client('GET', '/plans?limit=1e20'), 'limit'],
      ['record=yes', () => m.client('GET', `/entitlements/me/${featureKey}?record=yes`), 'record'],
    ];
    const before = await counts();
    for (const [label, send, field] of cases) {
      const res = await send();
      assert.equal(res.status, 400, `${label}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed', label);
      assert.ok(
        res.body.error.fields?.some((f: { field: string }) => f.field === field) || res.body.error.message.includes(field),
        `${label} names ${field}: ${res.text}`,
      );
    }
    assert.deepEqual(await counts(), before, 'no refused request wrote anything');
  });

  test('when numbers sit exactly at their bounds then they are accepted', async () => {
    const ok = await raw('/events', event('"usageUnits":1000000000,"costAmount":1000000000000000,"revenueAmount":1000000000000000,"eventIdempotencyKey":"at-bound","costInput":{"inputTokens":1000000000,"outputTokens":0}'));
    assert.equal(ok.status, 201, ok.text);
    const tiny = await raw('/events', event('"usageUnits":0.000001,"costAmount":0.123456789012,"eventIdempotencyKey":"tiny"'));
    assert.equal(tiny.status, 201, tiny.text);
    const rows = await svc.ctx.db.selectFrom('usage_events').select(['event_idempotency_key', 'cost_amount']).where('event_idempotency_key', 'in', ['at-bound', 'tiny']).execute();
    assert.deepEqual(Object.fromEntries(rows.map((r) => [r.event_idempotency_key, String(r.cost_amount)])), { 'at-bound': '1000000000000000', tiny: '0.123457' });
    await m.expectOk(m.admin('POST', '/plans', { key: 'at-max', priceAmount: 1000000000000 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: ids.draft, featureId: ids.feature, value: { pricing: { model: 'usage', usage_unit_type: 'x', price_per_unit: 1000000, max_usage: 1e15 } } }), 201);
    assert.equal((await m.client('GET', `/entitlements/me/${featureKey}?record=false`)).status, 200);
  });
});

describe('events at the largest units × the largest price still roll over and invoice', () => {
  let svc: TestService;
  after(() => svc.close());

  test('when twenty such events close a period then the line is their exact sum (2e16) and the cycle job goes on for the next tenant', async () => {
    svc = await startTestService({ now: '2027-01-10T09:00:00Z' });
    const m = monetization(svc, await createTestAccount(svc));
    const other = monetization(svc, await createTestAccount(svc));
    const feature = await m.feature();
    const pricing = { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: 1000000 } };
    const plan = await m.activePlan({ price: 1000000000000, features: [{ id: feature.id, value: pricing }] });
    await m.customer('whale');
    const sub = await m.subscribe('whale', plan.id);
    await m.markPaid(sub.invoice.id);
    const otherFeature = await other.feature();
    const otherPlan = await other.activePlan({ price: 5, features: [{ id: otherFeature.id }] });
    await other.customer('minnow');
    const otherSub = await other.subscribe('minnow', otherPlan.id);
    await other.markPaid(otherSub.invoice.id);

    // A period's sum is not bounded by any per-event bound: 20 events at both maxima pass the
    // numeric(20,4) an invoice line once had (< 1e16), which failed the rollover every run.
    for (let i = 0; i < 20; i++) {
      const res = await m.event({ customerReferenceId: 'whale', featureKey: feature.key, usageUnits: 1000000000, eventIdempotencyKey: `max-${i}` });
      assert.equal(res.status, 201, res.text);
    }

    svc.clock.set('2027-02-10T01:00:00Z');
    await svc.scheduler.run('subscription-cycle');
    const invoices = await m.invoices('whale');
    const regular = invoices.items.find((i: any) => i.type === 'REGULAR');
    assert.ok(regular, `the whale's period was invoiced: ${JSON.stringify(invoices.items.map((i: any) => i.type))}`);
    assert.deepEqual(regular.items.map((i: any) => i.chargeAmount), [1000000000000, 20000000000000000]);
    assert.equal(regular.amount, 20001000000000000);
    const theirs = await other.invoices('minnow');
    assert.ok(theirs.items.some((i: any) => i.type === 'REGULAR'), 'the other tenant rolled over in the same run');
  });
});
