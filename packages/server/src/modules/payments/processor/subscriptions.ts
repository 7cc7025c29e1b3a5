import type { ExternalState } from '../../billing/index.js';
import type { ProcessorSubscription, ProcessorSubscriptionItem } from './stripe.js';

/** Pure readings of the processor's subscription object. */

/** A processor timestamp (Unix seconds) as a Date; null stays null. */
export const seconds = (value: number | null | undefined) => (value === null || value === undefined ? null : new Date(value * 1000));

/**
 * The item that bills the plan's base price: the licensed one (a metered item bills usage). Periods
 * sit on the items since API 2025-03-31; every item of one subscription shares them.
 */
export function licensedItem(subscription: ProcessorSubscription): ProcessorSubscriptionItem | undefined {
  const items = subscription.items?.data ?? [];
  return items.find((i) => i.price?.recurring?.usage_type !== 'metered') ?? items[0];
}

/** The processor subscription's state in billing's terms. */
export function toExternalState(subscription: ProcessorSubscription): ExternalState {
  const item = licensedItem(subscription);
  const start = seconds(item?.current_period_start);
  const end = seconds(item?.current_period_end);
  const status = subscription.status;
  return {
    status: status === 'active' || status === 'trialing' || status === 'past_due' ? 'active' : status === 'canceled' || status === 'incomplete_expired' ? 'ended' : 'pending',
    period: start && end && end > start ? { start, end } : null,
    cancelAtPeriodEnd: subscription.cancel_at_period_end === true,
    endedAt: seconds(subscription.ended_at),
  };
}
