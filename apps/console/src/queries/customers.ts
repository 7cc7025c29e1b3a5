/** Customers: the list, one customer (create, edit), its usage this period, its scoped keys, its entitlements and its portal links. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { paths } from '@tally/client';
import { api, unwrap } from '../api';
import { useApiMutation, unwrapEmpty } from './mutation';

/** Keys by customer id (Admin API) and by reference (the customer routes of the Client API). */
export const customerKeys = {
  all: ['customers'] as const,
  detail: (customerId: string) => ['customers', customerId] as const,
  usage: (customerId: string) => ['customers', customerId, 'usage'] as const,
  byRef: (ref: string) => ['customer-ref', ref] as const,
  keys: (customerId: string) => ['customers', customerId, 'keys'] as const,
  entitlements: (ref: string) => ['customer-ref', ref, 'entitlements'] as const,
  usageEvents: (ref: string, offset: number) => ['customer-ref', ref, 'usage-events', offset] as const,
  portalLinks: (ref: string) => ['customer-ref', ref, 'portal-links'] as const,
};

export function useCustomers() {
  return useQuery({ queryKey: customerKeys.all, queryFn: () => unwrap(api.GET('/api/v1/monetization/customers')) });
}

export function useCustomer(customerId: string) {
  return useQuery({
    queryKey: customerKeys.detail(customerId),
    queryFn: () => unwrap(api.GET('/api/v1/monetization/customers/{id}', { params: { path: { id: customerId } } })),
  });
}

/** Used against the limit per feature this period, and each pool's projection (read once the reference is known). */
export function useUsageReport(customerId: string, ref: string | undefined) {
  return useQuery({
    queryKey: customerKeys.usage(customerId),
    enabled: ref !== undefined,
    queryFn: () => unwrap(api.GET('/api/v1/tanso/customers/{ref}/usage', { params: { path: { ref: ref! } } })),
  });
}

export function useCustomerEntitlements(ref: string) {
  return useQuery({
    queryKey: customerKeys.entitlements(ref),
    queryFn: () => unwrap(api.GET('/api/v1/tanso/customers/{ref}/entitlements', { params: { path: { ref }, query: { limit: 200 } } })),
  });
}

/** A page of the customer's recorded usage events of the last 90 days, newest first (the Client API's read, agent-v2 §6.1). */
export function useCustomerUsageEvents(ref: string, offset: number, limit: number) {
  return useQuery({
    queryKey: customerKeys.usageEvents(ref, offset),
    queryFn: () => unwrap(api.GET('/api/v1/client/customers/{ref}/usage/events', { params: { path: { ref }, query: { limit, offset } } })),
    placeholderData: keepPreviousData,
  });
}

/** The customer's keys, by its internal id (the Admin API twin of agent v2 §2.1: a bare array, oldest first). */
export function useCustomerApiKeys(customerId: string) {
  return useQuery({
    queryKey: customerKeys.keys(customerId),
    queryFn: () => unwrap(api.GET('/api/v1/tanso/customers/{customerId}/keys', { params: { path: { customerId } } })),
  });
}

export type KeyScope = 'read' | 'purchase';

/** Issues a scoped key; `onIssued` gets the key, shown once. */
export function useCreateCustomerApiKey(customerId: string, onIssued: (apiKey: string) => void) {
  return useApiMutation((scopes: KeyScope[]) => unwrap(api.POST('/api/v1/tanso/customers/{customerId}/keys', { params: { path: { customerId } }, body: { scopes } })), {
    invalidates: [customerKeys.keys(customerId)],
    onSuccessOnly: true,
    onSuccess: (issued) => onIssued(issued.apiKey),
  });
}

/** Replaces a key: the old one stops working at once, the new one is shown once. */
export function useRotateCustomerApiKey(customerId: string, onIssued: (apiKey: string) => void) {
  return useApiMutation(
    (keyId: string) => unwrap(api.POST('/api/v1/tanso/customers/{customerId}/keys/{keyId}/rotate', { params: { path: { customerId, keyId } } })),
    { invalidates: [customerKeys.keys(customerId)], onSuccessOnly: true, onSuccess: (issued) => onIssued(issued.apiKey) },
  );
}

export function useRevokeCustomerApiKey(customerId: string) {
  return useApiMutation((keyId: string) => unwrapEmpty(api.DELETE('/api/v1/tanso/customers/{customerId}/keys/{keyId}', { params: { path: { customerId, keyId } } })), {
    invalidates: [customerKeys.keys(customerId)],
    onSuccessOnly: true,
  });
}

type NewCustomer = { customerReferenceId: string; email: string; firstName?: string | null | undefined; lastName?: string | null | undefined; phoneNumber?: string | null | undefined };
type CustomerChange = NonNullable<paths['/api/v1/client/customers/{ref}']['patch']['requestBody']>['content']['application/json'];
export type NewPortalLink = NonNullable<NonNullable<paths['/api/v1/client/customers/{ref}/portal-sessions']['post']['requestBody']>['content']['application/json']>;

/** Creates a customer (Client API, as an integrator's backend does); `onCreated` gets it. */
export function useCreateCustomer(onCreated: (customer: { customerReferenceId: string }) => void) {
  return useApiMutation((body: NewCustomer) => unwrap(api.POST('/api/v1/client/customers', { body })), {
    invalidates: [customerKeys.all],
    onSuccessOnly: true,
    onSuccess: onCreated,
  });
}

/** Changes the fields sent of a customer (Client API, by reference); the admin reads refresh. */
export function useUpdateCustomer(ref: string, onSaved: () => void) {
  return useApiMutation((body: CustomerChange) => unwrap(api.PATCH('/api/v1/client/customers/{ref}', { params: { path: { ref } }, body })), {
    invalidates: [customerKeys.all, customerKeys.byRef(ref)],
    onSuccessOnly: true,
    onSuccess: onSaved,
  });
}

/** The customer's portal links, newest first (token hints only). */
export function usePortalLinks(ref: string) {
  return useQuery({
    queryKey: customerKeys.portalLinks(ref),
    queryFn: () => unwrap(api.GET('/api/v1/client/customers/{ref}/portal-sessions', { params: { path: { ref }, query: { limit: 200 } } })),
  });
}

/** Opens a portal link; `onIssued` gets its URL, which carries the token and is shown once. */
export function useCreatePortalLink(ref: string, onIssued: (url: string) => void) {
  return useApiMutation((body: NewPortalLink) => unwrap(api.POST('/api/v1/client/customers/{ref}/portal-sessions', { params: { path: { ref } }, body })), {
    invalidates: [customerKeys.portalLinks(ref)],
    onSuccessOnly: true,
    onSuccess: (issued) => onIssued(issued.url),
  });
}

/** Revokes a portal link: its token stops working at once. */
export function useRevokePortalLink(ref: string) {
  return useApiMutation(
    (sessionId: string) => unwrap(api.DELETE('/api/v1/client/customers/{ref}/portal-sessions/{sessionId}', { params: { path: { ref, sessionId } } })),
    { invalidates: [customerKeys.portalLinks(ref)], onSuccessOnly: true },
  );
}
