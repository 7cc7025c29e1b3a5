import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Jsonb } from '../../platform/db/jsonb.js';
import type { Int8, Json, Numeric } from '../../platform/db/tables.js';

/**
 * The billing module's tables: subscriptions, their scheduled plan changes, invoices and invoice lines.
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031); a migration that changes one
 * of them changes it here, and test/integration/platform/table-types.test.ts compares both.
 */

export interface SubscriptionsTable {
  id: string;
  account_id: string;
  customer_id: string;
  plan_id: string;
  is_active: boolean;
  entitlements_revoked: Generated<boolean>;
  grace_period_days: number;
  current_period_start: Date;
  current_period_end: Date;
  billing_anchor_day: number;
  cancel_mode: 'END_OF_PERIOD' | 'IMMEDIATE' | null;
  cancel_effective_at: Date | null;
  cancelled_at: Date | null;
  ended_at: Date | null;
  metadata: Json;
  created_at: Date;
  modified_at: Date;
}
export type SubscriptionRow = Selectable<SubscriptionsTable>;

export interface ScheduledPlanChangesTable {
  id: string;
  account_id: string;
  subscription_id: string;
  type: 'UPGRADE' | 'DOWNGRADE';
  from_plan_id: string;
  to_plan_id: string;
  status: 'PENDING' | 'COMPLETED' | 'CANCELLED' | 'FAILED';
  effective_at: Date;
  created_at: Date;
}
export type PlanChangeRow = Selectable<ScheduledPlanChangesTable>;

export type InvoiceStatus = 'PENDING' | 'DUE' | 'PAID' | 'PAST_DUE' | 'VOID' | 'CANCELLED' | 'CANCELLED_PROCESSED';

export type InvoiceType = 'IN_ADVANCE_INITIAL' | 'REGULAR' | 'ADJUSTMENT' | 'CREDIT';

export interface InvoicesTable {
  id: string;
  account_id: string;
  subscription_id: string;
  customer_id: string;
  status: InvoiceStatus;
  type: InvoiceType;
  amount: Numeric;
  currency: string;
  due_date: Date;
  period_start: Date;
  period_end: Date;
  paid_at: Date | null;
  /** `<prefix>-<YYYY>-<NNNNNN>`, set with `finalized_at` when the invoice leaves PENDING (finalisation.ts); never changed after. */
  number: string | null;
  finalized_at: Date | null;
  /** The issuer and customer as they were at finalisation (§4.5); the document prints this copy. */
  document_snapshot: ColumnType<DocumentSnapshot | null, Jsonb | null, Jsonb | null>;
  metadata: Json;
  created_at: Date;
  modified_at: Date;
}
export type InvoiceRow = Selectable<InvoicesTable>;

/** The issuer (account settings §1.1) and the customer (§1.2) printed on an invoice document. */
export type DocumentSnapshot = {
  issuer: { legalName: string | null; addressLines: string[]; taxId: string | null; contactEmail: string | null };
  customer: { customerReferenceId: string; firstName: string | null; lastName: string | null; email: string | null; billingAddressLines: string[]; taxId: string | null };
};

export interface InvoiceItemsTable {
  id: string;
  account_id: string;
  invoice_id: string;
  /** Line order on the invoice. */
  position: number;
  feature_id: string | null;
  charge_amount: Numeric;
  quantity: Numeric;
  /** ≤ 6 dp; null for graduated usage (tiers have no single unit price). */
  unit_price: Numeric | null;
  description: string;
  created_at: Date;
  modified_at: Date;
}
export type InvoiceItemRow = Selectable<InvoiceItemsTable>;

/** The per-(account, UTC year) counter invoice numbers are taken from (migration 0041). */
export interface InvoiceNumberCountersTable {
  account_id: string;
  year: number;
  last_number: Int8;
}

declare module '../../platform/db/tables.js' {
  interface DB {
    invoice_number_counters: InvoiceNumberCountersTable;
    subscriptions: SubscriptionsTable;
    scheduled_plan_changes: ScheduledPlanChangesTable;
    invoices: InvoicesTable;
    invoice_items: InvoiceItemsTable;
  }
}
