import { useState, type ReactNode } from 'react';
import { ApiError } from './api';
import { formatCredits, formatDate, formatDateTime, formatMoney, formatUnitPrice, type DecimalInput } from './format';

/** The API's message, its field errors and the requestId to quote to support. */
export function ErrorNote({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const apiError = error instanceof ApiError ? error : null;
  return (
    <div role="alert" className="error-note">
      {title ? <strong>{title}: </strong> : null}
      <span>{error instanceof Error ? error.message : String(error)}</span>
      {apiError?.fields.length ? (
        <ul>
          {apiError.fields.map((f) => (
            <li key={f.field + f.message}>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      ) : null}
      {apiError?.requestId ? <small className="request-id">requestId {apiError.requestId}</small> : null}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status" aria-live="polite" data-loading="">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** A query's three states: loading, error (with the API's message), or its data. */
export function QueryView<T>({
  query,
  what,
  children,
}: {
  query: { isPending: boolean; error: unknown; data: T | undefined };
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.error) return <ErrorNote error={query.error} title={`Could not load ${what}`} />;
  return <>{children(query.data as T)}</>;
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

/**
 * The console's figures: every amount on a page is one of these, so its type (money in a currency,
 * a price per unit, credits) is in the markup (`data-figure`) and the browser tests can check each
 * figure's decimals against it.
 */
export function Money({ amount, currency }: { amount: DecimalInput; currency: string }) {
  return (
    <span data-figure="money" data-currency={currency.toUpperCase()}>
      {formatMoney(amount, currency)}
    </span>
  );
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

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{status}</span>;
}

/** A secret shown once (a new tenant or customer key), with a copy button. */
export function SecretOnce({ label, value, onDismiss }: { label: string; value: string; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret-once" role="region" aria-label={label}>
      <p>
        <strong>{label}</strong>: shown once. Copy it now; it cannot be displayed again.
      </p>
      <div className="row">
        <code data-testid="secret-value" className="secret">
          {value}
        </code>
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(value).then(() => setCopied(true), () => setCopied(false));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="secondary" onClick={onDismiss}>
          Done
        </button>
      </div>
    </div>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1>{title}</h1>
      {children ? <div className="actions">{children}</div> : null}
    </header>
  );
}
