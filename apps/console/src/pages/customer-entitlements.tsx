import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { Empty, QueryView, StatusBadge } from '../ui';

/**
 * What the customer may use now, per active subscription and feature: the entitlement evaluation
 * the Client API lists (read-only). Limits and credits are in "Usage this period" and the pools.
 */
export function CustomerEntitlements({ customerRef, planOf }: { customerRef: string; planOf: (subscriptionId: string) => string }) {
  const entitlements = useQuery({
    queryKey: ['entitlements', customerRef],
    queryFn: () => unwrap(api.GET('/api/v1/tanso/customers/{ref}/entitlements', { params: { path: { ref: customerRef }, query: { limit: 200 } } })),
  });
  return (
    <QueryView query={entitlements} what="entitlements">
      {(page) => {
        const rows = page.items.flatMap((s) => s.entitlements.map((e) => ({ subscriptionId: s.subscriptionId, ...e })));
        if (rows.length === 0) return <Empty>No active subscription, so no feature may be used.</Empty>;
        return (
          <table aria-label="Entitlements">
            <thead>
              <tr>
                <th scope="col">Plan</th>
                <th scope="col">Feature</th>
                <th scope="col">May use</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.subscriptionId}/${r.featureKey}`}>
                  <td>{planOf(r.subscriptionId)}</td>
                  <td>
                    <code>{r.featureKey}</code>
                  </td>
                  <td>
                    <StatusBadge status={r.allowed ? 'ALLOWED' : 'DENIED'} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        );
      }}
    </QueryView>
  );
}
