/**
 * Receiving Tally's outbound events (api-contract-events.md §E3): `verifyWebhook` checks a
 * delivery's Standard Webhooks signature with the official `standardwebhooks` package and returns
 * the payload typed by its `type`, read with the client's exact JSON (amounts stay decimal strings,
 * ADR 0024).
 *
 * The event types are the OpenAPI document's (`listWebhookEvents`' `type` enum) and the objects its
 * components, so both follow the service. The table from type to `data` is §E5's, written once here:
 * the document types `data` loosely, and `Catalogue<…>` makes a type added to the service a compile
 * error until it is mapped.
 */
import { Webhook } from 'standardwebhooks';
import { parseJson } from './json.js';
import type { DecimalString, OperationQuery, Schema } from './types.js';

export { WebhookVerificationError } from 'standardwebhooks';

/** Every event type of the catalogue (§E5.1), from the OpenAPI document. */
export type WebhookEventType = NonNullable<OperationQuery<'listWebhookEvents'>['type']>;

/** The Payment object of `payment.*` (§E5.5; ours, no read route returns it). */
export type WebhookPayment = {
  id: string;
  status: 'SUCCEEDED' | 'FAILED';
  purpose: 'SUBSCRIPTION' | 'CREDIT_TOPUP' | 'INVOICE';
  customerReferenceId: string;
  amount: DecimalString;
  currency: string;
  processorPaymentId: string | null;
  invoiceId: string | null;
  checkoutSessionId: string | null;
  grantId: string | null;
  subscriptionId: string | null;
  declineReason: string | null;
  createdAt: string;
};

/** The Usage threshold object of `usage.threshold_reached` (§E5.8). */
export type WebhookUsageThreshold = {
  subscriptionId: string;
  customerReferenceId: string;
  featureKey: string;
  percent: number;
  used: DecimalString;
  limit: DecimalString;
  remaining: DecimalString;
  periodStart: string;
  periodEnd: string | null;
  eventId: string;
};

/** The checkout session of `checkout.completed` (§E5.5): the Client API's view with the customer's reference. */
export type WebhookCheckoutSession = {
  id: string;
  purpose: string;
  status: string;
  checkoutUrl?: string;
  subscriptionId?: string;
  credits?: DecimalString;
  createdAt: string;
  completedAt?: string;
  customerReferenceId: string;
};

type Pool = Schema<'CreditPool'>;

/** The table must map exactly the catalogue's types: a missing one fails the constraint, an unknown one makes it `never`. */
type Catalogue<T extends Record<WebhookEventType, unknown>> = Exclude<keyof T, WebhookEventType> extends never ? T : never;

/** `data` of each event type (§E5.2–§E5.11). */
export type WebhookEventData = Catalogue<{
  'customer.created': { object: Schema<'AdminCustomer'> };
  'customer.updated': { object: Schema<'AdminCustomer'>; previousAttributes: Record<string, unknown> };
  'customer.claimed': { object: Schema<'AdminCustomer'> };
  'subscription.created': { object: Schema<'Subscription'> };
  'subscription.activated': { object: Schema<'Subscription'> };
  'subscription.plan_changed': { object: Schema<'Subscription'>; previousPlan: Schema<'Plan'>; changeType: 'UPGRADE' | 'DOWNGRADE' };
  'subscription.canceled': { object: Schema<'Subscription'> };
  'subscription.past_due': { object: Schema<'Subscription'>; invoice: Schema<'Invoice'> };
  'invoice.created': { object: Schema<'Invoice'> };
  'invoice.finalized': { object: Schema<'Invoice'> };
  'invoice.paid': { object: Schema<'Invoice'> };
  'invoice.past_due': { object: Schema<'Invoice'> };
  'invoice.voided': { object: Schema<'Invoice'> };
  'payment.succeeded': { object: WebhookPayment };
  'payment.failed': { object: WebhookPayment };
  'checkout.completed': { object: WebhookCheckoutSession };
  'credits.granted': { object: Schema<'CreditGrant'>; pool: Pool };
  'credits.balance_low': { object: Pool; lowBalanceThreshold: DecimalString; availableBalance: DecimalString };
  'credits.depleted': { object: Pool; reason: 'BALANCE_ZERO' | 'EVENT_REFUSED'; requestedCredits: DecimalString | null };
  'credits.expired': { object: Schema<'CreditTransaction'>; grantId: string | null; pool: Pool; reason: 'EXPIRED' | 'ROLLOVER' | 'CLAWBACK' };
  'credits.auto_topup_succeeded': { object: Schema<'AutoTopupAttempt'> };
  'credits.auto_topup_failed': { object: Schema<'AutoTopupAttempt'> };
  'credits.auto_topup_disabled': { object: Schema<'AutoTopupRule'> };
  'reservation.expired': { object: Schema<'CreditReservation'> };
  'usage.threshold_reached': { object: WebhookUsageThreshold };
  'budget.exceeded': { object: Schema<'KeyBudget'>; customerReferenceId: string | null; axis: 'CREDITS' | 'AMOUNT'; requested: DecimalString };
  'spend.alert': { object: Schema<'SpendAlert'> };
  'spend.digest': { object: Omit<Schema<'SpendDigest'>, 'delivery'> };
  'webhook.test': { object: { endpointId: string; message: string } };
  'webhook_endpoint.disabled': { object: Omit<Schema<'WebhookEndpoint'>, 'secret'> };
}>;

/** A delivery's body (§E3.2), narrowed by `type`: `if (event.type === 'invoice.paid') event.data.object.amount`. */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = {
  [K in T]: { id: string; type: K; createdAt: string; accountId: string; data: WebhookEventData[K] };
}[T];

/** Request headers as Node (`req.headers`), the Fetch API (`Headers`) or a plain record give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a delivery and returns its event. `payload` is the **raw** body (the exact bytes
 * received, never re-serialised JSON); `secret` the endpoint's `whsec_…`. Throws
 * `WebhookVerificationError` when a header is missing, the timestamp is more than 5 minutes from
 * this clock, or no `v1` signature matches (during a rotation either secret's does).
 * Use `event.id` (the `webhook-id`) as the idempotency key: a delivery can arrive more than once.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  const text = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  new Webhook(secret).verify(text, headerRecord(headers));
  return parseJson(text) as WebhookEvent;
}

function headerRecord(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof Headers !== 'undefined' && headers instanceof Headers) {
    headers.forEach((value, name) => (out[name.toLowerCase()] = value));
    return out;
  }
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
