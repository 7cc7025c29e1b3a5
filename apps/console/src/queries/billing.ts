/** Billing: a customer's invoices (mark paid), subscribing, plan changes (previewed first), cancelling, and the account's billing overview. */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { customerKeys } from './customers';
import { useApiMutation, unwrapEmpty } from './mutation';

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
 * What a change to a customer's billing refreshes: paying or changing a subscription moves its
 * invoices, its entitlements and usage (read by reference), its credit pools and the overview.
 */
const billingReads = (customerId: string) => [billingKeys.invoices(customerId), customerKeys.detail(customerId), ['customer-ref'], ['credit-pools'], billingKeys.overview];

/**
 * Marks an invoice paid (Client API). Paying the first invoice activates the subscription (its
 * entitlements) and may grant credits, so the customer's reads and the overview are refreshed with it.
 */
export function useMarkInvoicePaid(customerId: string) {
  return useApiMutation(
    (invoiceId: string) => unwrap(api.POST('/api/v1/client/billing/invoices/{invoiceId}/mark-paid', { params: { path: { invoiceId } } })),
    { onSuccessOnly: true, invalidates: billingReads(customerId) },
  );
}

/** Subscribes the customer to an ACTIVE plan (a paid in-advance plan raises a DUE invoice). */
export function useSubscribe(customerId: string, customerReferenceId: string) {
  return useApiMutation((planId: string) => unwrap(api.POST('/api/v1/client/subscriptions', { body: { customerReferenceId, planId } })), {
    onSuccessOnly: true,
    invalidates: billingReads(customerId),
  });
}

export type PlanChange = { subscriptionId: string; changeToPlanId: string; changeType: 'UPGRADE' | 'DOWNGRADE' };
const planChangeCall = ({ subscriptionId, ...body }: PlanChange) => ({ params: { path: { subscriptionId } }, body });

/** What a plan change would do now (the API runs the change and rolls it back): nothing is kept. */
export function usePreviewPlanChange() {
  return useApiMutation((change: PlanChange) => unwrap(api.POST('/api/v1/client/subscriptions/{subscriptionId}/plan-change/preview', planChangeCall(change))));
}

/** Upgrades now (prorated adjustment invoice) or schedules a downgrade for the period end. */
export function useChangePlan(customerId: string) {
  return useApiMutation((change: PlanChange) => unwrap(api.POST('/api/v1/client/subscriptions/{subscriptionId}/plan-change', planChangeCall(change))), {
    invalidates: billingReads(customerId),
  });
}

export type CancelMode = 'END_OF_PERIOD' | 'IMMEDIATE';

/** Cancels at period end, or now (open invoices voided, an in-advance plan refunded by a CREDIT invoice). */
export function useCancelSubscription(customerId: string) {
  return useApiMutation(
    ({ subscriptionId, cancelMode }: { subscriptionId: string; cancelMode: CancelMode }) =>
      unwrapEmpty(api.POST('/api/v1/client/subscriptions/cancellation/{subscriptionId}', { params: { path: { subscriptionId }, query: { cancelMode } } })),
    { invalidates: billingReads(customerId) },
  );
}

/** Undoes what is scheduled for the period end: the cancellation, or the plan change. */
export function useUndoScheduled(customerId: string) {
  return useApiMutation(
    ({ subscriptionId, what }: { subscriptionId: string; what: 'cancellation' | 'planChange' }) =>
      unwrapEmpty(
        what === 'cancellation'
          ? api.DELETE('/api/v1/client/subscriptions/cancellation/{subscriptionId}/scheduled', { params: { path: { subscriptionId } } })
          : api.DELETE('/api/v1/client/subscriptions/{subscriptionId}/plan-change/scheduled', { params: { path: { subscriptionId } } }),
      ),
    { invalidates: billingReads(customerId) },
  );
}

export function useBillingOverview() {
  return useQuery({ queryKey: billingKeys.overview, queryFn: () => unwrap(api.GET('/api/v1/monetization/billing/overview')) });
}
