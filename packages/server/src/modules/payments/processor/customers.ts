import type { AppContext } from '../../../platform/context.js';
import type { Tx } from '../../../platform/db/database.js';
import { afterCommit, withStatement } from '../../../platform/db/transaction.js';
import { AppError } from '../../../platform/errors/app-error.js';
import { findCustomerById, type Customer } from '../../customers/index.js';
import { connectedProcessor } from '../connection.js';
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

/**
 * Our customer's e-mail was set in `tx` (api-contract-agent-v2.md §4.5: the owner address of a
 * customer that had none; §4.6: the one typed on a mandate page): once `tx` commits, never inside
 * it, the processor customer is given the customer's e-mail as it is then. Nothing when no
 * processor is connected or the customer has no processor customer yet (it is created with the
 * e-mail, `ensureProcessorCustomer`). A failure is logged by the after-commit runner and never
 * reaches the caller: the change is committed, and the processor keeps the e-mail it had.
 */
export function pushCustomerEmailAfterCommit(ctx: AppContext, tx: Tx, accountId: string, customerId: string): void {
  afterCommit(tx, 'payments.customer_email', () => pushCustomerEmail(ctx, accountId, customerId));
}

async function pushCustomerEmail(ctx: AppContext, accountId: string, customerId: string): Promise<void> {
  const link = await repo.findProcessorCustomer(ctx.db, accountId, customerId);
  if (!link) return;
  const customer = await findCustomerById(ctx.db, accountId, customerId);
  if (!customer?.email) return;
  const processor = await connectedProcessor(ctx, accountId);
  if (!processor) return;
  try {
    await processor.setCustomerEmail(link.processor_customer_id, customer.email);
  } catch (err) {
    throw new AppError('vendor_error', `Stripe refused the customer's e-mail: ${processorMessage(err)}`, { cause: err });
  }
}
