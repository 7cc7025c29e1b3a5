/**
 * The console's figures: every amount on a page is one of these, so its type (money in a currency,
 * a price per unit, credits, spend cents) is in the markup (`data-figure`) and the browser tests can
 * check each figure's decimals against it. Amounts arrive as exact decimal text and are formatted
 * from that text (format.ts), never through a float.
 */
import { Fragment, type ReactNode } from 'react';
import { formatCredits, formatDate, formatDateTime, formatMoney, formatUnitPrice, type DecimalInput } from '../format';

export function Money({ amount, currency }: { amount: DecimalInput; currency: string }) {
  return (
    <span data-figure="money" data-currency={currency.toUpperCase()}>
      {formatMoney(amount, currency)}
    </span>
  );
}

/** Money when there is an amount and a currency to show it in; a dash otherwise. */
export function MaybeMoney({ amount, currency }: { amount: DecimalInput; currency: string | null | undefined }) {
  return amount === null || amount === undefined || !currency ? <>—</> : <Money amount={amount} currency={currency} />;
}

/** A price per unit (per credit, per event): every digit of the rate, at least the currency's minor units. */
export function UnitPrice({ amount, currency }: { amount: DecimalInput; currency: string }) {
  return (
    <span data-figure="unit-price" data-currency={currency.toUpperCase()}>
      {formatUnitPrice(amount, currency)}
    </span>
  );
}

export function Credits({ amount }: { amount: DecimalInput }) {
  return <span data-figure="credits">{formatCredits(amount)}</span>;
}

/** Amounts in several currencies, one after another ("$10.00 · €5.00"). */
export function MoneyList<T extends { currency: string }>({ rows, separator, render }: { rows: T[]; separator: string; render: (row: T) => ReactNode }) {
  if (rows.length === 0) return null;
  return (
    <>
      {rows.map((r, i) => (
        <Fragment key={r.currency}>
          {i > 0 ? separator : null}
          {render(r)}
        </Fragment>
      ))}
    </>
  );
}

/** A time in the user's zone; the UTC instant on hover. */
export function Time({ iso, dateOnly }: { iso: string | null | undefined; dateOnly?: boolean }) {
  if (!iso) return <span>—</span>;
  return (
    <time dateTime={iso} title={`${new Date(iso).toISOString().replace('.000Z', 'Z')} UTC`}>
      {dateOnly ? formatDate(iso) : formatDateTime(iso)}
    </time>
  );
}

/** A half-open period as two dates ("Jan 1, 2026 – Feb 1, 2026"). */
export function Period({ start, end }: { start: string | null | undefined; end: string | null | undefined }) {
  return (
    <>
      <Time iso={start} dateOnly /> – <Time iso={end} dateOnly />
    </>
  );
}

export type Stat = { label: ReactNode; value: ReactNode; testId?: string };

/** A row of headline figures (a `dl` of label and value). */
export function Stats({ items }: { items: Stat[] }) {
  return (
    <dl className="stats">
      {items.map((s, i) => (
        <div className="stat" key={i}>
          <dt>{s.label}</dt>
          <dd data-testid={s.testId}>{s.value}</dd>
        </div>
      ))}
    </dl>
  );
}
