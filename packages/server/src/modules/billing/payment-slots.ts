import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import type { Principal } from '../../platform/http/principal.js';
import { defineExtension } from '../../platform/hooks.js';
import type { PlanRow } from '../catalog/index.js';
import type { CustomerRow } from '../customers/index.js';
import type { InvoiceRow, SubscriptionRow } from './repo.js';

/**
 * How a paid subscribe collects its first invoice (contract §4.5) without billing importing the
 * payments module: billing declares the slots, payments provides them at startup. Without payments
 * (or with the processor mode NONE) a paid in-advance subscription waits DUE for mark-paid.
 */

export type SubscribePayment = { plan: PlanRow; customer: CustomerRow; paymentMethodId: string | undefined };

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
