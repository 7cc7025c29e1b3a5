import type { Tx } from '../../platform/db/database.js';
import type { PlanRow } from '../catalog/repo.js';
import type { SubscriptionRow } from './repo.js';

/**
 * Seams where the credit wallet joins the subscription lifecycle. Billing calls them inside its own
 * transaction; they must be idempotent per (subscription, period).
 *
 * Plan-included credits are granted in onPeriodPaid and clawed back in onSubscriptionEnded; an
 * upgrade grants the allocation difference in onPlanChanged. Until the credits module lands they
 * have nothing to do.
 */
export async function onPeriodPaid(_tx: Tx, _subscription: SubscriptionRow, _plan: PlanRow, _period: { start: Date; end: Date }): Promise<void> {}

export async function onSubscriptionEnded(_tx: Tx, _subscription: SubscriptionRow, _now: Date): Promise<void> {}

export async function onPlanChanged(_tx: Tx, _subscription: SubscriptionRow, _from: PlanRow, _to: PlanRow, _changeId: string): Promise<void> {}
