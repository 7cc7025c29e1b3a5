/**
 * The customer portal's reads and actions (ADR 0025), through the portal client (the link's token,
 * never an admin JWT). Keys sit under ['portal'], apart from the operator's.
 */
import { useQuery } from '@tanstack/react-query';
import { ApiError, unwrap, type Schemas } from '../api';
import { portalApi } from '../portal-api';
import { orNullOn404, unwrapEmpty, useApiMutation } from './mutation';

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

/** The catalog a link with plan_change may choose from (ACTIVE plans). */
export function usePortalPlans(enabled: boolean) {
  return useQuery({ queryKey: ['portal', 'plans'], enabled, queryFn: () => unwrap(portalApi.GET('/api/v1/client/plans', { params: { query: { limit: 200 } } })) });
}

export type PlanChangeInput = { subscriptionId: string; changeToPlanId: string; changeType: 'UPGRADE' | 'DOWNGRADE' };

const planChangeBody = (input: PlanChangeInput) => ({ changeToPlanId: input.changeToPlanId, changeType: input.changeType });

/** What a plan change would answer now (the proration the API computes), keeping nothing. */
export function usePlanChangePreview() {
  return useApiMutation((input: PlanChangeInput) =>
    unwrap(portalApi.POST('/api/v1/client/subscriptions/{subscriptionId}/plan-change/preview', { params: { path: { subscriptionId: input.subscriptionId } }, body: planChangeBody(input) })),
  );
}

/**
 * The hosted page a 402 hands over (its `data.checkoutUrl`), or null when the call succeeded; any
 * other error throws as `unwrap` does.
 */
async function hostedPageOf(answer: { data?: { data?: unknown } | undefined; error?: unknown; response: Response }): Promise<{ checkoutUrl: string | null }> {
  const checkout = (answer.error as { data?: { checkoutUrl?: string } } | undefined)?.data;
  if (answer.response.status === 402 && checkout?.checkoutUrl) return { checkoutUrl: checkout.checkoutUrl };
  await unwrap(Promise.resolve(answer));
  return { checkoutUrl: null };
}

/**
 * A plan change. A paid upgrade with no saved card answers 402 with the hosted invoice to pay
 * (api-contract-agent-v2.md §4.8): the plan moves once it is paid, so the browser goes there.
 */
export function usePlanChange(onDone: () => void) {
  return useApiMutation(
    async (input: PlanChangeInput): Promise<{ checkoutUrl: string | null }> =>
      hostedPageOf(
        await portalApi.POST('/api/v1/client/subscriptions/{subscriptionId}/plan-change', {
          params: { path: { subscriptionId: input.subscriptionId } },
          body: planChangeBody(input),
        }),
      ),
    {
      invalidates: [portalKeys.customer, portalKeys.invoices],
      onSuccess: (result) => {
        if (result.checkoutUrl) window.location.assign(result.checkoutUrl);
        else onDone();
      },
    },
  );
}

export function useUndoPlanChange() {
  return useApiMutation(
    (subscriptionId: string) => unwrapEmpty(portalApi.DELETE('/api/v1/client/subscriptions/{subscriptionId}/plan-change/scheduled', { params: { path: { subscriptionId } } })),
    { invalidates: [portalKeys.customer] },
  );
}

/** Subscribes the link's customer (its own customer: no reference sent). A 402 carries the hosted page to pay at. */
export function usePortalSubscribe() {
  return useApiMutation(
    async (planId: string): Promise<{ checkoutUrl: string | null }> =>
      hostedPageOf(await portalApi.POST('/api/v1/client/subscriptions', { body: { planId }, headers: { 'Idempotency-Key': crypto.randomUUID() } })),
    {
      invalidates: [portalKeys.customer, portalKeys.invoices],
      // A first invoice to pay: the browser goes to the processor's page.
      onSuccess: (result) => {
        if (result.checkoutUrl) window.location.assign(result.checkoutUrl);
      },
    },
  );
}

/** Cancel at the end of the period (the only cancel a portal link may make), and its undo. */
export function usePortalCancel() {
  return useApiMutation(
    (input: { subscriptionId: string; undo: boolean }) =>
      unwrapEmpty(
        input.undo
          ? portalApi.DELETE('/api/v1/client/subscriptions/cancellation/{subscriptionId}/scheduled', { params: { path: { subscriptionId: input.subscriptionId } } })
          : portalApi.POST('/api/v1/client/subscriptions/cancellation/{subscriptionId}', { params: { path: { subscriptionId: input.subscriptionId }, query: { cancelMode: 'END_OF_PERIOD' } } }),
      ),
    { invalidates: [portalKeys.customer] },
  );
}

/** The saved card, or null when none is saved. */
export function useDefaultCard(ref: string, enabled: boolean) {
  return useQuery({
    queryKey: ['portal', 'card'],
    enabled,
    queryFn: () => orNullOn404(unwrap(portalApi.GET('/api/v1/client/customers/{ref}/payment-methods/default', { params: { path: { ref } } }))),
  });
}

/** Opens the processor's hosted page to add or replace the card; the browser goes there. */
export function useSetupCheckout(ref: string) {
  return useApiMutation(
    () => unwrap(portalApi.POST('/api/v1/client/customers/{ref}/payment-methods/setup-checkout', { params: { path: { ref } } })),
    { onSuccess: (result) => window.location.assign(result.checkoutUrl) },
  );
}

/** A pool's auto top-up rule, or null when it has none. */
export function useAutoTopupRule(ref: string, poolId: string) {
  return useQuery({
    queryKey: ['portal', 'auto-topup', poolId],
    queryFn: () => orNullOn404(unwrap(portalApi.GET('/api/v1/client/credits/{ref}/pools/{poolId}/auto-topup', { params: { path: { ref, poolId } } }))),
  });
}

export type AutoTopupInput = { enabled: boolean; threshold: string; topupCredits: string; maxMonthlyAmount: string | null };

export function useSaveAutoTopup(ref: string, poolId: string) {
  return useApiMutation(
    (input: AutoTopupInput | null) =>
      input
        ? unwrap(
            portalApi.PUT('/api/v1/client/credits/{ref}/pools/{poolId}/auto-topup', {
              params: { path: { ref, poolId } },
              // Decimals as typed: strings go to the API untouched (never through a float).
              body: { enabled: input.enabled, threshold: input.threshold as unknown as number, topupCredits: input.topupCredits as unknown as number, maxMonthlyAmount: input.maxMonthlyAmount as unknown as number | null },
              headers: { 'Idempotency-Key': crypto.randomUUID() },
            }),
          )
        : unwrapEmpty(portalApi.DELETE('/api/v1/client/credits/{ref}/pools/{poolId}/auto-topup', { params: { path: { ref, poolId } }, headers: { 'Idempotency-Key': crypto.randomUUID() } })),
    { invalidates: [['portal', 'auto-topup', poolId]] },
  );
}
