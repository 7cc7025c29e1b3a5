import type { AppContext } from '../../platform/context.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import type { Principal } from '../../platform/http/principal.js';
import { defineExtension } from '../../platform/hooks.js';
import type { Decimal } from '../../platform/money.js';
import type { Plan } from '../catalog/index.js';
import type { Customer } from '../customers/index.js';
import type { InvoiceRow, SubscriptionRow } from './repo.js';

/**
 * How a paid subscribe collects its first invoice (contract §4.5) without billing importing the
 * payments module: billing declares the slots, payments provides them at startup. Without payments
 * (or with the processor mode NONE) a paid in-advance subscription waits DUE for mark-paid.
 */

export type SubscribePayment = { plan: Plan; customer: Customer; paymentMethodId: string | undefined };

/**
 * Runs inside the subscribe transaction once the plan and customer are known, before anything is
 * written, no network: refuses what may not be charged (the agent spend cap, 403). Null while no
 * processor collects the first invoice (mode not PAYMENT_PASS_THROUGH, no key stored or
 * configured): it waits DUE. Otherwise whether it is charged off-session (a supplied or saved
 * method), which billing reserves against a customer key's budget and mandate in the same
 * transaction (api-contract-agent-v2.md §2.6), so a refusal writes nothing.
 */
export const checkSubscribePayment = defineExtension(
  'billing.check_subscribe_payment',
  async (_ctx: AppContext, _tx: Tx, _principal: Principal, _payment: SubscribePayment): Promise<{ offSession: boolean } | null> => null,
);

export type InitialPaymentOutcome =
  | { kind: 'none' }
  | { kind: 'paid' }
  | { kind: 'checkout'; checkoutUrl: string; checkoutSessionId: string; declineReason?: string };

/** What the subscribe transaction committed for its DUE initial invoice (`offSession`: the check's answer; a customer key's charge is reserved under the invoice's id). */
export type InitialPayment = SubscribePayment & { subscription: SubscriptionRow; invoice: InvoiceRow; offSession: boolean };

/**
 * Runs after the subscribe transaction committed, for a DUE initial invoice: charges it off-session
 * when the check said so (then settles it), or opens a hosted page for a human (402), or leaves it
 * DUE ('none').
 */
export const collectInitialPayment = defineExtension(
  'billing.collect_initial_payment',
  async (_ctx: AppContext, _principal: Principal, _input: InitialPayment): Promise<InitialPaymentOutcome> => ({ kind: 'none' }),
);

export type ProcessorSubscribeOutcome =
  | { kind: 'subscribed'; subscriptionId: string }
  | { kind: 'checkout'; checkoutUrl: string; checkoutSessionId: string; paymentRequired: boolean; declineReason?: string };

/**
 * Runs before the subscribe transaction for a paid in-advance plan. Where the processor drives
 * billing (PROCESSOR_INTEGRATION) the provider takes the subscribe over: it answers with the
 * subscription it created (already written through `startExternalSubscription`), or a checkout the
 * subscription will come from, 402 when `paymentRequired`. Null: billing subscribes as usual.
 */
export const subscribeThroughProcessor = defineExtension(
  'billing.subscribe_through_processor',
  async (
    _ctx: AppContext,
    _principal: Principal,
    _input: SubscribePayment & { returnBaseUrl: string },
  ): Promise<ProcessorSubscribeOutcome | null> => null,
);

/** What a processor-driven subscription is asked to do through our API (contract §4.5, §6.3). */
export type ProcessorChange =
  | { kind: 'cancel'; mode: 'END_OF_PERIOD' | 'IMMEDIATE' }
  | { kind: 'undo_cancel' }
  | { kind: 'plan_change'; changeId: string; changeType: 'UPGRADE' | 'DOWNGRADE'; toPlan: Plan }
  /** `voidProration`: the undone change is an upgrade whose proration invoice is still open (voided at the processor too). */
  | { kind: 'undo_plan_change'; plan: Plan; voidProration?: boolean };

/**
 * Whether the processor drives this subscription (PROCESSOR_INTEGRATION, and the subscription is one
 * of the processor's). Runs inside billing's transaction, before anything is written.
 */
export const processorDrivesSubscription = defineExtension(
  'billing.processor_drives_subscription',
  async (_db: Executor, _accountId: string, _subscriptionId: string): Promise<boolean> => false,
);

/**
 * Asks the processor for a change to a subscription it drives, after billing's checks committed and
 * outside any transaction. Our state follows from the processor's answer (applied through
 * external.ts by the provider) and from its webhooks, whichever comes first. The provider answers
 * with our copy of an invoice the change raised at the processor (an upgrade's proration), if any.
 */
export const changeAtProcessor = defineExtension(
  'billing.change_at_processor',
  async (_ctx: AppContext, _accountId: string, _subscriptionId: string, _change: ProcessorChange): Promise<{ invoiceId: string | undefined }> => ({ invoiceId: undefined }),
);

/**
 * A paid upgrade (api-contract-agent-v2.md §4.8): an UPGRADE whose proration costs money, asked with
 * an API key. Billing decides that the change waits for its payment and accounts for it against the
 * key budget and the mandate; payments says whether and how a processor collects it.
 */
export type UpgradePaymentCheck = {
  customer: Customer;
  /** The proration (our invoice's amount; where the processor drives billing, its estimate of the processor's). */
  amount: Decimal;
  currency: string;
  paymentMethodId: string | undefined;
  /** The processor drives the subscription (PROCESSOR_INTEGRATION): it raises and collects the proration itself. */
  processorDriven: boolean;
};

/**
 * Runs inside the plan-change transaction (no network), before anything is written. Null: no
 * processor collects upgrades for this account (mode NONE, or no key), so the change applies at once
 * as before. Otherwise it refuses what may not be charged (the agent spend cap, 403) and says whether
 * the charge is off-session (a saved or supplied method, or the processor's subscription method).
 */
export const checkUpgradePayment = defineExtension(
  'billing.check_upgrade_payment',
  async (_ctx: AppContext, _tx: Tx, _principal: Principal, _check: UpgradePaymentCheck): Promise<{ offSession: boolean } | null> => null,
);

export type UpgradePayment = UpgradePaymentCheck & {
  subscriptionId: string;
  changeId: string;
  toPlan: Plan;
  /** Our ADJUSTMENT invoice (none where the processor drives billing: it raises its own). */
  invoiceId: string | undefined;
  /**
   * What the money is reserved and counted under (key budget, mandate), named in the charge's
   * idempotency key: our invoice's id, else the change's.
   */
  reservationId: string;
  offSession: boolean;
  /** A retry while the change waits: no new charge, the same invoice and page. */
  retry: boolean;
};

export type UpgradePaymentOutcome =
  /** Paid: the payment's settlement completed the change (billing's own rules); the processor's invoice of it, if it raised one. */
  | { kind: 'paid'; invoiceId?: string | undefined }
  /** Waits for a human to pay `paymentUrl` (no method, or the charge was declined). */
  | { kind: 'hosted'; paymentUrl: string; invoiceId: string | undefined; declineReason?: string }
  /** The processor took the change but said neither (no open invoice, not applied): left to its webhooks. */
  | { kind: 'unknown' };

/**
 * Runs after the plan-change transaction committed, outside any transaction: charges the upgrade
 * off-session (the charge's idempotency key names `changeId`, the reservation's id) and settles it,
 * or opens the hosted page a human pays. Only called when `checkUpgradePayment` answered.
 */
export const collectUpgradePayment = defineExtension(
  'billing.collect_upgrade_payment',
  async (_ctx: AppContext, _principal: Principal, _payment: UpgradePayment): Promise<UpgradePaymentOutcome> => ({ kind: 'unknown' }),
);

/**
 * Cancelling a waiting paid upgrade: its hosted page is voided at the processor first (a page paid
 * meanwhile is 409, and its payment completes the change). Outside any transaction.
 */
export const voidUpgradePayment = defineExtension(
  'billing.void_upgrade_payment',
  async (_ctx: AppContext, _accountId: string, _invoiceId: string): Promise<void> => {},
);
