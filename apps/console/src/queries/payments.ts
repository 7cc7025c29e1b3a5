/** Payments: the processor connection (its stored key) and the account's hosted checkout sessions. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { OperationQuery } from '@tally/client';
import { api, unwrap } from '../api';
import { orNullOn404, unwrapEmpty, useApiMutation } from './mutation';

export type CheckoutFilters = Pick<OperationQuery<'listCheckoutSessionsAdmin'>, 'customerReferenceId' | 'status'>;

export const paymentKeys = {
  connection: ['stripe-connection'] as const,
  checkouts: (filters: CheckoutFilters, offset: number) => ['checkout-sessions', filters, offset] as const,
};

/** The stored processor connection; null when no key is stored. */
export function useStripeConnection() {
  return useQuery({ queryKey: paymentKeys.connection, queryFn: () => orNullOn404(unwrap(api.GET('/api/v1/data/stripe/api'))) });
}

/** Stores a processor key (replacing the one stored); the API checks its shape. */
export function useStoreStripeKey(onStored: () => void) {
  return useApiMutation((clientStripeApiKey: string) => unwrapEmpty(api.POST('/api/v1/data/stripe/api', { body: { clientStripeApiKey } })), {
    invalidates: [paymentKeys.connection],
    onSuccessOnly: true,
    onSuccess: onStored,
  });
}

/** A page of hosted checkouts, newest first; the previous page stays on screen while the next loads. */
export function useCheckoutSessions(filters: CheckoutFilters, offset: number, limit: number) {
  return useQuery({
    queryKey: paymentKeys.checkouts(filters, offset),
    queryFn: () => unwrap(api.GET('/api/v1/data/stripe/checkout-sessions', { params: { query: { ...filters, limit, offset } } })),
    placeholderData: keepPreviousData,
  });
}
