import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { parse } from 'lossless-json';
import { toJsonb } from '../../../platform/db/jsonb.js';
import { afterDraw, afterDrawRendered, clampOccurredAt, counterKeyOf, needsPeriodUsage, parseOccurredAt, planEvent, zeroedColumns, type EventFacts } from './plan.js';
import type { CheckContext } from '../repo.js';
import type { EventRequest } from '../schema.js';

const NOW = new Date('2026-03-10T12:00:00Z');
const ACCOUNT = '00000000-0000-7000-8000-00000000000a';

const context = (overrides: Partial<CheckContext> = {}): CheckContext => ({
  customer_id: '00000000-0000-7000-8000-0000000000c1',
  feature_id: '00000000-0000-7000-8000-0000000000f1',
  subscription_id: '00000000-0000-7000-8000-000000000051',
  plan_id: '00000000-0000-7000-8000-000000000071',
  current_period_start: new Date('2026-03-01T00:00:00Z'),
  current_period_end: new Date('2026-04-01T00:00:00Z'),
  billing_anchor_day: 1,
  entitlements_revoked: false,
  interval_months: 1,
  rule_enabled: true,
  rule_value: { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: '0.0015' } },
  credit_denomination: null,
  used_current: '5',
  used_total: null,
  ...overrides,
});

const facts = (input: Partial<EventRequest>, c: CheckContext = context(), more: Partial<EventFacts> = {}): EventFacts => ({
  accountId: ACCOUNT,
  context: c,
  input: { eventName: 'chat', featureKey: 'chat', ...input } as EventRequest,
  key: 'k-1',
  eventId: 'e-1',
  now: NOW,
  usedInCounterPeriod: null,
  ...more,
});

test('when an event has a usage rule then revenue is units × price at 6 dp, and the context captures the price', () => {
  const plan = planEvent(facts({ usageUnits: dec('3.3333333') }));
  assert.equal(plan.event.revenue_amount, '0.005', '3.3333333 × 0.0015 = 0.00499999995 → 0.005 (HALF_UP, 6 dp)');
  assert.equal(plan.event.usage_units, '3.3333333');
  assert.equal(plan.event.id, 'e-1');
  assert.equal(plan.event.event_idempotency_key, 'k-1');
  assert.equal(plan.context.sys_pricing_model, 'usage');
  assert.equal(String(plan.context.sys_captured_unit_price), '0.0015');
  assert.equal(plan.creditBacked, false);
});

test('when units are omitted then the event counts 1; sent revenue and cost win over the rule', () => {
  assert.equal(planEvent(facts({})).event.usage_units, '1');
  const plan = planEvent(facts({ usageUnits: dec(10), revenueAmount: dec('1.23456789'), costAmount: dec('0.0000005') }));
  assert.equal(plan.event.revenue_amount, '1.234568');
  assert.equal(plan.event.cost_amount, '0.000001');
  assert.equal(planEvent(facts({ usageUnits: dec(10) })).event.cost_amount, null, 'no cost model, no cost sent: null');
});

test('when the customer has no subscription then there is no counter, no price capture and no revenue', () => {
  const plan = planEvent(facts({ usageUnits: dec(2) }, context({ subscription_id: null, rule_value: null, rule_enabled: null })));
  assert.equal(plan.counter, null);
  assert.equal(plan.event.revenue_amount, '0');
  assert.equal(plan.context.sys_pricing_model, undefined);
});

test('when occurredAt is far away or unparseable then the event keeps it, weights use the clamp, and the context says so', () => {
  const old = planEvent(facts({ occurredAt: '2026-01-01T00:00:00Z' }));
  assert.equal(old.event.occurred_at.toISOString(), '2026-01-01T00:00:00.000Z');
  assert.equal(old.clampedOccurredAt.toISOString(), '2026-03-08T12:00:00.000Z', 'now − 48 h');
  assert.equal(old.context.occurred_at_clamped, true);
  const bad = planEvent(facts({ occurredAt: 'yesterday-ish' }));
  assert.equal(bad.context.occurred_at_invalid, true);
  assert.equal(bad.event.occurred_at.getTime(), NOW.getTime());
  assert.deepEqual(parseOccurredAt(undefined, NOW), { occurredAt: NOW, valid: true });
  assert.deepEqual(parseOccurredAt(42, NOW), { occurredAt: NOW, valid: false });
  assert.equal(clampOccurredAt(new Date('2026-03-10T12:10:00Z'), NOW).toISOString(), '2026-03-10T12:05:00.000Z', 'now + 5 min');
});

test('when the cycle job is late then the counter is the period the rollover will create', () => {
  const late = new Date('2026-04-02T00:00:00Z');
  const key = counterKeyOf(ACCOUNT, context(), late)!;
  assert.equal(key.periodStart.toISOString(), '2026-04-01T00:00:00.000Z');
  assert.equal(planEvent(facts({}, context(), { now: late })).counter!.key.periodStart.toISOString(), '2026-04-01T00:00:00.000Z');
});

test('when a rule caps usage then the plan carries the cap; accumulate mode subtracts the counter period from the total', () => {
  const reset = planEvent(facts({}, context({ rule_value: { pricing: { model: 'usage', usage_unit_type: 'x', price_per_unit: '1', max_usage: '100' } } })));
  assert.deepEqual(reset.counter!.cap, { maxUsage: '100', alreadyUsedElsewhere: '0' });
  const accumulate = context({ rule_value: { pricing: { model: 'usage', usage_unit_type: 'x', price_per_unit: '1', max_usage: '100', reset_mode: 'accumulate' } }, used_total: '70' });
  assert.equal(needsPeriodUsage(accumulate), true);
  assert.equal(needsPeriodUsage(context()), false, 'reset mode needs no extra read');
  const plan = planEvent(facts({}, accumulate, { usedInCounterPeriod: '5' }));
  assert.deepEqual(plan.counter!.cap, { maxUsage: '100', alreadyUsedElsewhere: '65' });
});

test('when the feature is credit-backed then revenue waits for the draw, and only uncovered units are billed', () => {
  const c = context({ credit_denomination: 'tokens', rule_value: { pricing: { model: 'usage', usage_unit_type: 'x', price_per_unit: '0.1' } } });
  const plan = planEvent(facts({ usageUnits: dec(100) }, c));
  assert.equal(plan.creditBacked, true);
  assert.equal(plan.denomination, 'tokens');
  assert.equal(plan.event.revenue_amount, '0');
  const drawn = afterDraw(plan, { creditsDeducted: dec(80), usageCovered: dec(80), weightId: null, weightMatch: 'NONE' });
  assert.equal(drawn.revenue.toFixed(), '2', '20 uncovered units × 0.1');
  assert.equal(String(drawn.context.credit_remaining_usage), '20');
  assert.equal(afterDraw(plan, null).revenue.toFixed(), '10', 'no linked pool: every unit is billed');
});

test('when the many-event path renders a drawn context then it stores what rendering the merged context stores', () => {
  // jsonb keeps the last of repeated keys: read the texts the same way.
  const asJsonb = (text: string) => parse(text, null, { parseNumber: (n: string) => dec(n).toFixed(), onDuplicateKey: ({ newValue }) => newValue });
  const c = context({ credit_denomination: 'tokens', rule_value: { pricing: { model: 'usage', usage_unit_type: 'x', price_per_unit: '0.1' } } });
  const receipts = [
    { creditsDeducted: dec('80.5'), usageCovered: dec('80.5'), weightId: null, weightMatch: 'NONE' },
    { creditsDeducted: dec('0.000001'), usageCovered: dec(0), weightId: '00000000-0000-7000-8000-0000000000aa', weightMatch: 'MODEL "quoted"' },
  ];
  const inputs: Partial<EventRequest>[] = [
    { usageUnits: dec(100) },
    { usageUnits: dec(3), revenueAmount: dec('1.25'), context: { credit_deducted: 'forged', flowId: 'f-1', nested: { a: [1, dec('0.1')] } } },
  ];
  for (const input of inputs) {
    for (const receipt of [...receipts, null]) {
      const plan = planEvent(facts(input, c));
      const merged = afterDraw(plan, receipt);
      const rendered = afterDrawRendered(plan, receipt);
      assert.equal(rendered.revenue.toFixed(), merged.revenue.toFixed());
      assert.deepEqual(asJsonb(rendered.context), asJsonb(toJsonb(merged.context)), JSON.stringify(input));
    }
  }
  const bare = planEvent(facts({}, context({ subscription_id: null })));
  assert.equal(bare.event.context, '{}');
  assert.deepEqual(asJsonb(afterDrawRendered(bare, receipts[0]!).context), asJsonb(toJsonb(afterDraw(bare, receipts[0]!).context)), 'an empty context');
});

test('when an event goes over max_usage then its zeroed columns keep cost null-ness and mark the context', () => {
  const plan = planEvent(facts({ usageUnits: dec(3), costAmount: dec(1) }));
  const zero = zeroedColumns(plan);
  assert.deepEqual([zero.usage_units, zero.revenue_amount, zero.cost_amount], ['0', '0', '0']);
  assert.match(zero.context, /"usage_limit_exceeded":true/);
  assert.equal(zeroedColumns(planEvent(facts({}))).cost_amount, null);
});
