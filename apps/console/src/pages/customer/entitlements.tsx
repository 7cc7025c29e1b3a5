import { DataTable, type Column } from '../../components/data-table';
import { StatusBadge } from '../../components/ui';
import { useCustomerEntitlements } from '../../queries/customers';

type Row = { subscriptionId: string; featureKey: string; allowed: boolean };

/**
 * What the customer may use now, per active subscription and feature: the entitlement evaluation
 * the Client API lists (read-only). Limits and credits are in "Usage this period" and the pools.
 */
export function CustomerEntitlements({ customerRef, planOf }: { customerRef: string; planOf: (subscriptionId: string) => string }) {
  const entitlements = useCustomerEntitlements(customerRef);
  const rows = entitlements.data?.items.flatMap((s) => s.entitlements.map((e) => ({ subscriptionId: s.subscriptionId, ...e })));
  const columns: Column<Row>[] = [
    { header: 'Plan', cell: (r) => planOf(r.subscriptionId) },
    { header: 'Feature', cell: (r) => <code>{r.featureKey}</code> },
    { header: 'May use', cell: (r) => <StatusBadge status={r.allowed ? 'ALLOWED' : 'DENIED'} /> },
  ];
  return (
    <DataTable
      label="Entitlements"
      what="entitlements"
      query={entitlements}
      columns={columns}
      rows={rows}
      rowKey={(r) => `${r.subscriptionId}/${r.featureKey}`}
      empty="No active subscription, so no feature may be used."
    />
  );
}
