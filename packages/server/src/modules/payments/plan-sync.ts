import { createHash } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import { withStatement } from '../../platform/db/transaction.js';
import { AppError } from '../../platform/errors/app-error.js';
import { dec } from '../../platform/money.js';
import { fromStoredRuleValue, listRulesOfPlans, type Plan, type Pricing } from '../catalog/index.js';
import { toMinorUnitInteger, toProcessorTiers, toProcessorUnitAmount, toRecurringInterval } from './domain.js';
import { METADATA } from './events.js';
import { ensureMeter, meterEventName } from './meters.js';
import { processorMessage, type MeteredAmounts, type Processor } from './processor/stripe.js';
import * as repo from './repo.js';

/**
 * Plans to processor products and recurring prices (PROCESSOR_INTEGRATION), on first need. A plan
 * has one product; each price it has had (amount in minor units, currency, interval) has one price,
 * and each usage-priced feature of it one metered price (see ensureMeteredPrices).
 * The create calls are keyed by the plan id (and the price), so two first needs at once, or a retry
 * after a lost answer, get the same objects; the row insert keeps the first writer's.
 */
export async function ensurePlanPrice(ctx: AppContext, processor: Processor, plan: Plan): Promise<{ productId: string; priceId: string }> {
  const unitAmount = toMinorUnitInteger(dec(plan.price_amount ?? '0'), plan.currency);
  const recurring = toRecurringInterval(plan.interval_months!);
  const priceKey = `${unitAmount} ${plan.currency.toLowerCase()} ${recurring.interval} ${recurring.interval_count}`;
  const existing = await repo.findProcessorPrice(ctx.db, plan.account_id, plan.id, priceKey);
  if (existing) return { productId: existing.processor_product_id, priceId: existing.processor_price_id };
  const metadata = { [METADATA.account]: plan.account_id, [METADATA.plan]: plan.id };
  let productId = (await repo.findPlanProduct(ctx.db, plan.account_id, plan.id))?.processor_product_id;
  let price: { id: string };
  try {
    if (!productId) {
      const product = await processor.createProduct(
        { name: plan.name ?? plan.key, ...(plan.description ? { description: plan.description } : {}), metadata },
        `tally-product-${plan.id}`,
      );
      productId = product.id;
    }
    price = await processor.createPrice(
      { product: productId, currency: plan.currency.toLowerCase(), unitAmountMinor: unitAmount, recurring, metadata },
      `tally-price-${plan.id}-${priceKey.replaceAll(' ', '-')}`,
    );
  } catch (err) {
    throw new AppError('vendor_error', `Stripe refused the plan's product or price: ${processorMessage(err)}`, { cause: err });
  }
  const now = ctx.clock.now();
  const row = await withStatement(ctx.db, (db) =>
    repo.saveProcessorPrice(db, { account_id: plan.account_id, plan_id: plan.id, price_key: priceKey, processor_product_id: productId, processor_price_id: price.id, created_at: now }),
  );
  return { productId: row.processor_product_id, priceId: row.processor_price_id };
}

export type MeteredPrice = { featureId: string; priceId: string };

/**
 * The metered prices of a plan (contract §5.4: the processor invoices usage from its meters): one per
 * feature whose rule prices usage, on the feature's meter (`tally_<featureKey>`, created on first
 * need), billed with the plan's interval at the rule's price: `usage` as a per-unit price, `graduated`
 * as graduated tiers. The price key holds a fingerprint of the pricing, so a changed rule gets a
 * new processor price (subscriptions made before keep the old one). The feature id rides in the
 * price's metadata, so a plan change can find the item of each feature.
 */
export async function ensureMeteredPrices(ctx: AppContext, processor: Processor, plan: Plan, productId: string): Promise<MeteredPrice[]> {
  const recurring = toRecurringInterval(plan.interval_months!);
  const currency = plan.currency.toLowerCase();
  const priced = (await listRulesOfPlans(ctx.db, plan.account_id, [plan.id]))
    .map((rule) => ({ rule, pricing: fromStoredRuleValue(rule.value).pricing }))
    .filter((r): r is typeof r & { pricing: Pricing } => r.pricing !== null);
  const prices: MeteredPrice[] = [];
  for (const { rule, pricing } of priced) {
    const amounts: MeteredAmounts = pricing.model === 'graduated'
      ? { billing_scheme: 'tiered' as const, tiers_mode: 'graduated' as const, tiers: toProcessorTiers(pricing.tiers ?? [], plan.currency) }
      : { unit_amount_decimal: toProcessorUnitAmount(pricing.pricePerUnit ?? dec(0), plan.currency) };
    const fingerprint = createHash('sha256').update(JSON.stringify(amounts)).digest('hex').slice(0, 16);
    const priceKey = `metered ${rule.feature_id} ${currency} ${recurring.interval} ${recurring.interval_count} ${fingerprint}`;
    const existing = await repo.findProcessorPrice(ctx.db, plan.account_id, plan.id, priceKey);
    if (existing) {
      prices.push({ featureId: rule.feature_id, priceId: existing.processor_price_id });
      continue;
    }
    let price: { id: string };
    try {
      const meter = await ensureMeter(processor, plan.account_id, meterEventName(rule.feature_key));
      price = await processor.createMeteredPrice(
        {
          product: productId,
          currency,
          recurring,
          meter,
          amounts,
          metadata: { [METADATA.account]: plan.account_id, [METADATA.plan]: plan.id, [METADATA.feature]: rule.feature_id },
        },
        `tally-metered-price-${plan.id}-${rule.feature_id}-${fingerprint}`,
      );
    } catch (err) {
      throw new AppError('vendor_error', `Stripe refused the metered price of feature ${rule.feature_key}: ${processorMessage(err)}`, { cause: err });
    }
    const now = ctx.clock.now();
    const row = await withStatement(ctx.db, (db) =>
      repo.saveProcessorPrice(db, { account_id: plan.account_id, plan_id: plan.id, price_key: priceKey, processor_product_id: productId, processor_price_id: price.id, created_at: now }),
    );
    prices.push({ featureId: rule.feature_id, priceId: row.processor_price_id });
  }
  return prices;
}

/** Everything a processor subscription to the plan carries: the base price and the metered prices. */
export async function ensurePlanPrices(ctx: AppContext, processor: Processor, plan: Plan): Promise<{ priceId: string; metered: MeteredPrice[] }> {
  const { productId, priceId } = await ensurePlanPrice(ctx, processor, plan);
  return { priceId, metered: await ensureMeteredPrices(ctx, processor, plan, productId) };
}

/** Subscription (or checkout) items: the base price once, each metered price without a quantity (the meter counts). */
export const subscriptionItems = (prices: { priceId: string; metered: MeteredPrice[] }) => [
  { price: prices.priceId, quantity: 1 },
  ...prices.metered.map((m) => ({ price: m.priceId })),
];
