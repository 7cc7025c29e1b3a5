import type { AppContext } from '../../../platform/context.js';
import { withStatement } from '../../../platform/db/transaction.js';
import { AppError } from '../../../platform/errors/app-error.js';
import type { Customer } from '../../customers/index.js';
import { METADATA } from '../events.js';
import { processorMessage, type Processor } from './stripe.js';
import * as repo from '../repo.js';

/**
 * The processor customer of one of ours, created on first need. The create call's idempotency key is
 * derived from our customer id, so two concurrent first needs (or a retry after a lost answer) get
 * the same processor customer; the link insert keeps the first writer's row.
 */
export async function ensureProcessorCustomer(ctx: AppContext, processor: Processor, customer: Customer): Promise<repo.ProcessorCustomerRow> {
  const existing = await repo.findProcessorCustomer(ctx.db, customer.account_id, customer.id);
  if (existing) return existing;
  let created: { id: string };
  try {
    created = await processor.createCustomer(
      {
        ...(customer.email ? { email: customer.email } : {}),
        ...(customer.first_name || customer.last_name ? { name: [customer.first_name, customer.last_name].filter(Boolean).join(' ') } : {}),
        metadata: { [METADATA.account]: customer.account_id, [METADATA.customer]: customer.id, customer_reference_id: customer.customer_reference_id },
      },
      `tally-customer-${customer.id}`,
    );
  } catch (err) {
    throw new AppError('vendor_error', `Stripe refused to create the customer: ${processorMessage(err)}`, { cause: err });
  }
  const now = ctx.clock.now();
  return withStatement(ctx.db, (db) =>
    repo.linkProcessorCustomer(db, { account_id: customer.account_id, customer_id: customer.id, processor_customer_id: created.id, default_payment_method_id: null, created_at: now, modified_at: now }),
  );
}
