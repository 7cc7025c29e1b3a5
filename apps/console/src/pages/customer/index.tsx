import { useParams } from 'react-router';
import type { Schemas } from '../../api';
import { planNameOf } from '../../components/billing-tables';
import { NewPoolForm } from '../../components/credit-forms';
import { UsageTable } from '../../components/credit-views';
import { EmptyState, QueryView } from '../../components/ui';
import { useInvoices } from '../../queries/billing';
import { useCustomerPools } from '../../queries/credits';
import { useCustomer, useUsageReport } from '../../queries/customers';
import { CustomerHeader } from './customer-form';
import { CustomerEntitlements } from './entitlements';
import { CustomerInvoices } from './invoices';
import { CustomerKeys } from './keys';
import { Pool } from './pool';
import { PortalLinks } from './portal-links';
import { CustomerSubscriptions } from './subscriptions';
import { CustomerUsageEvents } from './usage-events';

type Invoice = Schemas['Invoice'];

/** A customer: its details (edit), subscriptions (subscribe, change plan, cancel), invoices (mark paid), credit pools with their grants and ledger, portal links, keys. */
export default function CustomerPage() {
  const { customerId } = useParams() as { customerId: string };
  const customer = useCustomer(customerId);
  const invoices = useInvoices(customerId);
  const usage = useUsageReport(customerId, customer.data?.customerReferenceId);
  const pools = useCustomerPools(customerId);
  return (
    <QueryView query={customer} what="the customer">
      {(c) => (
        <section>
          <CustomerHeader customer={c} />
          <h2>Subscriptions</h2>
          <QueryView query={invoices} what="subscriptions">
            {(list) => <CustomerSubscriptions customerId={customerId} customerRef={c.customerReferenceId} subscriptions={subscriptionsOf(list)} />}
          </QueryView>
          <h2>Invoices</h2>
          <QueryView query={invoices} what="invoices">
            {(list) => <CustomerInvoices invoices={list} customerId={customerId} />}
          </QueryView>
          <h2>Entitlements</h2>
          <CustomerEntitlements customerRef={c.customerReferenceId} planOf={(id) => planOfSubscription(invoices.data ?? [], id)} />
          <h2>Usage this period</h2>
          <QueryView query={usage} what="usage">
            {(report) => <UsageTable report={report} />}
          </QueryView>
          <h2>Usage events</h2>
          <CustomerUsageEvents customerRef={c.customerReferenceId} />
          <h2>Credit pools</h2>
          <QueryView query={pools} what="credit pools">
            {(list) =>
              list.length === 0 ? (
                <EmptyState>No credit pool yet: create one with the form below, then link it to a subscription and grant credits.</EmptyState>
              ) : (
                list.map((p) => <Pool key={p.id} pool={p} projection={usage.data?.creditPools.find((x) => x.poolId === p.id)} asOf={usage.data?.asOf} customerRef={c.customerReferenceId} />)
              )
            }
          </QueryView>
          <NewPoolForm customerId={customerId} />
          <h2>Portal links</h2>
          <PortalLinks customerRef={c.customerReferenceId} />
          <h2>Customer keys</h2>
          <CustomerKeys customerId={customerId} />
        </section>
      )}
    </QueryView>
  );
}

/** The customer's subscriptions, as the invoices carry them (the Admin API has no subscription list). */
function subscriptionsOf(invoices: Invoice[]): NonNullable<Invoice['subscription']>[] {
  const subscriptions = new Map<string, NonNullable<Invoice['subscription']>>();
  for (const i of invoices) if (i.subscription && !subscriptions.has(i.subscription.id)) subscriptions.set(i.subscription.id, i.subscription);
  return [...subscriptions.values()];
}

/** The plan of a subscription as its invoices name it. */
function planOfSubscription(invoices: Invoice[], subscriptionId: string): string {
  return planNameOf(invoices.find((i) => i.subscription?.id === subscriptionId)?.subscription?.plan);
}
