/** The console's small building blocks: page header, states of a read (loading, error, empty), badges, a secret shown once. */
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../api';
import { useCan } from '../auth';

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

/** What the operator can do next from an empty state: a link to a page, or an action on this one. */
export type NextStep = { label: string; to: string } | { label: string; onClick: () => void };

/** An empty list or page: says why it is empty and, where there is one, the next step. */
export function EmptyState({ children, next }: { children: ReactNode; next?: NextStep }) {
  return (
    <p className="empty">
      {children}
      {next ? ' ' : null}
      {next && 'to' in next ? <Link to={next.to}>{next.label}</Link> : null}
      {next && 'onClick' in next ? (
        <button type="button" className="secondary" onClick={next.onClick}>
          {next.label}
        </button>
      ) : null}
    </p>
  );
}

type QueryLike<T> = { isPending: boolean; error: unknown; data: T | undefined };

/** A query's three states: loading, error (with the API's message), or its data. */
export function QueryView<T>({ query, what, children }: { query: QueryLike<T>; what: string; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loading what={what} />;
  if (query.error) return <ErrorNote error={query.error} title={`Could not load ${what}`} />;
  return <>{children(query.data as T)}</>;
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{status}</span>;
}

/** A button that copies `text`, saying "Copied" once it did. */
export function CopyButton({ text, label = 'Copy', className }: { text: string; label?: string; className?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => void navigator.clipboard?.writeText(text).then(() => setCopied(true), () => setCopied(false));
  return (
    <button type="button" className={className} onClick={copy}>
      {copied ? 'Copied' : label}
    </button>
  );
}

/** A secret shown once (a new tenant or customer key), with a copy button. */
export function SecretOnce({ label, value, onDismiss }: { label: string; value: string; onDismiss: () => void }) {
  return (
    <div className="secret-once" role="region" aria-label={label}>
      <p>
        <strong>{label}</strong>: shown once. Copy it now; it cannot be displayed again.
      </p>
      <div className="row">
        <code data-testid="secret-value" className="secret">
          {value}
        </code>
        <CopyButton text={value} />
        <button type="button" className="secondary" onClick={onDismiss}>
          Done
        </button>
      </div>
    </div>
  );
}

export function PageHeader({ title, children }: { title: ReactNode; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1>{title}</h1>
      {children ? <div className="actions">{children}</div> : null}
    </header>
  );
}

/** A result line announced to screen readers ("Saved.", "Probe passed"). */
export function StatusNote({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <p role="status" className={className}>
      {children}
    </p>
  );
}

/**
 * A secondary button (an action in a row, opening or closing a form): disabled, saying which role
 * it needs, where the operator's role may not change things on the page (useCan), as a Form is.
 */
export function SecondaryButton({ children, onClick, disabled, name }: { children: ReactNode; onClick: () => void; disabled?: boolean; /** Its accessible name where the text does not tell rows apart. */ name?: string }) {
  const can = useCan();
  return (
    <button type="button" className="secondary" disabled={disabled || !can.allowed} title={can.why} aria-label={name} onClick={onClick}>
      {children}
    </button>
  );
}
