import { defineDomainEvent } from '../../platform/hooks.js';
import type { Plan } from '../catalog/index.js';
import type { SubscriptionRow } from './repo.js';

/**
 * Billing's domain events (platform/hooks.ts), emitted inside the transaction that makes the change,
 * so subscribers' writes (the credits module's grants and claw-backs) commit or roll back with it.
 * Each subscriber must be idempotent per (subscription, period) or per plan change.
 */

/** A period of the subscription has started and is paid for (or free): its credits are due. */
export type PeriodPaid = { subscription: SubscriptionRow; plan: Plan; period: { start: Date; end: Date }; now: Date };
export const periodPaid = defineDomainEvent<PeriodPaid>('billing.period_paid');

/** The subscription ended (cancelled now or at period end). */
export type SubscriptionEnded = { subscription: SubscriptionRow; now: Date };
export const subscriptionEnded = defineDomainEvent<SubscriptionEnded>('billing.subscription_ended');

/** The subscription moved to another plan now (an upgrade; `changeId` identifies the change). */
export type PlanChanged = { subscription: SubscriptionRow; from: Plan; to: Plan; changeId: string; now: Date };
export const planChanged = defineDomainEvent<PlanChanged>('billing.plan_changed');
