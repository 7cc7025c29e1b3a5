import type { Tx } from '../../platform/db/database.js';
import type { Plan } from '../catalog/index.js';
import { periodPaid, planChanged, subscriptionEnded } from './events.js';
import type { SubscriptionRow } from './repo.js';

/**
 * Where other modules join the subscription lifecycle: billing calls these inside its own
 * transaction and they emit billing's domain events (events.ts) to whichever modules subscribed
 * at startup (credits grants, claws back and tops up credits). Billing imports none of them.
 */
export function onPeriodPaid(tx: Tx, subscription: SubscriptionRow, plan: Plan, period: { start: Date; end: Date }, now: Date): Promise<void> {
  return periodPaid.emit(tx, { subscription, plan, period, now });
}

export function onSubscriptionEnded(tx: Tx, subscription: SubscriptionRow, now: Date): Promise<void> {
  return subscriptionEnded.emit(tx, { subscription, now });
}

export function onPlanChanged(tx: Tx, subscription: SubscriptionRow, from: Plan, to: Plan, changeId: string, now: Date): Promise<void> {
  return planChanged.emit(tx, { subscription, from, to, changeId, now });
}
