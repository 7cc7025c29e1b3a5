import type { Generated, Selectable } from 'kysely';
import type { Numeric } from '../../platform/db/tables.js';
// The spend-mandate page table (migration 0046) joins Kysely's DB through the module's tables (ADR 0031).
import type {} from './mandate/tables.js';

/**
 * The payments module's tables: the processor connection and its mirrors (customers, products, subscriptions,
 * invoices, received events), checkout sessions, credit purchases and the meter-event outbox.
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031); a migration that changes one
 * of them changes it here, and test/integration/platform/table-types.test.ts compares both.
 */

export interface ProcessorConnectionsTable {
  account_id: string;
  api_key_sealed: string | null;
  api_key_mask: string | null;
  webhook_endpoint_id: string | null;
  webhook_secret_sealed: string | null;
  webhook_secret_mask: string | null;
  created_at: Date;
  modified_at: Date;
}
export type ConnectionRow = Selectable<ProcessorConnectionsTable>;

export interface ProcessorCustomersTable {
  account_id: string;
  customer_id: string;
  processor_customer_id: string;
  default_payment_method_id: string | null;
  created_at: Date;
  modified_at: Date;
}
export type ProcessorCustomerRow = Selectable<ProcessorCustomersTable>;

export type CheckoutPurpose = 'SUBSCRIPTION' | 'CREDIT_TOPUP' | 'INVOICE' | 'PAYMENT_METHOD' | 'SPEND_MANDATE';

export type CheckoutStatus = 'PENDING' | 'COMPLETED' | 'EXPIRED';

export interface CheckoutSessionsTable {
  id: string;
  account_id: string;
  customer_id: string;
  purpose: CheckoutPurpose;
  status: CheckoutStatus;
  processor_session_id: string | null;
  processor_invoice_id: string | null;
  checkout_url: string | null;
  plan_id: string | null;
  subscription_id: string | null;
  invoice_id: string | null;
  credit_pool_id: string | null;
  credits: Numeric | null;
  price_per_credit: Numeric | null;
  amount: Numeric | null;
  currency: string | null;
  grant_id: string | null;
  created_at: Date;
  completed_at: Date | null;
  modified_at: Date;
  /** The payment method a PAYMENT_METHOD session saved (set when it completes). */
  payment_method_id: string | null;
  /** When the processor's Checkout Session lapses (migration 0047); null for hosted invoice pages. */
  expires_at: Date | null;
}
export type CheckoutSessionRow = Selectable<CheckoutSessionsTable>;

export type CreditPurchaseStatus = 'PENDING' | 'SUCCEEDED' | 'DECLINED' | 'CHECKOUT';

export interface CreditPurchasesTable {
  id: string;
  account_id: string;
  customer_id: string;
  credit_pool_id: string;
  credits: Numeric;
  price_per_credit: Numeric;
  amount: Numeric;
  currency: string;
  status: CreditPurchaseStatus;
  payment_intent_id: string | null;
  grant_id: string | null;
  checkout_session_id: string | null;
  decline_reason: string | null;
  created_at: Date;
  modified_at: Date;
}
export type CreditPurchaseRow = Selectable<CreditPurchasesTable>;

export interface ProcessorEventsTable {
  account_id: string;
  event_id: string;
  type: string;
  received_at: Date;
}

export interface ProcessorProductsTable {
  account_id: string;
  plan_id: string;
  price_key: string;
  processor_product_id: string;
  processor_price_id: string;
  created_at: Date;
}
export type ProcessorProductRow = Selectable<ProcessorProductsTable>;

export type ProcessorSubscriptionStatus = 'PENDING' | 'LINKED' | 'DECLINED' | 'EXPIRED';

export interface ProcessorSubscriptionsTable {
  account_id: string;
  subscription_id: string;
  customer_id: string;
  plan_id: string;
  status: ProcessorSubscriptionStatus;
  processor_subscription_id: string | null;
  checkout_session_id: string | null;
  created_at: Date;
  modified_at: Date;
}
export type ProcessorSubscriptionRow = Selectable<ProcessorSubscriptionsTable>;

export interface ProcessorInvoicesTable {
  account_id: string;
  processor_invoice_id: string;
  invoice_id: string;
  created_at: Date;
}

export interface ProcessorMeterEventsTable {
  account_id: string;
  event_id: string;
  customer_id: string;
  feature_id: string;
  event_name: string;
  units: Numeric;
  occurred_at: Date;
  status: 'PENDING' | 'SENT';
  attempts: Generated<number>;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}
export type MeterEventRow = Selectable<ProcessorMeterEventsTable>;

declare module '../../platform/db/tables.js' {
  interface DB {
    processor_connections: ProcessorConnectionsTable;
    processor_customers: ProcessorCustomersTable;
    checkout_sessions: CheckoutSessionsTable;
    credit_purchases: CreditPurchasesTable;
    processor_events: ProcessorEventsTable;
    processor_products: ProcessorProductsTable;
    processor_subscriptions: ProcessorSubscriptionsTable;
    processor_invoices: ProcessorInvoicesTable;
    processor_meter_events: ProcessorMeterEventsTable;
  }
}
