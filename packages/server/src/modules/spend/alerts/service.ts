import type { AppContext } from '../../../platform/context.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { notFound } from '../../../platform/errors/app-error.js';
import { recordEvent } from '../../../platform/events/outbox.js';
import { newId } from '../../../platform/ids.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { allocateWindows, type Allocation } from '../allocation/service.js';
import { evaluationWindows, planEvaluation, type BudgetState, type PlannedAlert, type UnitSpend } from './domain.js';
import * as repo from './repo.js';
import { listBudgets, type BudgetRow } from '../budgets/repo.js';
import { enqueueSpendEvents, type DeliveryLog } from '../deliveries/service.js';
import { enforceUnitBudget, failedEnforcementUnits } from '../gateway/service.js';

/**
 * Budget evaluation and alerts (contract §7.5; README "Alerts"). An evaluation reads the account's
 * spend from three allocations (today, this month, the 7 full days before today), one per window
 * whatever the number of units, then, holding the account's evaluation lock in one transaction:
 * drops expired bumps, records the alerts not yet fired in their window (the unique key decides)
 * and writes their delivery outbox rows. Deliveries are sent after commit; gateway enforcement of
 * a unit whose bump was dropped, or whose last push failed, runs after commit too.
 */

/** The Alert object (contract §7.5). */
export type AlertView = {
  id: string;
  spendUnitId: string;
  unitName: string;
  kind: repo.AlertRow['kind'];
  period: repo.AlertRow['period'];
  windowStart: string;
  spentCents: Decimal;
  limitCents: Decimal | null;
  message: string;
  firedAt: Date;
  ackedAt: Date | null;
  ackedBy: string | null;
};

/** The latest alerts listed when not only the unacknowledged ones are asked for. */
export const ALERT_LIST_LIMIT = 200;

export async function evaluateBudgets(ctx: AppContext, accountId: string, log: DeliveryLog): Promise<AlertView[]> {
  const now = ctx.clock.now();
  const { day, month, lastSevenDays } = evaluationWindows(now);
  const allocations = await allocateWindows(ctx, accountId, { day, month, lastSevenDays });
  const spend = unitSpend(allocations.day, allocations.month, allocations.lastSevenDays);
  const { fired, dropped } = await withTransaction(ctx.db, async (tx) => {
    await repo.lockAccountEvaluation(tx, accountId);
    const budgets = new Map((await listBudgets(tx, accountId)).map((b) => [b.spend_unit_id, toBudgetState(b)]));
    const plan = planEvaluation(spend, budgets, now);
    const dropped = await repo.dropExpiredBumps(tx, accountId, plan.expiredBumps, now);
    const live = await repo.unitIds(tx, accountId);
    const rows = await repo.insertNewAlerts(tx, plan.alerts.filter((a) => live.has(a.spendUnitId)).map((a) => toRow(accountId, a, now)));
    const fired = rows.map(toAlertView);
    // spend.alert (api-contract-events.md §E5.9): with the alert row, once per alert (its unique key).
    for (const alert of fired) await recordEvent(tx, { accountId, type: 'spend.alert', object: alert, now });
    await enqueueSpendEvents(ctx, tx, { accountId, type: 'spend.alert', payloads: fired.map(alertPayload) }, log);
    return { fired, dropped };
  });
  // Units whose bump was dropped, and those whose last gateway push failed (tried again each run).
  for (const unitId of new Set([...dropped, ...(await failedEnforcementUnits(ctx, accountId))])) {
    await enforceUnitBudget(ctx, accountId, unitId).catch((err: unknown) =>
      log.warn({ accountId, spendUnitId: unitId, error: (err as Error).message }, 'spend evaluation: gateway enforcement failed'),
    );
  }
  if (fired.length > 0 || dropped.length > 0) log.info({ accountId, alertsFired: fired.length, bumpsDropped: dropped.length }, 'spend budget evaluation');
  return fired;
}

export async function listAlerts(ctx: AppContext, accountId: string, unackedOnly: boolean): Promise<AlertView[]> {
  return (await repo.listAlerts(ctx.db, accountId, { unackedOnly, limit: ALERT_LIST_LIMIT })).map(toAlertView);
}

/** Acknowledges an alert; a second acknowledgement changes nothing (the first one's time and user stay). */
export async function ackAlert(ctx: AppContext, accountId: string, alertId: string, ackedBy: string): Promise<AlertView> {
  const row = await repo.ackAlert(ctx.db, accountId, alertId, ackedBy, ctx.clock.now());
  if (!row) throw notFound(`Alert ${alertId} not found`);
  return toAlertView(row);
}

/** Each unit's allocation spendCents in the three windows (units are those of the month's allocation). */
function unitSpend(today: Allocation, month: Allocation, lastSevenDays: Allocation): UnitSpend[] {
  const byUnit = (a: Allocation) => new Map(a.rows.map((r) => [r.unitId, r.spendCents]));
  const [todayOf, weekOf] = [byUnit(today), byUnit(lastSevenDays)];
  return month.rows.map((r) => ({ unitId: r.unitId, name: r.name, today: todayOf.get(r.unitId) ?? dec(0), month: r.spendCents, lastSevenDays: weekOf.get(r.unitId) ?? dec(0) }));
}

function toBudgetState(row: BudgetRow): BudgetState {
  const cents = (v: string | null) => (v === null ? null : dec(v));
  return {
    dailyCents: cents(row.daily_cents),
    monthlyCents: cents(row.monthly_cents),
    alertThreshold: row.alert_threshold,
    monthlyMode: row.monthly_mode,
    bumpMonthlyCents: cents(row.bump_monthly_cents),
    bumpExpiresAt: row.bump_expires_at,
    enforcementTarget: row.enforcement_target,
  };
}

function toRow(accountId: string, alert: PlannedAlert, now: Date) {
  return {
    id: newId(now.getTime()),
    account_id: accountId,
    spend_unit_id: alert.spendUnitId,
    unit_name: alert.unitName,
    kind: alert.kind,
    period: alert.period,
    window_start: alert.windowStart,
    spent_cents: alert.spentCents.toFixed(),
    limit_cents: alert.limitCents?.toFixed() ?? null,
    message: alert.message,
    fired_at: now,
  };
}

export function toAlertView(row: repo.AlertRow): AlertView {
  return {
    id: row.id,
    spendUnitId: row.spend_unit_id,
    unitName: row.unit_name,
    kind: row.kind,
    period: row.period,
    windowStart: row.window_start,
    spentCents: dec(row.spent_cents),
    limitCents: row.limit_cents === null ? null : dec(row.limit_cents),
    message: row.message,
    firedAt: row.fired_at,
    ackedAt: row.acked_at,
    ackedBy: row.acked_by,
  };
}

/** The Alert as the deliveries carry it (the webhook body's `alert`): as GET /alerts shows it. */
function alertPayload(alert: AlertView): Record<string, unknown> {
  return { ...alert, firedAt: alert.firedAt.toISOString(), ackedAt: alert.ackedAt?.toISOString() ?? null };
}
