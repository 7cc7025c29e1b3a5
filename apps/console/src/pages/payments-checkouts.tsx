import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api';
import { formatCredits, formatMoney } from '../format';
import { Empty, QueryView, StatusBadge, Time } from '../ui';

const PAGE_SIZE = 20;
type Filters = { customerReferenceId?: string; status?: 'PENDING' | 'COMPLETED' | 'EXPIRED' };

/** The account's hosted checkouts, newest first, filtered by customer and status, paged. */
export function CheckoutSessions() {
  const [filters, setFilters] = useState<Filters>({});
  const [offset, setOffset] = useState(0);
  const sessions = useQuery({
    queryKey: ['checkout-sessions', filters, offset],
    queryFn: () => unwrap(api.GET('/api/v1/data/stripe/checkout-sessions', { params: { query: { ...filters, limit: PAGE_SIZE, offset } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <FilterForm
        onApply={(next) => {
          setFilters(next);
          setOffset(0);
        }}
      />
      <QueryView query={sessions} what="checkout sessions">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No checkout session{filters.customerReferenceId || filters.status ? ' matches these filters' : ' yet'}.</Empty>
          ) : (
            <>
              <table aria-label="Checkout sessions">
                <thead>
                  <tr>
                    <th scope="col">Created</th>
                    <th scope="col">Customer</th>
                    <th scope="col">Purpose</th>
                    <th scope="col" className="num">Amount</th>
                    <th scope="col" className="num">Credits</th>
                    <th scope="col">Status</th>
                    <th scope="col">Hosted page</th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((s) => (
                    <tr key={s.id}>
                      <td>
                        <Time iso={s.createdAt} />
                      </td>
                      <td>{s.customerReferenceId}</td>
                      <td>{s.purpose}</td>
                      <td className="num">{s.amount === null || !s.currency ? '—' : formatMoney(s.amount, s.currency)}</td>
                      <td className="num">{s.credits === null ? '—' : formatCredits(s.credits)}</td>
                      <td>
                        <StatusBadge status={s.status} />
                        {s.completedAt ? (
                          <span className="muted small">
                            {' '}
                            <Time iso={s.completedAt} />
                          </span>
                        ) : null}
                      </td>
                      <td>{s.checkoutUrl && s.status === 'PENDING' ? <a href={s.checkoutUrl}>open</a> : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div className="row pager">
                <button type="button" className="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                  Previous
                </button>
                <span className="muted" data-testid="checkout-page">
                  {page.pagination.offset + 1}–{page.pagination.offset + page.items.length} of {page.pagination.total}
                </span>
                <button type="button" className="secondary" disabled={!page.pagination.hasMore} onClick={() => setOffset(offset + PAGE_SIZE)}>
                  Next
                </button>
              </div>
            </>
          )
        }
      </QueryView>
    </>
  );
}

function FilterForm({ onApply }: { onApply: (filters: Filters) => void }) {
  const [customer, setCustomer] = useState('');
  const [status, setStatus] = useState('');
  function submit(event: FormEvent) {
    event.preventDefault();
    onApply({ ...(customer.trim() ? { customerReferenceId: customer.trim() } : {}), ...(status ? { status: status as Filters['status'] } : {}) });
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label="Checkout filters">
      <label>
        Customer reference
        <input value={customer} onChange={(e) => setCustomer(e.target.value)} />
      </label>
      <label>
        Status
        <select value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">any</option>
          <option value="PENDING">PENDING</option>
          <option value="COMPLETED">COMPLETED</option>
          <option value="EXPIRED">EXPIRED</option>
        </select>
      </label>
      <button type="submit">Filter</button>
    </form>
  );
}
