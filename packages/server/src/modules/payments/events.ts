/**
 * Processor event types (contract §5.5). HANDLED change state here; the others are registered too
 * (the contract lists them) and are acknowledged and ignored.
 */
export const HANDLED_EVENT_TYPES = [
  'invoice.created',
  'invoice.paid',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.created',
  'checkout.session.completed',
  'checkout.session.expired',
  'setup_intent.succeeded',
  'payment_intent.succeeded',
] as const;

export const ALSO_REGISTERED_EVENT_TYPES = [
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'customer.deleted',
  'customer.updated',
  'invoice_payment.paid',
  'invoice.finalized',
  'invoice.updated',
  'invoice.deleted',
  'invoice.voided',
  'invoice.marked_uncollectible',
  'checkout.session.async_payment_succeeded',
] as const;

/** What the webhook endpoint registered at the processor subscribes to. */
export const REGISTERED_EVENT_TYPES: string[] = [...HANDLED_EVENT_TYPES, ...ALSO_REGISTERED_EVENT_TYPES];

/** Metadata keys Tally writes on processor objects, so a webhook finds its row without a lookup table. */
export const METADATA = {
  account: 'tally_account_id',
  customer: 'tally_customer_id',
  checkoutSession: 'tally_checkout_session_id',
  creditPurchase: 'tally_credit_purchase_id',
  autoTopupAttempt: 'tally_auto_topup_attempt_id',
  creditPool: 'tally_credit_pool_id',
  invoice: 'tally_invoice_id',
  subscription: 'tally_subscription_id',
  plan: 'tally_plan_id',
  feature: 'tally_feature_id',
} as const;
