/**
 * Outbound events (api-contract-events.md §E2–§E4): the account's webhook endpoints, the event log
 * and the deliveries log. A new or rotated endpoint's secret is handed to `onSecret` (shown once).
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { OperationBody, OperationData, OperationQuery } from '@tally/client';
import { api, unwrap, type Schemas } from '../api';
import { unwrapEmpty, useApiMutation } from './mutation';

export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookEvent = Schemas['WebhookEvent'];
export type DeliveryWithAttempts = OperationData<'getWebhookDelivery'>;
export type EventLogQuery = OperationQuery<'listWebhookEvents'>;
export type DeliveryQuery = OperationQuery<'listWebhookDeliveries'>;
export type DeliveryStatus = WebhookDelivery['status'];
type EndpointBody = OperationBody<'updateWebhookEndpoint'>;
export type WebhookEventType = NonNullable<EventLogQuery['type']>;

/**
 * The event catalogue (§E5.1), as the OpenAPI enum of the event log's `type` filter types it: the
 * record makes a type missing here, or one the API does not know, a type error.
 */
const CATALOGUE: Record<WebhookEventType, true> = {
  'customer.created': true,
  'customer.updated': true,
  'customer.claimed': true,
  'subscription.created': true,
  'subscription.activated': true,
  'subscription.plan_changed': true,
  'subscription.canceled': true,
  'subscription.past_due': true,
  'invoice.created': true,
  'invoice.finalized': true,
  'invoice.paid': true,
  'invoice.past_due': true,
  'invoice.voided': true,
  'payment.succeeded': true,
  'payment.failed': true,
  'checkout.completed': true,
  'credits.granted': true,
  'credits.balance_low': true,
  'credits.depleted': true,
  'credits.expired': true,
  'credits.auto_topup_succeeded': true,
  'credits.auto_topup_failed': true,
  'credits.auto_topup_disabled': true,
  'reservation.expired': true,
  'usage.threshold_reached': true,
  'budget.exceeded': true,
  'spend.alert': true,
  'spend.digest': true,
  'webhook.test': true,
  'webhook_endpoint.disabled': true,
};
export const WEBHOOK_EVENT_TYPES = Object.keys(CATALOGUE) as WebhookEventType[];
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['PENDING', 'SUCCEEDED', 'FAILED'];

export const webhookKeys = {
  endpoints: ['webhook-endpoints'] as const,
  deliveries: ['webhook-deliveries'] as const,
  deliveryList: (query: DeliveryQuery) => ['webhook-deliveries', 'list', query] as const,
  delivery: (id: string) => ['webhook-deliveries', 'one', id] as const,
  events: (query: EventLogQuery) => ['webhook-events', query] as const,
  event: (id: string) => ['webhook-event', id] as const,
};

const byEndpoint = (endpointId: string) => ({ params: { path: { endpointId } } });

export function useWebhookEndpoints() {
  return useQuery({ queryKey: webhookKeys.endpoints, queryFn: () => unwrap(api.GET('/api/v1/webhooks/endpoints')) });
}

/** Adds an endpoint; its secret (in the answer only this once) goes to `onSecret`. */
export function useCreateWebhookEndpoint(onSecret: (endpoint: WebhookEndpoint) => void) {
  return useApiMutation((body: EndpointBody) => unwrap(api.POST('/api/v1/webhooks/endpoints', { body })), {
    invalidates: [webhookKeys.endpoints],
    onSuccessOnly: true,
    onSuccess: onSecret,
  });
}

/** Changes the fields sent (PATCH); `enabled: false` ends the endpoint's pending deliveries. */
export function useUpdateWebhookEndpoint() {
  return useApiMutation(({ endpointId, ...body }: EndpointBody & { endpointId: string }) => unwrap(api.PATCH('/api/v1/webhooks/endpoints/{endpointId}', { ...byEndpoint(endpointId), body })), {
    invalidates: [webhookKeys.endpoints, webhookKeys.deliveries],
  });
}

export function useDeleteWebhookEndpoint() {
  return useApiMutation((endpointId: string) => unwrapEmpty(api.DELETE('/api/v1/webhooks/endpoints/{endpointId}', byEndpoint(endpointId))), {
    invalidates: [webhookKeys.endpoints, webhookKeys.deliveries],
  });
}

/** A new secret (shown once through `onSecret`); the previous one keeps signing for 24 hours. */
export function useRotateWebhookSecret(onSecret: (endpoint: WebhookEndpoint) => void) {
  return useApiMutation((endpointId: string) => unwrap(api.POST('/api/v1/webhooks/endpoints/{endpointId}/rotate-secret', byEndpoint(endpointId))), {
    invalidates: [webhookKeys.endpoints],
    onSuccess: onSecret,
  });
}

/** Sends a `webhook.test` event to one endpoint; answers its PENDING delivery. */
export function useSendTestEvent() {
  return useApiMutation((endpointId: string) => unwrap(api.POST('/api/v1/webhooks/endpoints/{endpointId}/test', byEndpoint(endpointId))), {
    invalidates: [webhookKeys.deliveries, ['webhook-events']],
  });
}

/** Sends an event to an endpoint again: a new delivery, the same bytes. */
export function useResendEvent() {
  return useApiMutation(
    ({ endpointId, eventId }: { endpointId: string; eventId: string }) =>
      unwrap(api.POST('/api/v1/webhooks/endpoints/{endpointId}/events/{eventId}/resend', { params: { path: { endpointId, eventId } } })),
    { invalidates: [webhookKeys.deliveries] },
  );
}

/** A page of the event log, newest first; the previous page stays on screen while the next loads. */
export function useWebhookEvents(query: EventLogQuery) {
  return useQuery({ queryKey: webhookKeys.events(query), queryFn: () => unwrap(api.GET('/api/v1/webhooks/events', { params: { query } })), placeholderData: keepPreviousData });
}

export function useWebhookEvent(eventId: string) {
  return useQuery({ queryKey: webhookKeys.event(eventId), queryFn: () => unwrap(api.GET('/api/v1/webhooks/events/{eventId}', { params: { path: { eventId } } })) });
}

/** While a delivery shown is PENDING, the relay is at work: read again every few seconds. */
const PENDING_POLL_MS = 3000;

/** A page of the deliveries log, newest first (read again while a delivery on it is PENDING). */
export function useWebhookDeliveries(query: DeliveryQuery) {
  return useQuery({
    queryKey: webhookKeys.deliveryList(query),
    queryFn: () => unwrap(api.GET('/api/v1/webhooks/deliveries', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === 'PENDING') ? PENDING_POLL_MS : false),
  });
}

/** One delivery with its attempts, oldest first (read again while PENDING). */
export function useWebhookDelivery(deliveryId: string) {
  return useQuery({
    queryKey: webhookKeys.delivery(deliveryId),
    queryFn: () => unwrap(api.GET('/api/v1/webhooks/deliveries/{deliveryId}', { params: { path: { deliveryId } } })),
    refetchInterval: (q) => (q.state.data?.status === 'PENDING' ? PENDING_POLL_MS : false),
  });
}
