/**
 * Credit figures computed from the API's rows (pure, no React; credit-views.tsx shows them): the
 * credits a ledger row moved, and a pool's burndown per UTC day. Every result is exact decimal text.
 */
import { compareDecimals, decimalText, multiplyDecimals, subtractDecimals, sumDecimals, type DecimalInput } from './format.js';

type LedgerRow = { transactionType: string; amount: DecimalInput; heldChange: DecimalInput; createdAt: string; balanceAfter: DecimalInput };
type Projection = { averageDailyBurn?: DecimalInput; projectedDepletionDate?: string };

/**
 * The credits a ledger row moved, as the ledger tables show them. A CAPTURE row's `amount` is only
 * what was drawn beyond the hold (often 0) and its `heldChange` what it consumed from the hold, so
 * the credits it consumed are their sum; every other row's is its `amount`.
 */
export function ledgerCredits(t: Pick<LedgerRow, 'transactionType' | 'amount' | 'heldChange'>): string {
  return t.transactionType === 'CAPTURE' ? sumDecimals([t.amount, t.heldChange]) : decimalText(t.amount);
}

const DAY_MS = 86_400_000;
const PROJECTION_DAYS = 60;

/**
 * The pool's burndown: its balance at the end of each UTC day from the ledger, then the projected
 * line at the average daily burn until the projected depletion date (at most 60 days ahead). Every
 * value is exact decimal text (balance − burn × days on scaled integers), so the chart's table never
 * shows a float's digits.
 */
export function burndownOf(ledger: Pick<LedgerRow, 'createdAt' | 'balanceAfter'>[], asOf: string, projection: Projection | undefined) {
  const dayOf = (iso: string) => iso.slice(0, 10);
  const endOfDay = new Map<string, string>();
  for (const t of [...ledger].sort((a, b) => a.createdAt.localeCompare(b.createdAt))) endOfDay.set(dayOf(t.createdAt), decimalText(t.balanceAfter));
  const first = ledger.length ? Math.min(...ledger.map((t) => Date.parse(`${dayOf(t.createdAt)}T00:00:00Z`))) : Date.parse(`${dayOf(asOf)}T00:00:00Z`);
  const today = Date.parse(`${dayOf(asOf)}T00:00:00Z`);
  const burn = decimalText(projection?.averageDailyBurn);
  const depletion = projection?.projectedDepletionDate ? Date.parse(`${dayOf(projection.projectedDepletionDate)}T00:00:00Z`) : null;
  const last = Math.min(depletion ?? today, today + PROJECTION_DAYS * DAY_MS);
  const days: string[] = [];
  const balance: (string | null)[] = [];
  const projected: (string | null)[] = [];
  let carried = '0';
  for (let t = first; t <= Math.max(last, today); t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    days.push(day);
    if (t <= today) {
      carried = endOfDay.get(day) ?? carried;
      balance.push(carried);
      projected.push(t === today ? carried : null);
    } else {
      const left = subtractDecimals(carried, multiplyDecimals(burn, (t - today) / DAY_MS));
      balance.push(null);
      projected.push(compareDecimals(left, 0) < 0 ? '0' : left);
    }
  }
  return { days, balance, projected };
}
