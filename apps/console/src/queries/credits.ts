/** Credits: models, the weight tariff, the price book, pools with their grants and ledger, the audit. */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { useApiMutation, unwrapEmpty } from './mutation';

export const creditKeys = {
  models: ['credits', 'models'] as const,
  weights: ['credits', 'weights'] as const,
  prices: ['credits', 'prices'] as const,
  ofCustomer: (customerId: string) => ['credit-pools', 'customer', customerId] as const,
  grants: (poolId: string) => ['credit-pools', poolId, 'grants'] as const,
  ledger: (poolId: string) => ['credit-pools', poolId, 'ledger'] as const,
};

type Warning = Schemas['CreditTariffWarning'];
type NewModel = { name: string; denomination: string; hardLimit: boolean };
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
