import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api, unwrap, type Schemas } from '../api';
import { ledgerCredits } from '../credit-figures';
import { Burndown, PoolFigures, UsageTable, type UsageReport } from '../credit-views';
import { Credits, Empty, ErrorNote, Money, PageHeader, QueryView, StatusBadge, Time } from '../ui';
import { CustomerEntitlements } from './customer-entitlements';
import { CustomerKeys } from './customer-keys';

type Invoice = Schemas['Invoice'];

/** A customer: subscriptions, invoices (mark paid), credit pools with their grants and ledger, keys. */
export default function CustomerPage() {
  const { customerId } = useParams() as { customerId: string };
  const customer = useQuery({
    queryKey: ['customer', customerId],
    queryFn: () => unwrap(api.GET('/api/v1/monetization/customers/{id}', { params: { path: { id: customerId } } })),
  });
  const invoices = useQuery({
    queryKey: ['invoices', customerId],
    queryFn: () => unwrap(api.GET('/api/v1/monetization/billing/invoices', { params: { query: { customerId } } })),
  });
  const usage = useQuery({
    queryKey: ['usage-report', customerId],
    enabled: customer.data !== undefined,
    queryFn: () =>
      unwrap(api.GET('/api/v1/tanso/customers/{ref}/usage', { params: { path: { ref: customer.data!.customerReferenceId } } })),
  });
  const pools = useQuery({
    queryKey: ['pools', customerId],
    queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/pools/customer/{customerId}', { params: { path: { customerId } } })),
  });
  return (
    <QueryView query={customer} what="the customer">
      {(c) => (
        <section>
          <PageHeader title={c.customerReferenceId} />
          <p className="muted">
            {[c.firstName, c.lastName].filter(Boolean).join(' ') || 'No name'} · {c.email ?? 'no e-mail'} · created <Time iso={c.createdAt} />
          </p>
          <h2>Subscriptions</h2>
          <QueryView query={invoices} what="subscriptions">
            {(list) => <Subscriptions invoices={list} />}
          </QueryView>
          <h2>Invoices</h2>
          <QueryView query={invoices} what="invoices">
            {(list) => <Invoices invoices={list} customerId={customerId} />}
          </QueryView>
          <h2>Entitlements</h2>
          <CustomerEntitlements customerRef={c.customerReferenceId} planOf={(id) => planNameOf(invoices.data ?? [], id)} />
          <h2>Usage this period</h2>
          <QueryView query={usage} what="usage">
            {(report) => <UsageTable report={report} />}
          </QueryView>
          <h2>Credit pools</h2>
          <QueryView query={pools} what="credit pools">
            {(list) =>
              list.length === 0 ? (
                <Empty>No credit pool.</Empty>
              ) : (
                list.map((p) => (
                  <Pool key={p.id} pool={p} projection={usage.data?.creditPools.find((x) => x.poolId === p.id)} asOf={usage.data?.asOf} />
                ))
              )
            }
          </QueryView>
          <h2>Customer keys</h2>
          <CustomerKeys customerRef={c.customerReferenceId} />
        </section>
      )}
    </QueryView>
  );
}

/** The plan of a subscription as its invoices name it (the Admin API has no subscription list). */
function planNameOf(invoices: Invoice[], subscriptionId: string): string {
  const plan = invoices.find((i) => i.subscription?.id === subscriptionId)?.subscription?.plan as { name?: string; key?: string } | null | undefined;
  return plan?.name ?? plan?.key ?? '—';
}

/** The customer's subscriptions, as the invoices carry them (the Admin API has no subscription list). */
function Subscriptions({ invoices }: { invoices: Invoice[] }) {
  const subscriptions = new Map<string, NonNullable<Invoice['subscription']>>();
  for (const i of invoices) if (i.subscription && !subscriptions.has(i.subscription.id)) subscriptions.set(i.subscription.id, i.subscription);
  if (subscriptions.size === 0) return <Empty>No subscription.</Empty>;
  return (
    <table aria-label="Subscriptions">
      <thead>
        <tr>
          <th scope="col">Plan</th>
          <th scope="col">Status</th>
          <th scope="col">Current period</th>
        </tr>
      </thead>
      <tbody>
        {[...subscriptions.values()].map((s) => (
          <tr key={s.id}>
            <td>{String((s.plan as { name?: string; key?: string } | null)?.name ?? (s.plan as { key?: string } | null)?.key ?? '—')}</td>
            <td>
              <StatusBadge status={s.status} />
            </td>
            <td>
              <Time iso={s.currentPeriodStart} dateOnly /> – <Time iso={s.currentPeriodEnd} dateOnly />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Invoices({ invoices, customerId }: { invoices: Invoice[]; customerId: string }) {
  const queryClient = useQueryClient();
  const markPaid = useMutation({
    mutationFn: (invoiceId: string) => unwrap(api.PATCH('/api/v1/monetization/billing/invoices/{invoiceId}', { params: { path: { invoiceId } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['invoices', customerId] });
      void queryClient.invalidateQueries({ queryKey: ['pools', customerId] });
      void queryClient.invalidateQueries({ queryKey: ['usage-report', customerId] });
      // Paying the first invoice activates the subscription, and with it its entitlements.
      void queryClient.invalidateQueries({ queryKey: ['entitlements'] });
      void queryClient.invalidateQueries({ queryKey: ['billing-overview'] });
    },
  });
  if (invoices.length === 0) return <Empty>No invoice.</Empty>;
  return (
    <>
      <ErrorNote error={markPaid.error} title="Not marked paid" />
      <table aria-label="Invoices">
        <thead>
          <tr>
            <th scope="col">Period</th>
            <th scope="col">Type</th>
            <th scope="col" className="num">
              Amount
            </th>
            <th scope="col">Due</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {invoices.map((i) => (
            <tr key={i.id}>
              <td>
                <Time iso={i.periodStart} dateOnly /> – <Time iso={i.periodEnd} dateOnly />
              </td>
              <td>{i.type}</td>
              <td className="num">
                <Money amount={i.amount} currency={i.currency} />
              </td>
              <td>
                <Time iso={i.dueDate} dateOnly />
              </td>
              <td>
                <StatusBadge status={i.status} />
              </td>
              <td>
                {i.status === 'DUE' || i.status === 'PAST_DUE' ? (
                  <button type="button" className="secondary" disabled={markPaid.isPending} onClick={() => markPaid.mutate(i.id)}>
                    Mark paid
                  </button>
                ) : i.paidAt ? (
                  <span className="muted small">
                    paid <Time iso={i.paidAt} />
                  </span>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Pool({ pool, projection, asOf }: { pool: Schemas['CreditPool']; projection: UsageReport['creditPools'][number] | undefined; asOf: string | undefined }) {
  const grants = useQuery({
    queryKey: ['grants', pool.id],
    queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/pools/{poolId}/grants', { params: { path: { poolId: pool.id } } })),
  });
  const ledger = useQuery({
    queryKey: ['ledger', pool.id],
    queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/pools/{poolId}/transactions', { params: { path: { poolId: pool.id } } })),
  });
  return (
    <article className="card pool" aria-label={`Pool ${pool.name}`}>
      <header className="page-header">
        <h3>{pool.name}</h3>
        <StatusBadge status={pool.status} />
      </header>
      <PoolFigures pool={pool} projection={projection} />
      {ledger.data && asOf ? <Burndown ledger={ledger.data} asOf={asOf} projection={projection} denomination={pool.denomination} /> : null}
      <h4>Grants</h4>
      <QueryView query={grants} what="grants">
        {(list) =>
          list.length === 0 ? (
            <Empty>No grant.</Empty>
          ) : (
            <table aria-label={`Grants of ${pool.name}`}>
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col" className="num">
                    Credits
                  </th>
                  <th scope="col" className="num">
                    Remaining
                  </th>
                  <th scope="col">Expires</th>
                  <th scope="col">Granted</th>
                </tr>
              </thead>
              <tbody>
                {list.map((g) => (
                  <tr key={g.id}>
                    <td>{g.grantType}</td>
                    <td className="num">
                      <Credits amount={g.amount} />
                    </td>
                    <td className="num">
                      <Credits amount={g.remaining} />
                    </td>
                    <td>{g.expiresAt ? <Time iso={g.expiresAt} /> : 'never'}</td>
                    <td>
                      <Time iso={g.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
      <h4>Ledger</h4>
      <QueryView query={ledger} what="the ledger">
        {(list) =>
          list.length === 0 ? (
            <Empty>No ledger entry.</Empty>
          ) : (
            <table aria-label={`Ledger of ${pool.name}`}>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Type</th>
                  <th scope="col" className="num">
                    Credits
                  </th>
                  <th scope="col" className="num">
                    Held
                  </th>
                  <th scope="col" className="num">
                    Balance before
                  </th>
                  <th scope="col" className="num">
                    Balance after
                  </th>
                  <th scope="col">Description</th>
                </tr>
              </thead>
              <tbody>
                {list.map((t) => (
                  <tr key={t.id}>
                    <td>
                      <Time iso={t.createdAt} />
                    </td>
                    <td>{t.transactionType}</td>
                    <td className="num">
                      <Credits amount={ledgerCredits(t)} />
                    </td>
                    <td className="num">
                      <Credits amount={t.heldChange} />
                    </td>
                    <td className="num">
                      <Credits amount={t.balanceBefore} />
                    </td>
                    <td className="num">
                      <Credits amount={t.balanceAfter} />
                    </td>
                    <td>{t.description ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </article>
  );
}
