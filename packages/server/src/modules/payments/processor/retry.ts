import type { AppContext } from '../../../platform/context.js';
import { JobItems } from '../../../platform/jobs/items.js';
import { findPlan } from '../../catalog/index.js';
import { findCustomerById } from '../../customers/index.js';
import { connectedProcessor } from '../connection.js';
import { ensurePlanPrices } from '../plan-sync.js';
import { ensureProcessorCustomer } from './customers.js';
import { isTransientError, type Processor } from './stripe.js';
import * as repo from '../repo.js';

/**
 * `stripe-processor-retry` (PROCESSOR_INTEGRATION): processor work a request could not finish is
 * finished here, so an outage at the processor loses nothing. The work is found from our state, not
 * from a queue of failed calls: customers whose processor customer is missing while meter events or
 * a subscribe wait for it, and ACTIVE paid plans whose product, price or metered prices are missing
 * (contract §5.4: plans sync to products and prices). Every create carries the key the request
 * used (`tally-customer-<id>`, `tally-product-<planId>`, `tally-price-…`, `tally-metered-price-…`),
 * so when the processor did the work and only its answer was lost, it answers with the object it
 * made instead of making a second one.
 *
 * Once a processor call of an account fails for a reason that may pass (5xx, timeout, rate limit),
 * that account's remaining items wait for the next run; a refusal fails only its own item. Failures
 * are reported by the scheduler (JobItems).
 */
export async function runProcessorRetry(ctx: AppContext): Promise<void> {
  const items = new JobItems();
  const unavailable = new Set<string>();
  const processors = new Map<string, Processor | null>();
  const processorOf = async (accountId: string) => {
    if (!processors.has(accountId)) processors.set(accountId, await connectedProcessor(ctx, accountId));
    return processors.get(accountId)!;
  };
  const attempt = async (accountId: string, work: (processor: Processor) => Promise<unknown>) => {
    const processor = unavailable.has(accountId) ? null : await processorOf(accountId);
    if (!processor) return;
    try {
      await work(processor);
    } catch (err) {
      if (isTransient(err)) unavailable.add(accountId);
      throw err;
    }
  };

  await items.each('processor customer', (after) => repo.customersAwaitingProcessorCustomer(ctx.db, after), (c) =>
    attempt(c.account_id, async (processor) => {
      const customer = await findCustomerById(ctx.db, c.account_id, c.id);
      if (customer) await ensureProcessorCustomer(ctx, processor, customer);
    }),
  );
  await items.each('plan sync', (after) => repo.plansToSync(ctx.db, after), (p) =>
    attempt(p.account_id, async (processor) => {
      const plan = await findPlan(ctx.db, p.account_id, p.id);
      if (plan) await ensurePlanPrices(ctx, processor, plan);
    }),
  );
  items.finish();
}

/** A failure that may pass by itself: the processor unreachable, failing (5xx) or rate limiting. */
function isTransient(err: unknown): boolean {
  const cause = err instanceof Error && err.cause !== undefined ? err.cause : err;
  return isTransientError(cause);
}
