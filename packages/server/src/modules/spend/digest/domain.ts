import { dec, type Decimal } from '../../../platform/money.js';
import type { AllocationRow } from '../allocation/service.js';
import { budgetWindows, effectiveMonthlyCents } from '../budgets/domain.js';
import { addDays, dayOf } from '../reports/window.js';

/**
 * The weekly digest (contract §7.5 "Digest"), pure: its windows and its figures from the three
 * allocations the service reads. No I/O, no clock.
 */

/** The last 7 full UTC days before today `[from, to)`, the 7 before them, and the month to date. */
export function digestWindows(now: Date) {
  const w = budgetWindows(now);
  const to = dayOf(w.dayStart);
  const from = addDays(to, -7);
  return {
    week: { from, to },
    previousWeek: { from: addDays(from, -7), to: from },
    month: { from: dayOf(w.monthStart), to: dayOf(w.monthlyResetsAt) },
  };
}

export type DigestRow = {
  unitId: string;
  name: string;
  cents: Decimal;
  previousCents: Decimal;
  monthlySpentCents: Decimal;
  monthlyLimitCents: Decimal | null;
  bumpReason: string | null;
};

export type Digest = {
  from: string;
  to: string;
  totalCents: Decimal;
  previousTotalCents: Decimal;
  unattributedCents: Decimal;
  alertsFired: number;
  rows: DigestRow[];
};

type Window = { rows: readonly AllocationRow[]; unattributedCents: Decimal; totalMeteredCents: Decimal };
export type DigestBudget = { monthlyCents: Decimal | null; bumpMonthlyCents: Decimal | null; bumpExpiresAt: Date | null; bumpReason: string | null };

/**
 * Per unit (every unit, so a quiet week shows as 0): its allocation spendCents this week and the
 * week before, month to date against the monthly ceiling in force (the bump while it lasts, with
 * its reason); largest spend first, then by name. Totals are the windows' metered totals
 * (attributed and unattributed; person estimates are per unit only, as in the allocation report).
 */
export function composeDigest(input: { week: Window; previousWeek: Window; month: Window; from: string; to: string; budgets: ReadonlyMap<string, DigestBudget>; alertsFired: number; now: Date }): Digest {
  const spendOf = (w: Window) => new Map(w.rows.map((r) => [r.unitId, r.spendCents]));
  const [previous, month] = [spendOf(input.previousWeek), spendOf(input.month)];
  const rows = input.week.rows.map((r): DigestRow => {
    const budget = input.budgets.get(r.unitId);
    const limit = budget ? effectiveMonthlyCents(budget, input.now) : null;
    const bumpInForce = budget?.bumpMonthlyCents != null && budget.bumpExpiresAt !== null && budget.bumpExpiresAt.getTime() > input.now.getTime();
    return {
      unitId: r.unitId,
      name: r.name,
      cents: r.spendCents,
      previousCents: previous.get(r.unitId) ?? dec(0),
      monthlySpentCents: month.get(r.unitId) ?? dec(0),
      monthlyLimitCents: limit,
      bumpReason: bumpInForce ? budget.bumpReason : null,
    };
  });
  rows.sort((a, b) => b.cents.comparedTo(a.cents) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    from: input.from,
    to: input.to,
    totalCents: input.week.totalMeteredCents,
    previousTotalCents: input.previousWeek.totalMeteredCents,
    unattributedCents: input.week.unattributedCents,
    alertsFired: input.alertsFired,
    rows,
  };
}
