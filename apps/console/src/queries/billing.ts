/** Billing: a customer's invoices, marking one paid, and the account's billing overview. */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { customerKeys } from './customers';
import { useApiMutation } from './mutation';

export const billingKeys = {
  invoices: (customerId: string) => ['invoices', customerId] as const,
  overview: ['billing-overview'] as const,
};

export function useInvoices(customerId: string) {
  return useQuery({
    queryKey: billingKeys.invoices(customerId),
    queryFn: () => unwrap(api.GET('/api/v1/monetization/billing/invoices', { params: { query: { customerId } } })),
  });
}

/**
 * Marks an invoice paid. Paying the first invoice activates the subscription (its entitlements)
 * and may grant credits, so the customer's reads and the overview are refreshed with it.
 */
export function useMarkInvoicePaid(customerId: string) {
  return useApiMutation(
    (invoiceId: string) => unwrap(api.PATCH('/api/v1/monetization/billing/invoices/{invoiceId}', { params: { path: { invoiceId } } })),
    {
      onSuccessOnly: true,
      invalidates: [billingKeys.invoices(customerId), customerKeys.detail(customerId), ['customer-ref'], ['credit-pools'], billingKeys.overview],
    },
  );
}

export function useBillingOverview() {
  return useQuery({ queryKey: billingKeys.overview, queryFn: () => unwrap(api.GET('/api/v1/monetization/billing/overview')) });
}
