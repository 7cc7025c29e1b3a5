import type Stripe from 'stripe';
import type { AppContext } from '../../platform/context.js';
import { withStatement } from '../../platform/db/transaction.js';
import { AppError } from '../../platform/errors/app-error.js';
import { dec } from '../../platform/money.js';
import type { PlanRow } from '../catalog/index.js';
import { toMinorUnitInteger, toRecurringInterval } from './domain.js';
import { METADATA } from './events.js';
import { processorMessage } from './processor.js';
import * as repo from './repo.js';

/**
 * Plans to processor products and recurring prices (PROCESSOR_INTEGRATION), on first need. A plan
 * has one product; each price it has had (amount in minor units, currency, interval) has one price.
 * The create calls are keyed by the plan id (and the price), so two first needs at once, or a retry
 * after a lost answer, get the same objects; the row insert keeps the first writer's.
 */
export async function ensurePlanPrice(ctx: AppContext, stripe: Stripe, plan: PlanRow): Promise<{ productId: string; priceId: string }> {
  const unitAmount = toMinorUnitInteger(dec(plan.price_amount ?? '0'), plan.currency);
  const recurring = toRecurringInterval(plan.interval_months!);
  const priceKey = `${unitAmount} ${plan.currency.toLowerCase()} ${recurring.interval} ${recurring.interval_count}`;
  const existing = await repo.findProcessorPrice(ctx.db, plan.account_id, plan.id, priceKey);
  if (existing) return { productId: existing.processor_product_id, priceId: existing.processor_price_id };
  const metadata = { [METADATA.account]: plan.account_id, [METADATA.plan]: plan.id };
  let productId = (await repo.findPlanProduct(ctx.db, plan.account_id, plan.id))?.processor_product_id;
  let price: Stripe.Price;
  try {
    if (!productId) {
      const product = await stripe.products.create(
        { name: plan.name ?? plan.key, ...(plan.description ? { description: plan.description } : {}), metadata },
        { idempotencyKey: `tally-product-${plan.id}` },
      );
      productId = product.id;
    }
    price = await stripe.prices.create(
      { product: productId, currency: plan.currency.toLowerCase(), unit_amount: unitAmount, recurring, metadata },
      { idempotencyKey: `tally-price-${plan.id}-${priceKey.replaceAll(' ', '-')}` },
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
