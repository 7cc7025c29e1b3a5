/**
 * The billing tables the operator's customer page and the customer portal both show: one invoices
 * table and one subscriptions table, each page adding only its own action (mark paid, pay).
 */
import type { ReactNode } from 'react';
import type { Schemas } from '../api';
import { DataTable, type Column } from './data-table';
import { Money, Period, Time } from './figures';
import { StatusBadge } from './ui';

type Invoice = Schemas['Invoice'];
type Subscription = Pick<Schemas['Subscription'], 'id' | 'status' | 'currentPeriodStart' | 'currentPeriodEnd'> & { plan?: unknown };

/** An invoice still to be paid (the actions mark paid and pay apply to it only). */
export const isOpen = (i: Invoice) => i.status === 'DUE' || i.status === 'PAST_DUE';

/** The invoices; `showType` adds the invoice type column, `action` the last column's content. */
export function InvoicesTable({ invoices, showType, action }: { invoices: Invoice[]; showType?: boolean; action: (invoice: Invoice) => ReactNode }) {
  const columns: Column<Invoice>[] = [
    { header: 'Number', cell: (i) => i.number ?? <span className="muted">Draft</span> },
    { header: 'Period', cell: (i) => <Period start={i.periodStart} end={i.periodEnd} /> },
    ...(showType ? [{ header: 'Type', cell: (i: Invoice) => i.type }] : []),
    { header: 'Amount', num: true, cell: (i) => <Money amount={i.amount} currency={i.currency} /> },
    { header: 'Due', cell: (i) => <Time iso={i.dueDate} dateOnly /> },
    { header: 'Status', cell: (i) => <StatusBadge status={i.status} /> },
    { header: 'Actions', hiddenHeader: true, cell: action },
  ];
  return <DataTable label="Invoices" columns={columns} rows={invoices} rowKey={(i) => i.id} empty="No invoice." />;
}

/** A subscription's plan as the API embeds it: its name, else its key. */
export function planNameOf(plan: unknown): string {
  const p = plan as { name?: string | null; key?: string } | null | undefined;
  return p?.name ?? p?.key ?? '—';
}

const SUBSCRIPTION_COLUMNS: Column<Subscription>[] = [
  { header: 'Plan', cell: (s) => planNameOf(s.plan) },
  { header: 'Status', cell: (s) => <StatusBadge status={s.status} /> },
  { header: 'Current period', cell: (s) => <Period start={s.currentPeriodStart} end={s.currentPeriodEnd} /> },
];

/** The subscriptions; `action` adds a last column (the operator's plan change and cancel), `empty` says what to do next. */
export function SubscriptionsTable<S extends Subscription>({ label, subscriptions, action, empty = 'No subscription.' }: { label: string; subscriptions: S[]; action?: (subscription: S) => ReactNode; empty?: ReactNode }) {
  const columns: Column<S>[] = action ? [...SUBSCRIPTION_COLUMNS, { header: 'Actions', hiddenHeader: true, cell: action }] : SUBSCRIPTION_COLUMNS;
  return <DataTable label={label} columns={columns} rows={subscriptions} rowKey={(s) => s.id} empty={empty} />;
}
