import type { AppContext } from '../src/platform/context.js';
import { subscribe } from '../src/modules/billing/subscriptions.js';
import * as catalog from '../src/modules/catalog/service.js';
import { createCustomer } from '../src/modules/customers/service.js';

export const BENCH_CUSTOMERS = 50;

/**
 * A metered feature on an ACTIVE free plan (so subscriptions are active at once) with a usage price
 * and no cap, and BENCH_CUSTOMERS subscribed customers bench-0 … bench-49.
 */
export async function seedMonetization(ctx: AppContext, accountId: string) {
  const feature = await catalog.createFeature(ctx, accountId, { name: 'Bench chat', key: 'bench.chat' });
  const plan = await catalog.createPlan(ctx, accountId, { key: 'bench', name: 'Bench', description: 'Benchmark plan', priceAmount: null, intervalMonths: 1 } as never);
  await catalog.updatePlan(ctx, accountId, plan.id, { priceAmount: (await import('../src/platform/money.js')).dec(0) });
  await catalog.createRule(ctx, accountId, {
    planId: plan.id,
    featureId: feature.id,
    value: { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: '0.002' }, cost: { model: 'simple', cost_per_unit: '0.0005' } },
  });
  await catalog.updatePlan(ctx, accountId, plan.id, { status: 'ACTIVE' });
  const principal = { kind: 'tenant' as const, accountId, keyId: 'bench' };
  for (let i = 0; i < BENCH_CUSTOMERS; i++) {
    await createCustomer(ctx, accountId, { customerReferenceId: `bench-${i}`, email: `bench-${i}@example.com` });
    await subscribe(ctx, principal, { customerReferenceId: `bench-${i}`, planId: plan.id });
  }
  return { featureKey: feature.key, customers: BENCH_CUSTOMERS };
}
