/**
 * The customer portal's reads and actions (ADR 0025), through the portal client (the link's token,
 * never an admin JWT). Keys sit under ['portal'], apart from the operator's.
 */
import { useQuery } from '@tanstack/react-query';
import { ApiError, unwrap, type Schemas } from '../api';
import { portalApi } from '../portal-api';
import { useApiMutation } from './mutation';

type Transaction = Schemas['CreditTransaction'];
export type Purchase = { completed: boolean; credits: number | string; amountCharged: number | string; currency: string; checkoutUrl?: string; declineReason?: string };

export const portalKeys = {
  session: ['portal', 'session'] as const,
  customer: ['portal', 'customer'] as const,
  usage: ['portal', 'usage'] as const,
  pools: ['portal', 'pools'] as const,
  invoices: ['portal', 'invoices'] as const,
  ledger: (poolId: string) => ['portal', 'ledger', poolId] as const,
};

/** The link's session (its customer, expiry, top-up offers); read only when the link carries a token. */
export function usePortalSession(hasToken: boolean) {
  return useQuery({ queryKey: portalKeys.session, enabled: hasToken, queryFn: () => unwrap(portalApi.GET('/api/v1/client/portal/session')) });
}

/** Whether the portal's session read says the link expired or was revoked. */
export const linkEnded = (error: unknown) => error instanceof ApiError && error.status === 401;

export function usePortalCustomer(ref: string) {
  return useQuery({ queryKey: portalKeys.customer, queryFn: () => unwrap(portalApi.GET('/api/v1/client/customers/{ref}', { params: { path: { ref } } })) });
}

export function usePortalUsage(ref: string) {
  return useQuery({ queryKey: portalKeys.usage, queryFn: () => unwrap(portalApi.GET('/api/v1/client/customers/{ref}/usage', { params: { path: { ref } } })) });
}

export function usePortalPools(ref: string) {
  return useQuery({
    queryKey: portalKeys.pools,
    queryFn: () => unwrap(portalApi.GET('/api/v1/client/credits/{ref}/pools', { params: { path: { ref }, query: { limit: 200 } } })),
  });
}

export function usePortalInvoices(ref: string) {
  return useQuery({
    queryKey: portalKeys.invoices,
    queryFn: () => unwrap(portalApi.GET('/api/v1/client/billing/invoices/{ref}', { params: { path: { ref }, query: { limit: 200 } } })),
  });
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

export function usePortalLedger(ref: string, poolId: string) {
  return useQuery({ queryKey: portalKeys.ledger(poolId), queryFn: () => wholeLedger(ref, poolId) });
}

/**
 * A credit top-up: charged off-session to the saved card (201), or a hosted checkout to complete
 * (402 with its URL). A completed purchase refreshes the pools, ledgers and usage.
 */
export function usePurchaseCredits(onBought: () => void) {
  return useApiMutation(
    async (input: { creditPoolId: string; credits: string }): Promise<Purchase> => {
      const answer = await portalApi.POST('/api/v1/client/credits/purchases', {
        // The credits as typed: a decimal string goes to the API untouched (never through a float).
        body: { creditPoolId: input.creditPoolId, credits: input.credits as unknown as number },
        headers: { 'Idempotency-Key': crypto.randomUUID() },
      });
      const checkout = (answer.error as { data?: Purchase } | undefined)?.data;
      if (answer.response.status === 402 && checkout?.checkoutUrl) return checkout;
      return unwrap(Promise.resolve(answer));
    },
    {
      onSuccessOnly: true,
      invalidates: (result) => (result?.completed ? [portalKeys.pools, ['portal', 'ledger'], portalKeys.usage] : []),
      onSuccess: (result) => {
        if (result.completed) onBought();
      },
    },
  );
}

/** A hosted payment page for a subscription's open invoice. */
export function usePayInvoice() {
  return useApiMutation((subscriptionId: string) =>
    unwrap(portalApi.POST('/api/v1/client/billing/subscriptions/{subscriptionId}/stripe/checkout', { params: { path: { subscriptionId } } })),
  );
}
