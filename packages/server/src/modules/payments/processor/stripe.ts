import Stripe from 'stripe';
import type { Config } from '../../../config.js';
import type { Metrics } from '../../../platform/metrics.js';

/**
 * The one adapter to the Stripe SDK: the only file that imports `stripe` (lint `no-restricted-imports`).
 * The rest of payments calls the narrow operations of `Processor` below with our shapes, and reads the
 * few processor objects it needs through the types exported here. Every create that can be repeated
 * takes the idempotency key its caller derives from our committed row; the SDK passes it on every retry.
 *
 * One SDK client per secret key, pointed at APP_STRIPE_API_BASE (tests: the fake on 127.0.0.1). A
 * client holds no account state, only its key and connection settings, so keeping one per key is
 * safe on every node. The SDK retries network errors, 409 and 5xx itself, reusing the request's
 * idempotency key, so a retry never charges twice.
 */

/** Processor objects the module reads (webhook payloads and call answers). */
export type ProcessorEvent = Stripe.Event;
export type ProcessorSubscription = Stripe.Subscription;
export type ProcessorSubscriptionItem = Stripe.SubscriptionItem;
export type ProcessorInvoice = Stripe.Invoice;
export type ProcessorCheckoutSession = Stripe.Checkout.Session;

/** When a Checkout Session lapses unpaid (Stripe: 24 h by default); null when the answer does not say. */
const expiresAtOf = (session: { expires_at?: number | null }) => (typeof session.expires_at === 'number' ? new Date(session.expires_at * 1000) : null);
export type ProcessorSetupIntent = Stripe.SetupIntent;
export type ProcessorPaymentIntent = Stripe.PaymentIntent;
export type ProcessorCustomer = Stripe.Customer;

type Metadata = Record<string, string>;
type Recurring = { interval: 'month' | 'year'; interval_count: number };
type Item = { price: string; quantity?: number };
/** A subscription item change: an existing item (`id`) moved to `price`, or a new item. */
export type ProcessorItemChange = { id?: string; price: string };
/** Metered amounts as our exact decimal strings (decimal minor units). */
export type MeteredAmounts =
  | { unit_amount_decimal: string }
  | { billing_scheme: 'tiered'; tiers_mode: 'graduated'; tiers: { up_to: number | 'inf'; unit_amount_decimal: string; flat_amount_decimal?: string }[] };

const clientsByRuntime = new WeakMap<Pick<Metrics, 'outboundCall'>, Map<string, Stripe>>();

/** The SDK client for this key; each runtime (its metrics) keeps its own, whose answers count in its `/metrics`. */
function stripeClient(config: Config, secretKey: string, metrics: Pick<Metrics, 'outboundCall'>): Stripe {
  let clients = clientsByRuntime.get(metrics);
  if (!clients) clientsByRuntime.set(metrics, (clients = new Map()));
  const cacheKey = `${config.stripe.api.protocol}://${config.stripe.api.host}:${config.stripe.api.port}|${secretKey}`;
  let client = clients.get(cacheKey);
  if (!client) {
    client = new Stripe(secretKey, {
      host: config.stripe.api.host,
      port: config.stripe.api.port,
      protocol: config.stripe.api.protocol,
      maxNetworkRetries: config.stripe.maxNetworkRetries,
      timeout: config.stripe.timeoutMs,
      telemetry: false,
      appInfo: { name: 'Tally' },
    });
    // Every answer, retries included (the SDK emits no event for a call that got no answer).
    client.on('response', (event: { status: number }) => metrics.outboundCall('stripe', event.status));
    if (clients.size > 1000) clients.clear();
    clients.set(cacheKey, client);
  }
  return client;
}

export type Processor = ReturnType<typeof stripeProcessor>;

/** The processor operations payments uses, for one secret key. */
export function stripeProcessor(config: Config, secretKey: string, metrics: Pick<Metrics, 'outboundCall'>) {
  const stripe = stripeClient(config, secretKey, metrics);
  const idem = (idempotencyKey: string) => ({ idempotencyKey });
  return {
    /** One cheap authenticated call: throws when the key is refused or the processor unreachable. */
    checkKey: async (): Promise<void> => {
      await stripe.balance.retrieve();
    },
    createWebhookEndpoint: async (input: { url: string; enabledEvents: readonly string[]; description: string; metadata: Metadata }) => {
      const endpoint = await stripe.webhookEndpoints.create({ url: input.url, enabled_events: input.enabledEvents as never, description: input.description, metadata: input.metadata });
      return { id: endpoint.id, secret: endpoint.secret ?? null };
    },
    deleteWebhookEndpoint: async (id: string): Promise<void> => {
      await stripe.webhookEndpoints.del(id);
    },
    createCustomer: async (input: { email?: string; name?: string; metadata: Metadata }, idempotencyKey: string) => {
      const customer = await stripe.customers.create(input, idem(idempotencyKey));
      return { id: customer.id };
    },
    /** Sets the processor customer's e-mail (a plain update: repeating it changes nothing). */
    setCustomerEmail: async (customerId: string, email: string): Promise<void> => {
      await stripe.customers.update(customerId, { email });
    },
    setDefaultPaymentMethod: async (customerId: string, paymentMethodId: string): Promise<void> => {
      await stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId } });
    },
    createSetupIntent: async (input: { customer: string; metadata: Metadata }) => {
      const intent = await stripe.setupIntents.create({ customer: input.customer, usage: 'off_session', allowed_payment_method_types: ['card'], metadata: input.metadata });
      return { id: intent.id, clientSecret: intent.client_secret! };
    },
    /** The payment method's customer, or undefined when the method cannot be read (unknown, or another's). */
    findPaymentMethodCustomer: async (paymentMethodId: string): Promise<{ id: string; customer: string | null } | undefined> => {
      const method = await stripe.paymentMethods.retrieve(paymentMethodId).catch(() => null);
      if (!method) return undefined;
      return { id: method.id, customer: typeof method.customer === 'string' ? method.customer : method.customer?.id ?? null };
    },
    attachPaymentMethod: async (paymentMethodId: string, customer: string) => {
      const method = await stripe.paymentMethods.attach(paymentMethodId, { customer });
      return { id: method.id };
    },
    /** An off-session charge, confirmed at once. */
    chargeOffSession: async (input: { amountMinor: number; currency: string; customer: string; paymentMethod: string; description: string; metadata: Metadata }, idempotencyKey: string) => {
      const intent = await stripe.paymentIntents.create(
        {
          amount: input.amountMinor, currency: input.currency, customer: input.customer, payment_method: input.paymentMethod,
          off_session: true, confirm: true, description: input.description, metadata: input.metadata,
        },
        idem(idempotencyKey),
      );
      return { id: intent.id, status: intent.status };
    },
    /** A one-off hosted payment (mode=payment) that saves the card for later off-session charges. */
    createPaymentCheckout: async (
      input: { customer: string; clientReferenceId: string; successUrl: string; cancelUrl: string; amountMinor: number; currency: string; productName: string; metadata: Metadata },
      idempotencyKey: string,
    ) => {
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'payment',
          customer: input.customer,
          client_reference_id: input.clientReferenceId,
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
          line_items: [{ quantity: 1, price_data: { currency: input.currency, unit_amount: input.amountMinor, product_data: { name: input.productName } } }],
          metadata: input.metadata,
          payment_intent_data: { metadata: input.metadata, setup_future_usage: 'off_session' },
        },
        idem(idempotencyKey),
      );
      return { id: session.id, url: session.url, expiresAt: expiresAtOf(session) };
    },
    /** A hosted checkout for a subscription (mode=subscription) to the items. */
    createSubscriptionCheckout: async (
      input: { customer: string; clientReferenceId: string; successUrl: string; cancelUrl: string; items: Item[]; metadata: Metadata },
      idempotencyKey: string,
    ) => {
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'subscription',
          customer: input.customer,
          client_reference_id: input.clientReferenceId,
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
          line_items: input.items,
          metadata: input.metadata,
          subscription_data: { metadata: input.metadata },
        },
        idem(idempotencyKey),
      );
      return { id: session.id, url: session.url, expiresAt: expiresAtOf(session) };
    },
    /** A hosted page that saves a card for later off-session charges (mode=setup): no charge. */
    createSetupCheckout: async (input: { customer: string; clientReferenceId: string; successUrl: string; cancelUrl: string; metadata: Metadata }, idempotencyKey: string) => {
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'setup',
          customer: input.customer,
          client_reference_id: input.clientReferenceId,
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
          allowed_payment_method_types: ['card'],
          metadata: input.metadata,
          setup_intent_data: { metadata: input.metadata },
        },
        idem(idempotencyKey),
      );
      return { id: session.id, url: session.url, expiresAt: expiresAtOf(session) };
    },
    /** The payment method a setup intent saved (null while it has none). */
    retrieveSetupIntent: async (id: string) => {
      const intent = await stripe.setupIntents.retrieve(id);
      const idOf = (v: string | { id: string } | null) => (typeof v === 'string' ? v : v?.id ?? null);
      return { id: intent.id, status: intent.status, customer: idOf(intent.customer), paymentMethod: idOf(intent.payment_method) };
    },
    /** What a card payment method shows (null fields when the processor does not say). */
    describePaymentMethod: async (id: string) => {
      const method = await stripe.paymentMethods.retrieve(id);
      return { brand: method.card?.brand ?? null, last4: method.card?.last4 ?? null, expMonth: method.card?.exp_month ?? null, expYear: method.card?.exp_year ?? null };
    },
    /**
     * A hosted invoice page for one amount: draft, one item, finalised; each step keyed by
     * `<keyPrefix>` (`-invoice`, `-invoice-item`, `-invoice-finalize`) so a retry finds the same invoice.
     */
    createHostedInvoice: async (
      input: { customer: string; currency: string; amountMinor: number; description: string; daysUntilDue: number; metadata: Metadata },
      keys: { invoice: string; item: string; finalize: string },
    ) => {
      const draft = await stripe.invoices.create(
        { customer: input.customer, collection_method: 'send_invoice', days_until_due: input.daysUntilDue, currency: input.currency, pending_invoice_items_behavior: 'exclude', auto_advance: false, metadata: input.metadata },
        idem(keys.invoice),
      );
      await stripe.invoiceItems.create(
        { customer: input.customer, invoice: draft.id!, amount: input.amountMinor, currency: input.currency, description: input.description, metadata: input.metadata },
        idem(keys.item),
      );
      const hosted = await stripe.invoices.finalizeInvoice(draft.id!, {}, idem(keys.finalize));
      return { id: hosted.id!, url: hosted.hosted_invoice_url ?? null };
    },
    retrieveInvoice: (id: string): Promise<ProcessorInvoice> => stripe.invoices.retrieve(id),
    /** An open invoice can no longer be paid (a paid one is refused: an invalid request). */
    voidInvoice: (id: string): Promise<ProcessorInvoice> => stripe.invoices.voidInvoice(id),
    createProduct: async (input: { name: string; description?: string; metadata: Metadata }, idempotencyKey: string) => {
      const product = await stripe.products.create(input, idem(idempotencyKey));
      return { id: product.id };
    },
    /** A licensed recurring price. */
    createPrice: async (input: { product: string; currency: string; unitAmountMinor: number; recurring: Recurring; metadata: Metadata }, idempotencyKey: string) => {
      const price = await stripe.prices.create(
        { product: input.product, currency: input.currency, unit_amount: input.unitAmountMinor, recurring: input.recurring, metadata: input.metadata },
        idem(idempotencyKey),
      );
      return { id: price.id };
    },
    /** A metered recurring price on a meter; our decimal strings are sent as written. */
    createMeteredPrice: async (input: { product: string; currency: string; recurring: Recurring; meter: string; amounts: MeteredAmounts; metadata: Metadata }, idempotencyKey: string) => {
      const price = await stripe.prices.create(
        {
          product: input.product,
          currency: input.currency,
          recurring: { ...input.recurring, usage_type: 'metered', meter: input.meter },
          ...toSdkAmounts(input.amounts),
          metadata: input.metadata,
        },
        idem(idempotencyKey),
      );
      return { id: price.id };
    },
    /** The meter counting this event name, among the first 100, or undefined. */
    findMeter: async (eventName: string): Promise<string | undefined> => {
      const existing = await stripe.billing.meters.list({ limit: 100 });
      return existing.data.find((m) => m.event_name === eventName)?.id;
    },
    /** A sum meter keyed by customer id (`stripe_customer_id`) and `value` in the payload. */
    createMeter: async (eventName: string, idempotencyKey: string): Promise<string> => {
      const meter = await stripe.billing.meters.create(
        {
          display_name: eventName,
          event_name: eventName,
          default_aggregation: { formula: 'sum' },
          customer_mapping: { type: 'by_id', event_payload_key: 'stripe_customer_id' },
          value_settings: { event_payload_key: 'value' },
        },
        idem(idempotencyKey),
      );
      return meter.id;
    },
    sendMeterEvent: async (input: { eventName: string; identifier: string; timestampSeconds: number; customer: string; value: number }, idempotencyKey: string): Promise<void> => {
      await stripe.billing.meterEvents.create(
        { event_name: input.eventName, identifier: input.identifier, timestamp: input.timestampSeconds, payload: { stripe_customer_id: input.customer, value: String(input.value) } },
        idem(idempotencyKey),
      );
    },
    /** An off-session subscription whose failed first payment is an error, not an incomplete subscription left behind. */
    createSubscription: (input: { customer: string; items: Item[]; paymentMethod: string; metadata: Metadata }, idempotencyKey: string): Promise<ProcessorSubscription> =>
      stripe.subscriptions.create(
        { customer: input.customer, items: input.items, default_payment_method: input.paymentMethod, off_session: true, payment_behavior: 'error_if_incomplete', metadata: input.metadata },
        idem(idempotencyKey),
      ),
    retrieveSubscription: (id: string): Promise<ProcessorSubscription> => stripe.subscriptions.retrieve(id),
    setCancelAtPeriodEnd: (id: string, cancelAtPeriodEnd: boolean): Promise<ProcessorSubscription> => stripe.subscriptions.update(id, { cancel_at_period_end: cancelAtPeriodEnd }),
    /** Cancels now with a prorated final invoice (a credit for the unused period). */
    cancelSubscriptionNow: (id: string): Promise<ProcessorSubscription> => stripe.subscriptions.cancel(id, { prorate: true, invoice_now: true }),
    /**
     * Moves items to other prices: `invoiceNow` prorates and invoices now, applied only once that
     * invoice is paid (`pending_if_incomplete`); otherwise no proration.
     */
    changeSubscriptionItems: (id: string, input: { items: ProcessorItemChange[]; invoiceNow: boolean }, idempotencyKey?: string): Promise<ProcessorSubscription> => {
      const params: Stripe.SubscriptionUpdateParams = {
        items: input.items,
        proration_behavior: input.invoiceNow ? 'always_invoice' : 'none',
        ...(input.invoiceNow ? { payment_behavior: 'pending_if_incomplete' as const } : {}),
      };
      return idempotencyKey ? stripe.subscriptions.update(id, params, idem(idempotencyKey)) : stripe.subscriptions.update(id, params);
    },
  };
}

/** Our exact decimal strings as the SDK's Decimal values (it sends them as written). */
function toSdkAmounts(amounts: MeteredAmounts) {
  if ('unit_amount_decimal' in amounts) return { unit_amount_decimal: Stripe.Decimal.from(amounts.unit_amount_decimal) };
  return {
    ...amounts,
    tiers: amounts.tiers.map((t) => ({
      up_to: t.up_to,
      unit_amount_decimal: Stripe.Decimal.from(t.unit_amount_decimal),
      ...(t.flat_amount_decimal ? { flat_amount_decimal: Stripe.Decimal.from(t.flat_amount_decimal) } : {}),
    })),
  };
}

/** Used only to verify signatures: it never calls the processor. */
const verifier = new Stripe('sk_test_signature_verification_only', { telemetry: false });

/**
 * The event of a signed webhook body; throws when the signature does not match the secret or its
 * timestamp is further than `toleranceSeconds` from `receivedAtMs` (our clock, frozen in tests).
 */
export function verifyWebhookEvent(rawBody: string, signature: string, secret: string, toleranceSeconds: number, receivedAtMs: number): ProcessorEvent {
  return verifier.webhooks.constructEvent(rawBody, signature, secret, toleranceSeconds, undefined, receivedAtMs);
}

/** What the processor said when it refused a call, for a 502 `vendor_error` or a decline reason. */
export function processorMessage(err: unknown): string {
  if (err instanceof Stripe.errors.StripeError) return err.message || err.type;
  return err instanceof Error ? err.message : String(err);
}

/** A declined card; `code` is the processor's decline code. */
export const isCardError = (err: unknown): err is Error & { code?: string } => err instanceof Stripe.errors.StripeCardError;
export const isAuthenticationError = (err: unknown): boolean => err instanceof Stripe.errors.StripeAuthenticationError;
/** The processor refused the request itself (4xx): resending it will not help. */
export const isInvalidRequestError = (err: unknown): boolean => err instanceof Stripe.errors.StripeInvalidRequestError;
/** The object the request would create exists already (a resend after a lost answer). */
export const isAlreadyExistsError = (err: unknown): boolean => err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'resource_already_exists';
/** A failure that may pass by itself: the processor unreachable, failing (5xx) or rate limiting. */
export const isTransientError = (err: unknown): boolean =>
  err instanceof Stripe.errors.StripeAPIError || err instanceof Stripe.errors.StripeConnectionError || err instanceof Stripe.errors.StripeRateLimitError;
