import { useEffect } from 'react';
import { ApiError, type Schemas } from '../../api';
import { SubscriptionsTable } from '../../components/billing-tables';
import { UsageTable } from '../../components/credit-views';
import { Time } from '../../components/figures';
import { EmptyState, QueryView } from '../../components/ui';
import { takePortalToken } from '../../portal-api';
import { linkEnded, usePortalCustomer, usePortalInvoices, usePortalPools, usePortalSession, usePortalUsage } from '../../queries/portal';
import { AutoTopupForm, CardSection, mayPay, PlanActions } from './actions';
import { PortalInvoices } from './invoices';
import { PortalPool } from './pool';
import { TopUp } from './top-up';

type Session = Schemas['OwnPortalSession'];

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
  const session = usePortalSession(token !== null);
  if (token === null || linkEnded(session.error)) return <LinkEnded error={session.error} />;
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

function PortalHeader({ customerRef, session }: { customerRef: string; session: Session | undefined }) {
  return (
    <>
      <header className="page-header">
        <h1>Your account</h1>
        {session?.returnUrl ? (
          <div className="actions">
            <a href={session.returnUrl}>Back</a>
          </div>
        ) : null}
      </header>
      <p className="muted">
        {customerRef}
        {session ? (
          <>
            {' '}
            · this link works until <Time iso={session.expiresAt} />
          </>
        ) : null}
      </p>
    </>
  );
}

function Portal({ customerRef: ref, session }: { customerRef: string; session: Session | undefined }) {
  const customer = usePortalCustomer(ref);
  const usage = usePortalUsage(ref);
  const pools = usePortalPools(ref);
  const invoices = usePortalInvoices(ref);
  return (
    <section>
      <PortalHeader customerRef={ref} session={session} />
      <h2>Plan</h2>
      <QueryView query={customer} what="your plan">
        {(c) => (
          <>
            <SubscriptionsTable label="Plan" subscriptions={(c.subscriptions ?? []) as Schemas['Subscription'][]} />
            {session ? <PlanActions scopes={session.scopes} subscriptions={(c.subscriptions ?? []) as Schemas['Subscription'][]} /> : null}
          </>
        )}
      </QueryView>
      <h2>Credits</h2>
      <QueryView query={pools} what="your credits">
        {(page) =>
          page.items.length === 0 ? (
            <EmptyState>No credit balance.</EmptyState>
          ) : (
            page.items.map((p) => (
              <PortalPool key={p.id} customerRef={ref} pool={p} projection={usage.data?.creditPools.find((x) => x.poolId === p.id)} asOf={usage.data?.asOf} />
            ))
          )
        }
      </QueryView>
      {session && pools.data ? <TopUp offers={session.topUpPools} pools={pools.data.items} operator={session.operatorName} /> : null}
      {session?.scopes.includes('auto_topup') && pools.data ? pools.data.items.filter((p) => p.status !== 'ARCHIVED').map((p) => <AutoTopupForm key={p.id} customerRef={ref} pool={p} />) : null}
      {session && mayPay(session.scopes) ? <CardSection customerRef={ref} /> : null}
      <h2>Usage this period</h2>
      <QueryView query={usage} what="your usage">
        {(report) => <UsageTable report={report} />}
      </QueryView>
      <h2>Invoices</h2>
      <QueryView query={invoices} what="your invoices">
        {(page) => <PortalInvoices invoices={page.items} />}
      </QueryView>
    </section>
  );
}
