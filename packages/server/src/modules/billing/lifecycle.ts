import type { Tx } from '../../platform/db/database.js';
import { clawBackPlanCredits, grantPeriodCredits, grantUpgradeDelta } from '../credits/index.js';
import type { PlanRow } from '../catalog/index.js';
import type { SubscriptionRow } from './repo.js';

/**
 * Where the credit wallet joins the subscription lifecycle. Billing calls these inside its own
 * transaction; each is idempotent per (subscription, period) or per plan change.
 */
export function onPeriodPaid(tx: Tx, subscription: SubscriptionRow, plan: PlanRow, period: { start: Date; end: Date }, now: Date): Promise<void> {
  return grantPeriodCredits(tx, subscription, plan, period, now);
}

export function onSubscriptionEnded(tx: Tx, subscription: SubscriptionRow, now: Date): Promise<void> {
  return clawBackPlanCredits(tx, subscription, now);
}

export function onPlanChanged(tx: Tx, subscription: SubscriptionRow, from: PlanRow, to: PlanRow, changeId: string, now: Date): Promise<void> {
  return grantUpgradeDelta(tx, subscription, from, to, changeId, now);
}
