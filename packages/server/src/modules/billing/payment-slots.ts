import type { AppContext } from '../../platform/context.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import type { Principal } from '../../platform/http/principal.js';
import { defineExtension } from '../../platform/hooks.js';
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
 * written: refuses what may not be charged (the agent spend cap, 403). No processor call here.
 */
export const checkSubscribePayment = defineExtension(
  'billing.check_subscribe_payment',
  async (_tx: Tx, _principal: Principal, _payment: SubscribePayment): Promise<void> => {},
);

export type InitialPaymentOutcome =
  | { kind: 'none' }
  | { kind: 'paid' }
  | { kind: 'checkout'; checkoutUrl: string; checkoutSessionId: string; declineReason?: string };

/**
 * Runs after the subscribe transaction committed, for a DUE initial invoice: charges it off-session
 * (then settles it), or opens a hosted page for a human (402), or leaves it DUE ('none').
 */
export const collectInitialPayment = defineExtension(
  'billing.collect_initial_payment',
  async (
    _ctx: AppContext,
    _principal: Principal,
    _input: SubscribePayment & { subscription: SubscriptionRow; invoice: InvoiceRow },
  ): Promise<InitialPaymentOutcome> => ({ kind: 'none' }),
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
  | { kind: 'undo_plan_change'; plan: Plan };

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
