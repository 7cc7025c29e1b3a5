import { useState } from 'react';
import { DataTable, type Column } from '../components/data-table';
import { Credits, MaybeMoney, Time } from '../components/figures';
import { Field, Form } from '../components/form';
import { StatusBadge } from '../components/ui';
import { useCheckoutSessions, type CheckoutFilters } from '../queries/payments';

const PAGE_SIZE = 20;
type Session = NonNullable<ReturnType<typeof useCheckoutSessions>['data']>['items'][number];

const COLUMNS: Column<Session>[] = [
  { header: 'Created', cell: (s) => <Time iso={s.createdAt} /> },
  { header: 'Customer', cell: (s) => s.customerReferenceId },
  { header: 'Purpose', cell: (s) => s.purpose },
  { header: 'Amount', num: true, cell: (s) => <MaybeMoney amount={s.amount} currency={s.currency} /> },
  { header: 'Credits', num: true, cell: (s) => (s.credits === null ? '—' : <Credits amount={s.credits} />) },
  {
    header: 'Status',
    cell: (s) => (
      <>
        <StatusBadge status={s.status} />
        {s.completedAt ? (
          <span className="muted small">
            {' '}
            <Time iso={s.completedAt} />
          </span>
        ) : null}
      </>
    ),
  },
  { header: 'Hosted page', cell: (s) => (s.checkoutUrl && s.status === 'PENDING' ? <a href={s.checkoutUrl}>open</a> : '—') },
];

/** The account's hosted checkouts, newest first, filtered by customer and status, paged. */
export function CheckoutSessions() {
  const [filters, setFilters] = useState<CheckoutFilters>({});
  const [offset, setOffset] = useState(0);
  const sessions = useCheckoutSessions(filters, offset, PAGE_SIZE);
  const page = sessions.data;
  const filtered = filters.customerReferenceId || filters.status;
  return (
    <>
      <FilterForm
        onApply={(next) => {
          setFilters(next);
          setOffset(0);
        }}
      />
      <DataTable
        label="Checkout sessions"
        query={sessions}
        columns={COLUMNS}
        rows={page?.items}
        rowKey={(s) => s.id}
        empty={`No checkout session${filtered ? ' matches these filters' : ' yet'}.`}
        paging={page ? { ...page.pagination, onGo: setOffset, testId: 'checkout-page' } : undefined}
      />
    </>
  );
}

function FilterForm({ onApply }: { onApply: (filters: CheckoutFilters) => void }) {
  const [customer, setCustomer] = useState('');
  const [status, setStatus] = useState('');
  const apply = () =>
    onApply({ ...(customer.trim() ? { customerReferenceId: customer.trim() } : {}), ...(status ? { status: status as CheckoutFilters['status'] } : {}) });
  return (
    <Form access="read" label="Checkout filters" submission={{ isPending: false, error: null }} onSubmit={apply} submit="Filter" failed="">
      <Field label="Customer reference">
        <input value={customer} onChange={(e) => setCustomer(e.target.value)} />
      </Field>
      <Field label="Status">
        <select value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">any</option>
          <option value="PENDING">PENDING</option>
          <option value="COMPLETED">COMPLETED</option>
          <option value="EXPIRED">EXPIRED</option>
        </select>
      </Field>
    </Form>
  );
}
