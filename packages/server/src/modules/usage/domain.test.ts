import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../platform/money.js';
import type { Pricing } from '../catalog/index.js';
import { decideEntitlement, listSubscriptionEntitlements, periodContaining, type EntitlementFacts } from './domain.js';

const capped = { model: 'usage', usageUnitType: 'calls', pricePerUnit: dec(1), maxUsage: dec(10), resetMode: 'reset', tiers: null } as unknown as Pricing;
const unlimited = { ...capped, maxUsage: null } as unknown as Pricing;

const facts = (overrides: Partial<EntitlementFacts> = {}): EntitlementFacts => ({
  hasActiveSubscription: true,
  entitlementsRevoked: false,
  ruleEnabled: true,
  pricing: capped,
  used: dec(4),
  ...overrides,
});

test('when every denial applies at once then each is reported only after the ones before it are lifted (contract order)', () => {
  const all: Partial<EntitlementFacts> = {
    hasActiveSubscription: false,
    entitlementsRevoked: true,
    used: dec(10),
    creditLimitReached: true,
    requestedUnits: dec(7),
  };
  const order: string[] = [];
  let f = facts(all);
  const lift: Partial<EntitlementFacts>[] = [{ hasActiveSubscription: true }, { entitlementsRevoked: false }, { used: dec(4) }, { creditLimitReached: false }, { requestedUnits: dec(1) }];
  for (const change of lift) {
    order.push(decideEntitlement(f).reason ?? 'ALLOWED');
    f = { ...f, ...change };
  }
  order.push(decideEntitlement(f).reason ?? 'ALLOWED');
  assert.deepEqual(order, ['NO_SUBSCRIPTION', 'ENTITLEMENT_REVOKED', 'USAGE_LIMIT_EXCEEDED', 'CREDIT_LIMIT_REACHED', 'PROPOSED_USAGE_WOULD_EXCEED', 'ALLOWED']);
});

test('when the rule is disabled or missing then the check is ENTITLEMENT_REVOKED (fails closed)', () => {
  assert.equal(decideEntitlement(facts({ ruleEnabled: false })).reason, 'ENTITLEMENT_REVOKED');
  assert.equal(decideEntitlement(facts({ hasActiveSubscription: false })).usage, undefined, 'no usage block without a subscription');
});

test('when usage is at the limit then it is exceeded; below it the remaining is reported, and unlimited has no limit', () => {
  assert.equal(decideEntitlement(facts({ used: dec(10) })).reason, 'USAGE_LIMIT_EXCEEDED');
  const ok = decideEntitlement(facts({ used: dec('9.5') }));
  assert.equal(ok.allowed, true);
  assert.equal(ok.usage!.remaining!.toFixed(), '0.5');
  const free = decideEntitlement(facts({ pricing: unlimited, used: dec(1e6) }));
  assert.deepEqual([free.allowed, free.usage!.unlimited, free.usage!.limit], [true, true, undefined]);
});

test('when a proposed usage is simulated then projected usage may reach the limit but not exceed it', () => {
  const fits = decideEntitlement(facts({ requestedUnits: dec(6) }));
  assert.equal(fits.allowed, true);
  assert.equal(fits.simulation!.projectedRemaining.toFixed(), '0');
  const over = decideEntitlement(facts({ requestedUnits: dec('6.000001') }));
  assert.equal(over.reason, 'PROPOSED_USAGE_WOULD_EXCEED');
  assert.equal(over.simulation!.projectedRemaining.toFixed(), '0', 'clamped at zero');
});

test('when the cycle job has not rolled a period over then the period containing now is computed ahead', () => {
  const current = { start: new Date('2026-01-31T00:00:00Z'), end: new Date('2026-02-28T00:00:00Z') };
  assert.equal(periodContaining(current, 1, 31, new Date('2026-02-27T23:59:59Z')), current);
  const next = periodContaining(current, 1, 31, new Date('2026-04-15T00:00:00Z'));
  assert.deepEqual([next.start.toISOString(), next.end.toISOString()], ['2026-03-31T00:00:00.000Z', '2026-04-30T00:00:00.000Z']);
});

test('when entitlements are listed then each subscription gets its own plan rules, revoked or disabled ones not allowed, and a plan without rules no item', () => {
  const listed = listSubscriptionEntitlements(
    [
      { id: 's1', planId: 'p1', entitlementsRevoked: false },
      { id: 's2', planId: 'p1', entitlementsRevoked: true },
      { id: 's3', planId: 'p-empty', entitlementsRevoked: false },
    ],
    [
      { planId: 'p1', featureKey: 'chat', enabled: true },
      { planId: 'p1', featureKey: 'images', enabled: false },
      { planId: 'p2', featureKey: 'other', enabled: true },
    ],
  );
  assert.deepEqual(listed, [
    { subscriptionId: 's1', entitlements: [{ featureKey: 'chat', allowed: true }, { featureKey: 'images', allowed: false }] },
    { subscriptionId: 's2', entitlements: [{ featureKey: 'chat', allowed: false }, { featureKey: 'images', allowed: false }] },
  ]);
});
