import type { SpendMonthlyMode } from '../tables.js';
import type { Decimal } from '../../../platform/money.js';
import { budgetWindows, ceilingAlert, effectiveMonthlyCents, projectedAlert, spikeAlert, type AlertCandidate } from '../budgets/domain.js';
import { addDays, dayOf } from '../reports/window.js';

/**
 * A budget evaluation's decisions (contract §7.5), pure: from each unit's spend in the evaluation's
 * three windows and its budget, the alerts the run would fire (before the once-per-window key
 * drops those already fired) and the bumps that have expired. No I/O, no clock: `now` is passed in.
 */

/** The windows one evaluation reads, as [from, to) days: today, this month, the 7 full days before today. */
export function evaluationWindows(now: Date) {
  const w = budgetWindows(now);
  const today = dayOf(w.dayStart);
  return {
    today,
    monthStart: dayOf(w.monthStart),
    day: { from: today, to: dayOf(w.dailyResetsAt) },
    month: { from: dayOf(w.monthStart), to: dayOf(w.monthlyResetsAt) },
    lastSevenDays: { from: addDays(today, -7), to: today },
  };
}

/** One unit's allocation spendCents in each window. */
export type UnitSpend = { unitId: string; name: string; today: Decimal; month: Decimal; lastSevenDays: Decimal };

export type BudgetState = {
  dailyCents: Decimal | null;
  monthlyCents: Decimal | null;
  alertThreshold: number;
  monthlyMode: SpendMonthlyMode;
  bumpMonthlyCents: Decimal | null;
  bumpExpiresAt: Date | null;
  enforcementTarget: string | null;
};

/** An alert to record: its unit, its window, and the condition's figures and message. */
export type PlannedAlert = AlertCandidate & { spendUnitId: string; unitName: string; windowStart: string };

export type EvaluationPlan = { alerts: PlannedAlert[]; expiredBumps: string[] };

/**
 * Per unit with a budget: THRESHOLD or BREACH on the daily ceiling (window: today) and on the
 * effective monthly ceiling (the bump while it lasts; window: the month), PROJECTED on the
 * effective monthly ceiling. Per unit, budget or not: SPIKE (today against the trailing week).
 * A bump whose expiry has passed is listed in `expiredBumps` (the evaluation drops it).
 */
export function planEvaluation(units: readonly UnitSpend[], budgets: ReadonlyMap<string, BudgetState>, now: Date): EvaluationPlan {
  const { today, monthStart } = evaluationWindows(now);
  const alerts: PlannedAlert[] = [];
  const expiredBumps: string[] = [];
  for (const unit of units) {
    const at = (windowStart: string) => (candidate: AlertCandidate | null) => {
      if (candidate) alerts.push({ ...candidate, spendUnitId: unit.unitId, unitName: unit.name, windowStart });
    };
    const budget = budgets.get(unit.unitId);
    if (budget) {
      if (budget.bumpMonthlyCents !== null && budget.bumpExpiresAt !== null && budget.bumpExpiresAt.getTime() <= now.getTime()) expiredBumps.push(unit.unitId);
      if (budget.dailyCents !== null) at(today)(ceilingAlert(unit.name, 'DAY', unit.today, budget.dailyCents, budget.alertThreshold, null));
      const monthly = effectiveMonthlyCents(budget, now);
      if (monthly !== null) {
        at(monthStart)(ceilingAlert(unit.name, 'MONTH', unit.month, monthly, budget.alertThreshold, blockSentence(budget)));
        at(monthStart)(projectedAlert(unit.name, unit.month, monthly, now));
      }
    }
    at(today)(spikeAlert(unit.name, unit.today, unit.lastSevenDays));
  }
  return { alerts, expiredBumps };
}

/**
 * The sentence a monthly BREACH of a BLOCK budget adds: whether the gateway enforces the ceiling
 * (gateway/service.ts records the target once a push succeeded) or the budget only alerts for now.
 */
export function blockSentence(budget: Pick<BudgetState, 'monthlyMode' | 'enforcementTarget'>): string | null {
  if (budget.monthlyMode !== 'BLOCK') return null;
  return budget.enforcementTarget
    ? `Requests through the gateway (${budget.enforcementTarget}) are blocked until the month ends or the ceiling is raised.`
    : 'The budget is set to BLOCK, but no gateway enforces it, so requests are not blocked.';
}
