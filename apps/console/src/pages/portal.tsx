import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, unwrap, type Schemas } from '../api';
import { ledgerCredits } from '../credit-figures';
import { Burndown, PoolFigures, UsageTable, type UsageReport } from '../credit-views';
import { formatCredits } from '../format';
import { portalApi, takePortalToken } from '../portal-api';
import { Credits, Empty, ErrorNote, Money, QueryView, StatusBadge, Time, UnitPrice } from '../ui';

type Session = Schemas['OwnPortalSession'];
type Offer = Session['topUpPools'][number];
type Pool = Schemas['CreditPool'];
type Transaction = Schemas['CreditTransaction'];
type Projection = UsageReport['creditPools'][number];

/**
 * The customer portal (ADR 0025): what one customer sees through a link its seller sent. No admin
 * login: every call carries the link's token and goes to the Client API routes open to that
 * customer. An expired or revoked link (401) shows a page that says so.
 */
export default function PortalPage() {
  const { token, customer } = takePortalToken();
  // Another link opened in this tab changes only the fragment: start over with its token.
  useEffect(() => {
    const onHashChange = () => {
      if (new URLSearchParams(window.location.hash.slice(1)).has('token')) window.location.reload();
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, []);
  const session = useQuery({
    queryKey: ['portal', 'session'],
    enabled: token !== null,
    queryFn: () => unwrap(portalApi.GET('/api/v1/client/portal/session')),
  });
  if (token === null || (session.error instanceof ApiError && session.error.status === 401)) return <LinkEnded error={session.error} />;
  // With the customer named in the link, its data is read beside the session (one round trip).
  const ref = customer ?? session.data?.customerReferenceId;
  return (
    <main id="main" className="portal content">
      {ref ? (
        <Portal customerRef={ref} session={session.data} />
      ) : (
        <QueryView query={session} what="your account">
          {(s) => <Portal customerRef={s.customerReferenceId} session={s} />}
        </QueryView>
      )}
    </main>
  );
}

function LinkEnded({ error }: { error: unknown }) {
  return (
    <main id="main" className="portal content">
      <section className="card">
        <h1>Link expired or revoked</h1>
        <p>This account link no longer works: links expire after a while, and the seller can revoke them. Ask them for a new link.</p>
        {error instanceof ApiError && error.requestId ? <small className="request-id">requestId {error.requestId}</small> : null}
      </section>
    </main>
  );
}

function Portal({ customerRef: ref, session }: { customerRef: string; session: Session | undefined }) {
  const customer = useQuery({
    queryKey: ['portal', 'customer'],
    queryFn: () => unwrap(portalApi.GET('/api/v1/client/customers/{ref}', { params: { path: { ref } } })),
  });
  const usage = useQuery({
    queryKey: ['portal', 'usage'],
    queryFn: () => unwrap(portalApi.GET('/api/v1/client/customers/{ref}/usage', { params: { path: { ref } } })),
  });
  const pools = useQuery({
    queryKey: ['portal', 'pools'],
    queryFn: () => unwrap(portalApi.GET('/api/v1/client/credits/{ref}/pools', { params: { path: { ref }, query: { limit: 200 } } })),
  });
  const invoices = useQuery({
    queryKey: ['portal', 'invoices'],
    queryFn: () => unwrap(portalApi.GET('/api/v1/client/billing/invoices/{ref}', { params: { path: { ref }, query: { limit: 200 } } })),
  });
  return (
    <section>
      <header className="page-header">
        <h1>Your account</h1>
        {session?.returnUrl ? (
          <div className="actions">
            <a href={session.returnUrl}>Back</a>
          </div>
        ) : null}
      </header>
      <p className="muted">
        {ref}
        {session ? (
          <>
            {' '}
            · this link works until <Time iso={session.expiresAt} />
          </>
        ) : null}
      </p>
      <h2>Plan</h2>
      <QueryView query={customer} what="your plan">
        {(c) => <Plans subscriptions={(c.subscriptions ?? []) as Schemas['Subscription'][]} />}
      </QueryView>
      <h2>Credits</h2>
      <QueryView query={pools} what="your credits">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No credit balance.</Empty>
          ) : (
            page.items.map((p) => (
              <PortalPool key={p.id} customerRef={ref} pool={p} projection={usage.data?.creditPools.find((x) => x.poolId === p.id)} asOf={usage.data?.asOf} />
            ))
          )
        }
      </QueryView>
      {session && pools.data ? <TopUp offers={session.topUpPools} pools={pools.data.items} operator={session.operatorName} /> : null}
      <h2>Usage this period</h2>
      <QueryView query={usage} what="your usage">
        {(report) => <UsageTable report={report} />}
      </QueryView>
      <h2>Invoices</h2>
      <QueryView query={invoices} what="your invoices">
        {(page) => <Invoices invoices={page.items} />}
      </QueryView>
    </section>
  );
}

function Plans({ subscriptions }: { subscriptions: Schemas['Subscription'][] }) {
  if (subscriptions.length === 0) return <Empty>No subscription.</Empty>;
  return (
    <table aria-label="Plan">
      <thead>
        <tr>
          <th scope="col">Plan</th>
          <th scope="col">Status</th>
          <th scope="col">Current period</th>
        </tr>
      </thead>
      <tbody>
        {subscriptions.map((s) => (
          <tr key={s.id}>
            <td>{String((s.plan as { name?: string } | null)?.name ?? (s.plan as { key?: string } | null)?.key ?? '—')}</td>
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

/** Every ledger row of a pool (the Client API pages it, oldest first, 200 at a time). */
async function wholeLedger(ref: string, poolId: string): Promise<Transaction[]> {
  const rows: Transaction[] = [];
  for (;;) {
    const page = await unwrap(
      portalApi.GET('/api/v1/client/credits/{ref}/pools/{poolId}/transactions', { params: { path: { ref, poolId }, query: { limit: 200, offset: rows.length } } }),
    );
    rows.push(...page.items);
    if (!page.pagination.hasMore || page.items.length === 0) return rows;
  }
}

const RECENT_ENTRIES = 20;

/** What a usage event's draw was for: its units × credits per unit, from the ledger row's metadata. */
function drawnFor(t: Transaction): string {
  const m = (t.metadata ?? {}) as { usage_units?: number | string; credits_per_unit?: number | string };
  if (m.usage_units === undefined) return '';
  return `${formatCredits(m.usage_units)} units × ${formatCredits(m.credits_per_unit ?? 1)}`;
}

function PortalPool({ customerRef, pool, projection, asOf }: { customerRef: string; pool: Pool; projection: Projection | undefined; asOf: string | undefined }) {
  const ledger = useQuery({ queryKey: ['portal', 'ledger', pool.id], queryFn: () => wholeLedger(customerRef, pool.id) });
  return (
    <article className="card pool" aria-label={`Pool ${pool.name}`}>
      <header className="page-header">
        <h3>{pool.name}</h3>
        <StatusBadge status={pool.status} />
      </header>
      <PoolFigures pool={pool} projection={projection} />
      {ledger.data && asOf ? <Burndown ledger={ledger.data} asOf={asOf} projection={projection} denomination={pool.denomination} /> : null}
      <h4>Recent activity</h4>
      <QueryView query={ledger} what="the activity">
        {(list) =>
          list.length === 0 ? (
            <Empty>No activity yet.</Empty>
          ) : (
            <table aria-label={`Recent activity of ${pool.name}`}>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Type</th>
                  <th scope="col" className="num">
                    Credits
                  </th>
                  <th scope="col" className="num">
                    Balance after
                  </th>
                  <th scope="col">For</th>
                </tr>
              </thead>
              <tbody>
                {list
                  .slice(-RECENT_ENTRIES)
                  .reverse()
                  .map((t) => (
                    <tr key={t.id}>
                      <td>
                        <Time iso={t.createdAt} />
                      </td>
                      <td>{t.transactionType}</td>
                      <td className="num">
                        <Credits amount={ledgerCredits(t)} />
                      </td>
                      <td className="num">
                        <Credits amount={t.balanceAfter} />
                      </td>
                      <td>{[t.description, drawnFor(t)].filter(Boolean).join(' · ')}</td>
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

type Purchase = {
  completed: boolean;
  credits: number | string;
  amountCharged: number | string;
  currency: string;
  checkoutUrl?: string;
  declineReason?: string;
};

/**
 * A credit top-up through the payments flow: charged off-session to the saved card (201), or a
 * hosted checkout to complete (402 with its URL). Offered only for the pools the service says a
 * top-up can go through (a price published for the pool's denomination, a processor connected);
 * the account's spend cap is the server's to check.
 */
function TopUp({ offers, pools, operator }: { offers: Offer[]; pools: Pool[]; operator: string | null }) {
  const queryClient = useQueryClient();
  const offered = offers.flatMap((o) => {
    const pool = pools.find((p) => p.id === o.poolId);
    return pool ? [{ ...o, name: pool.name }] : [];
  });
  const [chosen, setPoolId] = useState<string | undefined>();
  const poolId = chosen ?? offered[0]?.poolId;
  const [credits, setCredits] = useState('');
  const purchase = useMutation({
    mutationFn: async (input: { creditPoolId: string; credits: string }): Promise<Purchase> => {
      const answer = await portalApi.POST('/api/v1/client/credits/purchases', {
        // The credits as typed: a decimal string goes to the API untouched (never through a float).
        body: { creditPoolId: input.creditPoolId, credits: input.credits as unknown as number },
        headers: { 'Idempotency-Key': crypto.randomUUID() },
      });
      const checkout = (answer.error as { data?: Purchase } | undefined)?.data;
      if (answer.response.status === 402 && checkout?.checkoutUrl) return checkout;
      return unwrap(Promise.resolve(answer));
    },
    onSuccess: (result) => {
      if (!result.completed) return;
      setCredits('');
      for (const key of ['pools', 'ledger', 'usage']) void queryClient.invalidateQueries({ queryKey: ['portal', key] });
    },
  });
  if (offered.length === 0 || poolId === undefined) return null;
  const offer = offered.find((o) => o.poolId === poolId) ?? offered[0]!;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    purchase.mutate({ creditPoolId: offer.poolId, credits: credits.trim() });
  };
  const result = purchase.data;
  return (
    <>
      <h2>Top up</h2>
      <form className="inline-form" onSubmit={submit} aria-label="Top up">
        <label>
          Pool
          <select value={offer.poolId} onChange={(e) => setPoolId(e.target.value)}>
            {offered.map((o) => (
              <option key={o.poolId} value={o.poolId}>
                {o.name} ({o.denomination})
              </option>
            ))}
          </select>
        </label>
        <label>
          Credits
          <input inputMode="decimal" required value={credits} onChange={(e) => setCredits(e.target.value)} />
        </label>
        <button type="submit" disabled={purchase.isPending}>
          {purchase.isPending ? 'Buying…' : 'Buy credits'}
        </button>
        <span className="muted" data-testid="top-up-price">
          <UnitPrice amount={offer.pricePerCredit} currency={offer.currency} /> per credit
        </span>
        <ErrorNote error={customerTopUpError(purchase.error, operator)} title="Not bought" />
      </form>
      {result?.completed ? (
        <p role="status" className="notice">
          Bought <Credits amount={result.credits} /> credits for <Money amount={result.amountCharged} currency={result.currency} />.
        </p>
      ) : result?.checkoutUrl ? (
        <p role="status" className="notice">
          <Money amount={result.amountCharged} currency={result.currency} /> to pay: <a href={result.checkoutUrl}>complete the payment on the checkout page</a>
          {result.declineReason ? ` (${result.declineReason})` : ''}.
        </p>
      ) : null}
    </>
  );
}

/**
 * What the customer reads when a top-up fails. The service words its refusals for the operator or
 * its developers ("…the operator must publish a price book entry…", "…hand checkoutUrl to your
 * principal…"), so only the ones about the amount the customer typed are passed on; any other
 * refusal says whom to contact, with the requestId for them.
 */
function customerTopUpError(error: unknown, operator: string | null): Error | null {
  if (!error) return null;
  const contact = operator?.trim() || 'the seller';
  if (!(error instanceof ApiError)) return new Error(`The top-up did not go through; try again later or contact ${contact}.`);
  const aboutTheAmount = error.fields.some((f) => f.field === 'credits') || /payment minimum|too large for the payment processor/.test(error.message);
  if (aboutTheAmount) return error;
  const message =
    error.code === 'spend_cap_exceeded'
      ? `This top-up is larger than one purchase may be; buy fewer credits at once or contact ${contact}.`
      : error.status >= 500 || error.status === 0
        ? `The top-up did not go through; try again later or contact ${contact}.`
        : `Top-ups are not available yet; contact ${contact}.`;
  return new ApiError(error.status, error.code, message, error.requestId);
}

function Invoices({ invoices }: { invoices: Schemas['Invoice'][] }) {
  const pay = useMutation({
    mutationFn: (subscriptionId: string) =>
      unwrap(portalApi.POST('/api/v1/client/billing/subscriptions/{subscriptionId}/stripe/checkout', { params: { path: { subscriptionId } } })),
  });
  if (invoices.length === 0) return <Empty>No invoice.</Empty>;
  return (
    <>
      <ErrorNote error={pay.error} title="No payment page" />
      {pay.data ? (
        <p role="status" className="notice">
          <a href={pay.data.url}>Open the payment page</a>
        </p>
      ) : null}
      <table aria-label="Invoices">
        <thead>
          <tr>
            <th scope="col">Period</th>
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
                  <button type="button" className="secondary" disabled={pay.isPending} onClick={() => pay.mutate(i.subscriptionId)}>
                    Pay
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
