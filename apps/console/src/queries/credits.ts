/** Credits: models, the weight tariff, the price book, pools with their grants and ledger, the audit. */
import { useQuery } from '@tanstack/react-query';
import type { operations } from '@tally/client';
import { api, unwrap, type Schemas } from '../api';
import { orNullOn404, useApiMutation, unwrapEmpty } from './mutation';

export const creditKeys = {
  models: ['credits', 'models'] as const,
  weights: ['credits', 'weights'] as const,
  prices: ['credits', 'prices'] as const,
  ofCustomer: (customerId: string) => ['credit-pools', 'customer', customerId] as const,
  grants: (poolId: string) => ['credit-pools', poolId, 'grants'] as const,
  ledger: (poolId: string) => ['credit-pools', poolId, 'ledger'] as const,
  /** Every pool read (the account's, a customer's, a pool's grants, ledger and links): what a grant, deduction or reversal changes. */
  pools: ['credit-pools'] as const,
  allPools: ['credit-pools', 'all'] as const,
  links: (poolId: string) => ['credit-pools', poolId, 'links'] as const,
  allocations: (planId: string) => ['credits', 'allocations', planId] as const,
};

type Warning = Schemas['CreditTariffWarning'];
type GrantBody = operations['createCreditGrant']['requestBody']['content']['application/json'];
type NewModel = { name: string; denomination: string; hardLimit: boolean };
type NewPool = { name: string; denomination: string; customerId?: string; hardLimit: boolean };
/** Credits and amounts as typed: decimal text sent untouched (the API reads decimal strings exactly). */
export type NewAllocation = { modelId: string; planId: string; creditAmount: string; grantExpiresMonths?: number };
export type NewLink = { subscriptionId: string; drawPriority: number; drawLimit?: string };
export type GrantType = GrantBody['grantType'];
/** The grant types an operator may choose, as the API's grant request lists them. */
export const GRANT_TYPES = ['MANUAL', 'PROMOTIONAL', 'PURCHASED', 'REFUND', 'PLAN_INCLUDED', 'SYSTEM', 'ROLLOVER'] as const satisfies readonly GrantType[];
export type NewGrant = { creditPoolId: string; amount: string; grantType: GrantType; expiresAt?: string; description?: string; idempotencyKey: string };
export type NewDeduction = { creditPoolId: string; amount: string; description?: string; idempotencyKey: string };
/** One row to publish, its decimals as typed (decimal text goes to the API untouched, never through a float). */
export type WeightRow = { featureId: string; creditsPerUnit: string; model?: string };
export type PriceRow = { denomination: string | null; currency: string; pricePerCredit: string };

export function useCreditModels() {
  return useQuery({ queryKey: creditKeys.models, queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/models')) });
}

export function useCreateCreditModel(onCreated: () => void) {
  return useApiMutation((body: NewModel) => unwrap(api.POST('/api/v1/monetization/credits/models', { body })), {
    invalidates: [creditKeys.models],
    onSuccessOnly: true,
    onSuccess: onCreated,
  });
}

export function useCreditWeights() {
  return useQuery({ queryKey: creditKeys.weights, queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/weights')) });
}

/** Publishes a weight row from `effectiveFrom`; resolves to the API's warnings (a tariff that looks wrong). */
export function usePublishWeight(onPublished: (warnings: Warning[] | undefined) => void) {
  return useApiMutation(
    async ({ effectiveFrom, row }: { effectiveFrom: string; row: WeightRow }) => {
      const entry = { ...row, creditsPerUnit: row.creditsPerUnit as unknown as number };
      const answer = await api.POST('/api/v1/monetization/credits/weights/publish', { body: { effectiveFrom, entries: [entry] } });
      await unwrap(Promise.resolve(answer));
      return answer.data?.warnings;
    },
    { invalidates: [creditKeys.weights], onSuccessOnly: true, onSuccess: onPublished },
  );
}

/** Deletes a weight row before it takes effect. */
export function useDeleteWeight() {
  return useApiMutation((id: string) => unwrapEmpty(api.DELETE('/api/v1/monetization/credits/weights/{id}', { params: { path: { id } } })), {
    invalidates: [creditKeys.weights],
  });
}

export function useCreditPrices() {
  return useQuery({ queryKey: creditKeys.prices, queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/prices')) });
}

/** Publishes a price per credit from `effectiveFrom`; resolves to the API's warnings. */
export function usePublishPrice(onPublished: (warnings: Warning[] | undefined) => void) {
  return useApiMutation(
    async ({ effectiveFrom, row }: { effectiveFrom: string; row: PriceRow }) => {
      const entry = { ...row, pricePerCredit: row.pricePerCredit as unknown as number };
      const answer = await api.POST('/api/v1/monetization/credits/prices/publish', { body: { effectiveFrom, entries: [entry] } });
      await unwrap(Promise.resolve(answer));
      return answer.data?.warnings;
    },
    { invalidates: [creditKeys.prices], onSuccessOnly: true, onSuccess: onPublished },
  );
}

export function useDeletePrice() {
  return useApiMutation((id: string) => unwrapEmpty(api.DELETE('/api/v1/monetization/credits/prices/{id}', { params: { path: { id } } })), {
    invalidates: [creditKeys.prices],
  });
}

/** Recomputes every pool's balance from its ledger and compares it with the stored one (run on demand). */
export function useLedgerAudit() {
  return useApiMutation(() => unwrap(api.GET('/api/v1/monetization/credits/audit')));
}

export function useCustomerPools(customerId: string) {
  return useQuery({
    queryKey: creditKeys.ofCustomer(customerId),
    queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/pools/customer/{customerId}', { params: { path: { customerId } } })),
  });
}

export function usePoolGrants(poolId: string) {
  return useQuery({
    queryKey: creditKeys.grants(poolId),
    queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/pools/{poolId}/grants', { params: { path: { poolId } } })),
  });
}

export function usePoolLedger(poolId: string) {
  return useQuery({
    queryKey: creditKeys.ledger(poolId),
    queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/pools/{poolId}/transactions', { params: { path: { poolId } } })),
  });
}

/** Every pool of the account (customers' and account-level), oldest first. */
export function useAllPools() {
  return useQuery({ queryKey: creditKeys.allPools, queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/pools')) });
}

export function useCreatePool(onCreated: () => void) {
  return useApiMutation((body: NewPool) => unwrap(api.POST('/api/v1/monetization/credits/pools', { body })), {
    invalidates: [creditKeys.pools],
    onSuccessOnly: true,
    onSuccess: onCreated,
  });
}

/** A pool's links to subscriptions (priority, draw limit, drawn so far). */
export function usePoolLinks(poolId: string) {
  return useQuery({
    queryKey: creditKeys.links(poolId),
    queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/pools/{poolId}/subscriptions', { params: { path: { poolId } } })),
  });
}

export function useLinkPool(poolId: string, onLinked: () => void) {
  return useApiMutation(
    ({ subscriptionId, drawPriority, drawLimit }: NewLink) =>
      unwrap(
        api.POST('/api/v1/monetization/credits/pools/{poolId}/subscriptions/{subscriptionId}', {
          params: { path: { poolId, subscriptionId }, query: { drawPriority, ...(drawLimit ? { drawLimit: drawLimit as unknown as number } : {}) } },
        }),
      ),
    { invalidates: [creditKeys.links(poolId)], onSuccessOnly: true, onSuccess: onLinked },
  );
}

export function useUnlinkPool(poolId: string) {
  return useApiMutation(
    (subscriptionId: string) =>
      unwrapEmpty(api.DELETE('/api/v1/monetization/credits/pools/{poolId}/subscriptions/{subscriptionId}', { params: { path: { poolId, subscriptionId } } })),
    { invalidates: [creditKeys.links(poolId)] },
  );
}

/** Grants credits to a pool (the body's idempotencyKey makes a repeated submit one grant). */
export function useGrantCredits(onDone: () => void) {
  return useApiMutation((body: NewGrant) => unwrap(api.POST('/api/v1/monetization/credits/grants', { body: body as unknown as GrantBody })), {
    invalidates: [creditKeys.pools],
    onSuccessOnly: true,
    onSuccess: onDone,
  });
}

/** Deducts credits FIFO from a pool's grants. */
export function useDeductCredits(onDone: () => void) {
  return useApiMutation((body: NewDeduction) => unwrap(api.POST('/api/v1/monetization/credits/deductions', { body: { ...body, amount: body.amount as unknown as number } })), {
    invalidates: [creditKeys.pools],
    onSuccessOnly: true,
    onSuccess: onDone,
  });
}

/** Reverses a ledger row once (a REVERSAL entry for the negated amount). */
export function useReverseTransaction() {
  return useApiMutation(
    (transactionId: string) => unwrap(api.POST('/api/v1/monetization/credits/transactions/{transactionId}/reverse', { params: { path: { transactionId } } })),
    { invalidates: [creditKeys.pools] },
  );
}

/** The credits a plan includes per period, by model. */
export function usePlanAllocations(planId: string) {
  return useQuery({
    queryKey: creditKeys.allocations(planId),
    enabled: planId !== '',
    queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/plans/{planId}/allocations', { params: { path: { planId } } })),
  });
}

export function useAllocateCredits(onDone: () => void) {
  return useApiMutation(
    ({ modelId, planId, creditAmount, grantExpiresMonths }: NewAllocation) =>
      unwrap(
        api.POST('/api/v1/monetization/credits/models/{modelId}/plans/{planId}', {
          params: { path: { modelId, planId }, query: { creditAmount: creditAmount as unknown as number, ...(grantExpiresMonths ? { grantExpiresMonths } : {}) } },
        }),
      ),
    { invalidates: (_r, input) => [creditKeys.allocations(input.planId)], onSuccessOnly: true, onSuccess: onDone },
  );
}

export function useRemoveAllocation(planId: string) {
  return useApiMutation(
    (modelId: string) => unwrapEmpty(api.DELETE('/api/v1/monetization/credits/models/{modelId}/plans/{planId}', { params: { path: { modelId, planId } } })),
    { invalidates: [creditKeys.allocations(planId)] },
  );
}

/** Auto top-up keys: a pool's rule and attempts (the Client API, as the console session may call it). */
export const autoTopupKeys = {
  rule: (poolId: string) => ['credit-pools', poolId, 'auto-topup'] as const,
  attempts: (poolId: string) => ['credit-pools', poolId, 'auto-topup', 'attempts'] as const,
};

export type AutoTopupRule = Schemas['AutoTopupRule'];
export type AutoTopupAttempt = Schemas['AutoTopupAttempt'];
/** The rule as typed: decimal text sent untouched; an empty monthly cap is none. */
export type AutoTopupDraft = { enabled: boolean; threshold: string; topupCredits: string; maxMonthlyAmount: string };

const autoTopupPath = (ref: string, poolId: string) => ({ params: { path: { ref, poolId } } });

/** A pool's auto top-up rule; null when it has none (the API's 404). */
export function useAutoTopupRule(ref: string, poolId: string) {
  return useQuery({
    queryKey: autoTopupKeys.rule(poolId),
    queryFn: () => orNullOn404(unwrap(api.GET('/api/v1/client/credits/{ref}/pools/{poolId}/auto-topup', autoTopupPath(ref, poolId)))),
  });
}

export function useAutoTopupAttempts(ref: string, poolId: string) {
  return useQuery({
    queryKey: autoTopupKeys.attempts(poolId),
    queryFn: () => unwrap(api.GET('/api/v1/client/credits/{ref}/pools/{poolId}/auto-topup/attempts', { params: { path: { ref, poolId }, query: { limit: 50 } } })),
  });
}

/** Creates or replaces the rule (the whole rule every time). */
export function useSaveAutoTopup(ref: string, poolId: string, onSaved: () => void) {
  return useApiMutation(
    (draft: AutoTopupDraft) =>
      unwrap(
        api.PUT('/api/v1/client/credits/{ref}/pools/{poolId}/auto-topup', {
          ...autoTopupPath(ref, poolId),
          body: {
            enabled: draft.enabled,
            threshold: draft.threshold as unknown as number,
            topupCredits: draft.topupCredits as unknown as number,
            maxMonthlyAmount: draft.maxMonthlyAmount.trim() ? (draft.maxMonthlyAmount.trim() as unknown as number) : null,
          },
        }),
      ),
    { invalidates: [autoTopupKeys.rule(poolId)], onSuccessOnly: true, onSuccess: onSaved },
  );
}

export function useDeleteAutoTopup(ref: string, poolId: string) {
  return useApiMutation(() => unwrapEmpty(api.DELETE('/api/v1/client/credits/{ref}/pools/{poolId}/auto-topup', autoTopupPath(ref, poolId))), {
    invalidates: [autoTopupKeys.rule(poolId)],
  });
}
