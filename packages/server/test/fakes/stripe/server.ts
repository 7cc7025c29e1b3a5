import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseForm, type FormObject, type FormValue } from './form.js';

/**
 * A small stateful Stripe for tests (vendor-apis.md §6), on 127.0.0.1. The real `stripe` SDK is
 * pointed at it through APP_STRIPE_API_BASE. It implements the endpoints Tally calls, with Stripe's
 * form encoding, error shapes, `Idempotency-Key` replay, card behaviours by test payment method
 * (`pm_card_visa` succeeds, `pm_card_chargeDeclined` is declined, `pm_card_authenticationRequired`
 * needs the customer on-session) and webhook deliveries signed like Stripe's.
 *
 * Objects live in one namespace per secret key, so two Tally accounts with their own keys do not see
 * each other's customers, and an event goes to the endpoints registered with the key whose object
 * changed. Events are queued and delivered when a test calls `deliverWebhooks()`, so tests decide
 * when (and how often) Tally hears about a payment.
 */

type StripeObject = Record<string, unknown> & { id: string; object: string };
type Card = 'ok' | 'declined' | 'insufficient_funds' | 'authentication_required';

/** Test payment-method tokens and what a charge on them does. */
export const TEST_PAYMENT_METHODS: Record<string, Card> = {
  pm_card_visa: 'ok',
  pm_card_mastercard: 'ok',
  pm_card_chargeDeclined: 'declined',
  pm_card_chargeDeclinedInsufficientFunds: 'insufficient_funds',
  pm_card_authenticationRequired: 'authentication_required',
};

/** Event types a webhook endpoint may subscribe to here; Stripe refuses unknown ones. */
export const KNOWN_EVENT_TYPES = new Set([
  'checkout.session.completed',
  'checkout.session.expired',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'invoice.created',
  'invoice.finalized',
  'invoice.updated',
  'invoice.deleted',
  'invoice.paid',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
  'invoice.voided',
  'invoice.marked_uncollectible',
  'invoice_payment.paid',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'setup_intent.succeeded',
  'setup_intent.setup_failed',
]);

export type RecordedRequest = {
  method: string;
  path: string;
  secretKey: string | null;
  idempotencyKey: string | null;
  body: FormObject;
  status: number;
};

/**
 * `status`: the request fails before Stripe does anything. `lostAnswer`: Stripe applies the request
 * (and remembers its idempotency key) but the answer is lost: the caller sees `status`, or, with
 * `hangMs`, no answer for that long (a caller that dies meanwhile never learns the outcome).
 */
export type Failure = { status: number; body?: unknown; lostAnswer?: boolean } | { hangMs: number; lostAnswer?: boolean };
export type FailureMatch = { method?: string; path: string | RegExp; times?: number };

export type Delivery = { eventId: string; type: string; url: string; status: number; body: string };

type Namespace = {
  livemode: boolean;
  objects: Map<string, StripeObject>;
  /** Payment-method id → its card behaviour. */
  cards: Map<string, Card>;
  idempotency: Map<string, { fingerprint: string; status: number; body: string }>;
  queue: StripeObject[];
  meterEvents: StripeObject[];
};

export type StripeFakeOptions = {
  /** Clock for `created` and signature timestamps (seconds); tests pass their frozen clock. */
  now?: () => Date;
};

export class StripeFake {
  readonly requests: RecordedRequest[] = [];
  private readonly namespaces = new Map<string, Namespace>();
  private readonly failures: { match: FailureMatch; failure: Failure; left: number }[] = [];
  private server: Server | null = null;
  private port = 0;
  private readonly now: () => Date;

  constructor(options: StripeFakeOptions = {}) {
    this.now = options.now ?? (() => new Date());
  }

  static async start(options: StripeFakeOptions = {}): Promise<StripeFake> {
    const fake = new StripeFake(options);
    await fake.listen();
    return fake;
  }

  /** `http://127.0.0.1:<port>`: the value for APP_STRIPE_API_BASE. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
  }

  /** The next `times` (default 1) requests matching fail this way (5xx, or a hang for timeouts). */
  failNext(match: FailureMatch, failure: Failure): void {
    this.failures.push({ match, failure, left: match.times ?? 1 });
  }

  /** Requests to `path` (prefix or pattern) that reached the fake, optionally with one method. */
  calls(path: string | RegExp, method?: string): RecordedRequest[] {
    return this.requests.filter((r) => matches(path, r.path) && (!method || r.method === method));
  }

  /** Every object of one kind in a key's namespace (`customer`, `payment_intent`, …). */
  list(secretKey: string, object: string): StripeObject[] {
    return [...this.ns(secretKey).objects.values()].filter((o) => o.object === object);
  }

  get(secretKey: string, id: string): StripeObject | undefined {
    return this.ns(secretKey).objects.get(id);
  }

  meterEvents(secretKey: string): StripeObject[] {
    return this.ns(secretKey).meterEvents;
  }

  /** Events queued for delivery (not yet delivered) in a key's namespace. */
  pendingEvents(secretKey: string): StripeObject[] {
    return [...this.ns(secretKey).queue];
  }

  /** The customer confirms a setup intent with a card (what Stripe.js does in the principal's browser). */
  confirmSetupIntent(secretKey: string, setupIntentId: string, token = 'pm_card_visa'): StripeObject {
    const ns = this.ns(secretKey);
    const intent = this.require(ns, setupIntentId, 'setup_intent');
    const pm = this.clonePaymentMethod(ns, token, intent.customer as string | null);
    Object.assign(intent, { status: 'succeeded', payment_method: pm.id });
    this.emit(ns, 'setup_intent.succeeded', intent);
    return intent;
  }

  /** A human pays on the hosted checkout page (typing `email` there, as `customer_details.email`, when given). */
  completeCheckout(secretKey: string, sessionId: string, token = 'pm_card_visa', email?: string): StripeObject {
    const ns = this.ns(secretKey);
    const session = this.require(ns, sessionId, 'checkout.session');
    if (session.status !== 'open') throw new Error(`checkout session ${sessionId} is ${String(session.status)}`);
    let customer = session.customer as string | null;
    if (!customer && session.mode !== 'payment') customer = this.createObject(ns, 'cus', 'customer', { email: session.customer_email ?? null, metadata: {}, invoice_settings: { default_payment_method: null } }).id;
    const pm = this.clonePaymentMethod(ns, token, customer);
    if (session.mode === 'payment') {
      const intent = this.createObject(ns, 'pi', 'payment_intent', {
        amount: session.amount_total, amount_received: session.amount_total, currency: session.currency, customer, payment_method: pm.id,
        status: 'succeeded', latest_charge: newId('ch'), last_payment_error: null, metadata: session.metadata, description: null,
      });
      Object.assign(session, { payment_intent: intent.id, payment_status: 'paid' });
      this.emit(ns, 'payment_intent.succeeded', intent);
    } else if (session.mode === 'subscription') {
      const items = (session.line_items_input as { price: string; quantity: number }[]).map((li) => ({ price: li.price, quantity: li.quantity }));
      const subscriptionData = (session.subscription_data ?? {}) as { metadata?: Record<string, string> };
      const { subscription, invoice } = this.createSubscription(ns, { customer: customer!, items, metadata: subscriptionData.metadata ?? session.metadata as Record<string, string>, paymentMethod: pm.id });
      Object.assign(session, { subscription: subscription.id, invoice: invoice.id, payment_status: 'paid' });
    } else {
      const intent = this.createObject(ns, 'seti', 'setup_intent', { customer, status: 'succeeded', payment_method: pm.id, usage: 'off_session', metadata: session.metadata, client_secret: null });
      Object.assign(session, { setup_intent: intent.id, payment_status: 'no_payment_required' });
      this.emit(ns, 'setup_intent.succeeded', intent);
    }
    Object.assign(session, { status: 'complete', customer, customer_details: { email: email ?? session.customer_email ?? null } });
    this.emit(ns, 'checkout.session.completed', session);
    return session;
  }

  /** The hosted checkout page times out unpaid. */
  expireCheckout(secretKey: string, sessionId: string): StripeObject {
    return this.expireSession(this.ns(secretKey), sessionId);
  }

  /** A human pays an open invoice on its hosted page. */
  payInvoice(secretKey: string, invoiceId: string, token = 'pm_card_visa'): StripeObject {
    const ns = this.ns(secretKey);
    const invoice = this.require(ns, invoiceId, 'invoice');
    if (invoice.status !== 'open') throw new Error(`invoice ${invoiceId} is ${String(invoice.status)}`);
    this.clonePaymentMethod(ns, token, invoice.customer as string);
    this.settleInvoice(ns, invoice);
    // A pending update (pending_if_incomplete) applies once its invoice is paid.
    const subscriptionId = (invoice.parent as { subscription_details?: { subscription?: string } } | null)?.subscription_details?.subscription;
    const subscription = subscriptionId ? ns.objects.get(subscriptionId) : undefined;
    const pending = subscription?.pending_update as { subscription_items: FormObject[] } | null | undefined;
    if (subscription && pending && subscription.latest_invoice === invoice.id) {
      const data = (subscription.items as { data: Record<string, unknown>[] }).data;
      for (const item of pending.subscription_items) {
        const existing = data.find((d) => d.id === item.id);
        if (existing) existing.price = this.require(ns, item.price as string, 'price');
      }
      subscription.pending_update = null;
      this.emit(ns, 'customer.subscription.updated', subscription);
    }
    return invoice;
  }

  /** From now on, charges on this payment method behave as `card` (a card that expired or was blocked). */
  setCard(secretKey: string, paymentMethodId: string, card: Card): void {
    this.requirePaymentMethod(this.ns(secretKey), paymentMethodId);
    this.ns(secretKey).cards.set(paymentMethodId, card);
  }

  /** Queues an event of any type, as Stripe would send it (tests of handlers for rarer events). */
  emitEvent(secretKey: string, type: string, object: StripeObject): StripeObject {
    return this.emit(this.ns(secretKey), type, object);
  }

  /**
   * Delivers every queued event of every namespace, oldest first, to each endpoint subscribed to its
   * type, signed with that endpoint's secret. Returns what the endpoints answered.
   */
  async deliverWebhooks(): Promise<Delivery[]> {
    const deliveries: Delivery[] = [];
    for (const ns of this.namespaces.values()) {
      while (ns.queue.length > 0) {
        const event = ns.queue.shift()!;
        for (const endpoint of [...ns.objects.values()].filter((o) => o.object === 'webhook_endpoint')) {
          const enabled = endpoint.enabled_events as string[];
          if (!enabled.includes('*') && !enabled.includes(event.type as string)) continue;
          deliveries.push(await this.deliver(event, endpoint.url as string, endpoint.secret as string));
        }
      }
    }
    return deliveries;
  }

  /** Posts one event to a URL with a signature made from `secret` (tests also forge bad ones). */
  async deliver(event: StripeObject, url: string, secret: string, options: { timestamp?: number } = {}): Promise<Delivery> {
    const payload = JSON.stringify(event, null, 2);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': this.signatureHeader(payload, secret, options.timestamp) },
      body: payload,
    });
    return { eventId: event.id, type: event.type as string, url, status: res.status, body: await res.text() };
  }

  /** `t=<seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<payload>")>`, as Stripe signs a delivery. */
  signatureHeader(payload: string, secret: string, timestamp = Math.floor(this.now().getTime() / 1000)): string {
    const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
    return `t=${timestamp},v1=${signature}`;
  }

  // --- HTTP ---

  private async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        send(res, 500, { error: { type: 'api_error', message: `fake failure: ${String(err)}` } });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server!.address() as AddressInfo).port;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    const body = method === 'GET' || method === 'DELETE' ? parseForm(url.search.slice(1)) : parseForm(raw);
    const secretKey = bearer(req.headers.authorization);
    const idempotencyKey = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    const record: RecordedRequest = { method, path: url.pathname, secretKey, idempotencyKey, body, status: 0 };
    this.requests.push(record);
    const reply = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      send(res, status, payload, headers);
    };

    const failure = this.takeFailure(method, url.pathname);
    if (failure && !('lostAnswer' in failure && failure.lostAnswer)) {
      if ('hangMs' in failure) {
        await new Promise((r) => setTimeout(r, failure.hangMs));
        if (!res.destroyed) reply(500, { error: { type: 'api_error', message: 'hung' } });
        return;
      }
      reply(failure.status, failure.body ?? { error: { type: 'api_error', message: 'An unknown error occurred with Stripe (fake).' } });
      return;
    }
    if (!secretKey || !/^(sk|rk)_(test|live)_\w+$/.test(secretKey) || secretKey.includes('invalid') || secretKey.includes('revoked')) {
      reply(401, { error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${maskKey(secretKey ?? '')}` } });
      return;
    }
    const outcome = this.apply(this.ns(secretKey), method, url.pathname, body, idempotencyKey, raw);
    if (failure && 'hangMs' in failure) {
      // Applied, then no answer for a while.
      await new Promise((r) => setTimeout(r, failure.hangMs));
      if (!res.destroyed) reply(500, { error: { type: 'api_error', message: 'hung' } });
      return;
    }
    if (failure && 'status' in failure) {
      // Applied, but the answer never reaches the caller.
      reply(failure.status, failure.body ?? { error: { type: 'api_error', message: 'An unknown error occurred with Stripe (fake).' } });
      return;
    }
    record.status = outcome.status;
    res.writeHead(outcome.status, { 'content-type': 'application/json', 'request-id': newId('req'), ...(outcome.replayed ? { 'idempotent-replayed': 'true' } : {}) });
    res.end(outcome.body);
  }

  /** Runs one request, replaying a POST's earlier outcome for the same `Idempotency-Key` (or refusing other parameters). */
  private apply(ns: Namespace, method: string, path: string, body: FormObject, idempotencyKey: string | null, raw: string): { status: number; body: string; replayed: boolean } {
    if (method === 'POST' && idempotencyKey) {
      const fingerprint = createHash('sha256').update(`${method} ${path} ${raw}`).digest('hex');
      const stored = ns.idempotency.get(idempotencyKey);
      if (stored) {
        if (stored.fingerprint !== fingerprint) {
          return { status: 400, replayed: false, body: JSON.stringify({ error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.` } }) };
        }
        return { status: stored.status, body: stored.body, replayed: true };
      }
      const [status, payload] = this.route(ns, method, path, body);
      // Stripe stores the outcome of a key, errors included, except 5xx and rate limits.
      if (status < 500 && status !== 429) ns.idempotency.set(idempotencyKey, { fingerprint, status, body: JSON.stringify(payload) });
      return { status, body: JSON.stringify(payload), replayed: false };
    }
    const [status, payload] = this.route(ns, method, path, body);
    return { status, body: JSON.stringify(payload), replayed: false };
  }

  private takeFailure(method: string, path: string): Failure | null {
    const entry = this.failures.find((f) => f.left > 0 && (!f.match.method || f.match.method === method) && matches(f.match.path, path));
    if (!entry) return null;
    entry.left -= 1;
    return entry.failure;
  }

  private route(ns: Namespace, method: string, path: string, body: FormObject): [number, unknown] {
    const segments = path.split('/').filter(Boolean);
    if (segments[0] !== 'v1') return notFoundRoute(method, path);
    // Namespaced resources (`checkout/sessions`, `billing/meters`) count as one segment.
    const namespaced = segments[1] === 'checkout' || segments[1] === 'billing';
    const [, resource, id, action] = namespaced ? ['v1', `${segments[1]}/${segments[2] ?? ''}`, ...segments.slice(3)] : segments;
    try {
      switch (`${method} ${resource}${id ? '/:id' : ''}${action ? `/${action}` : ''}`) {
        case 'GET balance':
          return [200, { object: 'balance', available: [{ amount: 0, currency: 'usd' }], pending: [{ amount: 0, currency: 'usd' }], livemode: ns.livemode }];
        case 'GET account':
          return [200, { id: 'acct_fake', object: 'account', charges_enabled: true, country: 'US', default_currency: 'usd' }];
        case 'POST customers':
          return [200, this.emitCreated(ns, 'customer.created', this.createObject(ns, 'cus', 'customer', { email: str(body.email), name: str(body.name), description: str(body.description), metadata: obj(body.metadata), invoice_settings: { default_payment_method: null } }))];
        case 'GET customers/:id':
          return [200, this.require(ns, id!, 'customer')];
        case 'POST customers/:id':
          return [200, this.updateCustomer(ns, id!, body)];
        case 'POST setup_intents':
          return [200, this.createSetupIntent(ns, body)];
        case 'GET setup_intents/:id':
          return [200, this.require(ns, id!, 'setup_intent')];
        case 'POST payment_methods/:id/attach':
          return [200, this.attachPaymentMethod(ns, id!, required(body, 'customer'))];
        case 'GET payment_methods/:id':
          return [200, this.requirePaymentMethod(ns, id!)];
        case 'POST payment_intents':
          return this.createPaymentIntent(ns, body);
        case 'GET payment_intents/:id':
          return [200, this.require(ns, id!, 'payment_intent')];
        case 'POST checkout/sessions':
          return [200, this.createCheckoutSession(ns, body)];
        case 'GET checkout/sessions/:id':
          return [200, this.require(ns, id!, 'checkout.session')];
        case 'POST checkout/sessions/:id/expire':
          return [200, this.expireSession(ns, id!)];
        case 'GET checkout/sessions':
          return [200, listOf([...ns.objects.values()].filter((o) => o.object === 'checkout.session'), '/v1/checkout/sessions')];
        case 'POST webhook_endpoints':
          return [200, this.createWebhookEndpoint(ns, body)];
        case 'GET webhook_endpoints':
          return [200, listOf([...ns.objects.values()].filter((o) => o.object === 'webhook_endpoint').map(withoutSecret), '/v1/webhook_endpoints')];
        case 'DELETE webhook_endpoints/:id':
          this.require(ns, id!, 'webhook_endpoint');
          ns.objects.delete(id!);
          return [200, { id, object: 'webhook_endpoint', deleted: true }];
        case 'POST products':
          return [200, this.createObject(ns, 'prod', 'product', { name: required(body, 'name'), active: body.active !== 'false', metadata: obj(body.metadata), description: str(body.description) }, str(body.id))];
        case 'POST products/:id':
          return [200, this.update(ns, id!, 'product', { ...(body.name !== undefined ? { name: str(body.name) } : {}), ...(body.active !== undefined ? { active: body.active === 'true' } : {}), ...(body.metadata !== undefined ? { metadata: obj(body.metadata) } : {}) })];
        case 'GET products/:id':
          return [200, this.require(ns, id!, 'product')];
        case 'POST prices':
          return [200, this.createPrice(ns, body)];
        case 'POST prices/:id':
          return [200, this.update(ns, id!, 'price', { ...(body.active !== undefined ? { active: body.active === 'true' } : {}), ...(body.metadata !== undefined ? { metadata: obj(body.metadata) } : {}), ...(body.lookup_key !== undefined ? { lookup_key: str(body.lookup_key) } : {}) })];
        case 'GET prices': {
          const keys = Array.isArray(body.lookup_keys) ? (body.lookup_keys as string[]) : [];
          return [200, listOf([...ns.objects.values()].filter((o) => o.object === 'price' && (keys.length === 0 || keys.includes(o.lookup_key as string))), '/v1/prices')];
        }
        case 'POST subscriptions':
          return this.createSubscriptionRoute(ns, body);
        case 'GET subscriptions/:id':
          return [200, this.require(ns, id!, 'subscription')];
        case 'POST subscriptions/:id':
          return [200, this.updateSubscription(ns, id!, body)];
        case 'DELETE subscriptions/:id':
          return [200, this.cancelSubscription(ns, id!, body)];
        case 'POST invoices':
          return [200, this.createInvoice(ns, body)];
        case 'GET invoices/:id':
          return [200, this.require(ns, id!, 'invoice')];
        case 'POST invoiceitems':
          return [200, this.createInvoiceItem(ns, body)];
        case 'POST invoices/:id/finalize':
          return [200, this.finalizeInvoice(ns, id!)];
        case 'POST invoices/:id/void':
          return [200, this.voidInvoice(ns, id!)];
        case 'POST invoices/:id/mark_uncollectible':
          return [200, this.markUncollectible(ns, id!)];
        case 'POST billing/meters':
          return [200, this.createObject(ns, 'mtr', 'billing.meter', { display_name: required(body, 'display_name'), event_name: required(body, 'event_name'), status: 'active', default_aggregation: obj(body.default_aggregation), customer_mapping: obj(body.customer_mapping), value_settings: obj(body.value_settings) })];
        case 'GET billing/meters':
          return [200, listOf([...ns.objects.values()].filter((o) => o.object === 'billing.meter'), '/v1/billing/meters')];
        case 'POST billing/meter_events':
          return [200, this.createMeterEvent(ns, body)];
        default:
          return notFoundRoute(method, path);
      }
    } catch (err) {
      if (err instanceof StripeError) return [err.status, { error: err.body }];
      throw err;
    }
  }

  private expireSession(ns: Namespace, id: string): StripeObject {
    const session = this.require(ns, id, 'checkout.session');
    if (session.status !== 'open') throw invalidRequest(`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${String(session.status)}".`);
    Object.assign(session, { status: 'expired', url: null });
    this.emit(ns, 'checkout.session.expired', session);
    return session;
  }

  // --- resources ---

  private ns(secretKey: string): Namespace {
    let ns = this.namespaces.get(secretKey);
    if (!ns) {
      ns = { livemode: secretKey.includes('_live_'), objects: new Map(), cards: new Map(), idempotency: new Map(), queue: [], meterEvents: [] };
      this.namespaces.set(secretKey, ns);
    }
    return ns;
  }

  private created(): number {
    return Math.floor(this.now().getTime() / 1000);
  }

  private createObject(ns: Namespace, prefix: string, object: string, fields: Record<string, unknown>, id?: string | null): StripeObject {
    const value: StripeObject = { id: id ?? newId(prefix), object, ...fields, livemode: ns.livemode, created: this.created() };
    if (ns.objects.has(value.id)) throw invalidRequest(`A resource with the ID '${value.id}' already exists.`, 'resource_already_exists');
    ns.objects.set(value.id, value);
    return value;
  }

  private require(ns: Namespace, id: string, object: string): StripeObject {
    const value = ns.objects.get(id);
    if (!value || value.object !== object) {
      const name = object.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
      throw new StripeError(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${name.toLowerCase()}: '${id}'`, param: 'id' });
    }
    return value;
  }

  private update(ns: Namespace, id: string, object: string, fields: Record<string, unknown>): StripeObject {
    return Object.assign(this.require(ns, id, object), fields);
  }

  private updateCustomer(ns: Namespace, id: string, body: FormObject): StripeObject {
    const customer = this.require(ns, id, 'customer');
    const settings = obj(body.invoice_settings);
    if (settings.default_payment_method !== undefined) {
      const pmId = str(settings.default_payment_method);
      if (pmId) {
        const pm = this.requirePaymentMethod(ns, pmId);
        if (pm.customer !== id) throw invalidRequest(`The customer does not have a payment method with the ID ${pmId}. The payment method must be attached to the customer.`, 'resource_missing', 'invoice_settings[default_payment_method]');
      }
      customer.invoice_settings = { default_payment_method: pmId };
    }
    for (const field of ['email', 'name', 'description'] as const) if (body[field] !== undefined) customer[field] = str(body[field]);
    if (body.metadata !== undefined) customer.metadata = { ...(customer.metadata as object), ...obj(body.metadata) };
    this.emit(ns, 'customer.updated', customer);
    return customer;
  }

  private createSetupIntent(ns: Namespace, body: FormObject): StripeObject {
    const customer = str(body.customer);
    if (customer) this.require(ns, customer, 'customer');
    const id = newId('seti');
    return this.createObject(ns, 'seti', 'setup_intent', {
      client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
      status: 'requires_payment_method', usage: str(body.usage) ?? 'off_session', customer, payment_method: null,
      // Renamed allowed_payment_method_types in the SDK's pinned API version; both are accepted.
      payment_method_types: Array.isArray(body.allowed_payment_method_types) ? body.allowed_payment_method_types : Array.isArray(body.payment_method_types) ? body.payment_method_types : ['card'],
      last_setup_error: null, next_action: null, metadata: obj(body.metadata),
    }, id);
  }

  /** A test token becomes a new payment method (as Stripe clones `pm_card_visa`), attached to `customer`. */
  private clonePaymentMethod(ns: Namespace, token: string, customer: string | null): StripeObject {
    const card = TEST_PAYMENT_METHODS[token];
    if (!card) throw new Error(`unknown test payment method ${token}`);
    const pm = this.createObject(ns, 'pm', 'payment_method', { type: 'card', card: { brand: token.includes('mastercard') ? 'mastercard' : 'visa', last4: card === 'ok' ? '4242' : '0002', exp_month: 12, exp_year: 2034 }, customer, billing_details: {}, metadata: {} });
    ns.cards.set(pm.id, card);
    return pm;
  }

  private requirePaymentMethod(ns: Namespace, id: string): StripeObject {
    const value = ns.objects.get(id);
    if (!value || value.object !== 'payment_method') throw new StripeError(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such PaymentMethod: '${id}'`, param: 'payment_method' });
    return value;
  }

  private attachPaymentMethod(ns: Namespace, id: string, customer: string): StripeObject {
    this.require(ns, customer, 'customer');
    if (TEST_PAYMENT_METHODS[id]) return this.clonePaymentMethod(ns, id, customer);
    const pm = this.requirePaymentMethod(ns, id);
    if (pm.customer && pm.customer !== customer) throw invalidRequest('The payment method you provided has already been attached to a customer.', 'payment_method_unexpected_state');
    pm.customer = customer;
    return pm;
  }

  /** The payment method a charge uses: explicit (a test token is cloned onto the customer) or the customer's default. */
  private chargeMethod(ns: Namespace, paymentMethod: string | null, customer: string | null): StripeObject | null {
    if (paymentMethod && TEST_PAYMENT_METHODS[paymentMethod]) return this.clonePaymentMethod(ns, paymentMethod, customer);
    if (paymentMethod) {
      const pm = this.requirePaymentMethod(ns, paymentMethod);
      if (customer && pm.customer !== customer) throw invalidRequest(`The provided PaymentMethod ${paymentMethod} does not belong to the Customer ${customer}.`, 'payment_method_invalid_parameter', 'payment_method');
      return pm;
    }
    if (!customer) return null;
    const defaultPm = (this.require(ns, customer, 'customer').invoice_settings as { default_payment_method: string | null }).default_payment_method;
    return defaultPm ? this.requirePaymentMethod(ns, defaultPm) : null;
  }

  private createPaymentIntent(ns: Namespace, body: FormObject): [number, unknown] {
    const amount = integer(body, 'amount');
    const currency = required(body, 'currency').toLowerCase();
    if (amount < minimumAmount(currency)) throw invalidRequest(`Amount must be at least ${minimumAmount(currency)} ${currency}`, 'amount_too_small', 'amount');
    const customer = str(body.customer);
    if (customer) this.require(ns, customer, 'customer');
    const pm = this.chargeMethod(ns, str(body.payment_method), customer);
    const intent = this.createObject(ns, 'pi', 'payment_intent', {
      amount, amount_received: 0, currency, customer, payment_method: pm?.id ?? null, status: 'requires_payment_method',
      latest_charge: null, last_payment_error: null, description: str(body.description), metadata: obj(body.metadata),
      off_session: body.off_session === 'true', client_secret: null,
    });
    intent.client_secret = `${intent.id}_secret_${randomBytes(12).toString('hex')}`;
    if (body.confirm !== 'true') return [200, intent];
    if (!pm) throw invalidRequest('You cannot confirm this PaymentIntent because it\'s missing a payment method.', 'payment_intent_unexpected_state');
    const card = ns.cards.get(pm.id) ?? 'ok';
    if (card === 'ok') {
      Object.assign(intent, { status: 'succeeded', amount_received: amount, latest_charge: newId('ch') });
      this.emit(ns, 'payment_intent.succeeded', intent);
      return [200, intent];
    }
    const error = cardError(card, intent, pm);
    Object.assign(intent, { status: card === 'authentication_required' ? 'requires_action' : 'requires_payment_method', last_payment_error: error });
    this.emit(ns, 'payment_intent.payment_failed', intent);
    return [402, { error: { ...error, payment_intent: intent } }];
  }

  private createCheckoutSession(ns: Namespace, body: FormObject): StripeObject {
    const mode = required(body, 'mode');
    if (!['payment', 'subscription', 'setup'].includes(mode)) throw invalidRequest(`Invalid mode: must be one of payment, setup, or subscription`, 'parameter_invalid_empty', 'mode');
    required(body, 'success_url');
    const customer = str(body.customer);
    if (customer) this.require(ns, customer, 'customer');
    const lineItems = Array.isArray(body.line_items) ? (body.line_items as FormObject[]) : [];
    if (mode !== 'setup' && lineItems.length === 0) throw invalidRequest('You must specify line_items.', 'parameter_missing', 'line_items');
    let amountTotal = 0;
    let currency = str(body.currency)?.toLowerCase() ?? null;
    const resolved: { price: string; quantity: number }[] = [];
    for (const [i, item] of lineItems.entries()) {
      const quantity = item.quantity === undefined ? 1 : integer(item, 'quantity');
      if (typeof item.price === 'string') {
        const price = this.require(ns, item.price, 'price');
        amountTotal += (price.unit_amount as number) * quantity;
        currency = price.currency as string;
        resolved.push({ price: price.id, quantity });
      } else if (item.price_data && typeof item.price_data === 'object') {
        const data = item.price_data as FormObject;
        const unit = integer(data, 'unit_amount');
        currency = required(data, 'currency').toLowerCase();
        if (mode === 'subscription') throw invalidRequest(`line_items[${i}][price] is required in subscription mode (fake)`);
        amountTotal += unit * quantity;
      } else {
        throw invalidRequest(`line_items[${i}] needs price or price_data`, 'parameter_missing', `line_items[${i}][price]`);
      }
    }
    if (mode === 'payment' && currency && amountTotal < minimumAmount(currency)) throw invalidRequest(`The Checkout Session's total amount due must add up to at least ${minimumAmount(currency)} ${currency}`, 'amount_too_small');
    const id = newId('cs_test');
    return this.createObject(ns, 'cs_test', 'checkout.session', {
      url: `${this.baseUrl}/c/pay/${id}`, status: 'open', payment_status: 'unpaid', mode, client_reference_id: str(body.client_reference_id),
      metadata: obj(body.metadata), customer, customer_email: str(body.customer_email), payment_intent: null, setup_intent: null, subscription: null, invoice: null,
      amount_total: mode === 'setup' ? null : amountTotal, currency, success_url: str(body.success_url), cancel_url: str(body.cancel_url),
      expires_at: body.expires_at ? Number(body.expires_at) : this.created() + 24 * 3600,
      subscription_data: body.subscription_data ?? null, payment_intent_data: body.payment_intent_data ?? null, line_items_input: resolved,
    }, id);
  }

  private createWebhookEndpoint(ns: Namespace, body: FormObject): StripeObject {
    const url = required(body, 'url');
    if (!/^https?:\/\//.test(url)) throw invalidRequest('Invalid URL: must be an http(s) URL', 'url_invalid', 'url');
    const events = Array.isArray(body.enabled_events) ? (body.enabled_events as string[]) : [];
    if (events.length === 0) throw invalidRequest('Missing required param: enabled_events.', 'parameter_missing', 'enabled_events');
    for (const [i, type] of events.entries()) {
      if (type !== '*' && !KNOWN_EVENT_TYPES.has(type)) throw invalidRequest(`Invalid enabled_events[${i}]: must be one of the supported event types`, 'parameter_invalid_string', `enabled_events[${i}]`);
    }
    return this.createObject(ns, 'we', 'webhook_endpoint', { url, enabled_events: events, status: 'enabled', description: str(body.description), metadata: obj(body.metadata), api_version: str(body.api_version), secret: `whsec_${randomBytes(24).toString('hex')}` });
  }

  private createPrice(ns: Namespace, body: FormObject): StripeObject {
    const product = required(body, 'product');
    this.require(ns, product, 'product');
    const recurring = body.recurring && typeof body.recurring === 'object' ? (body.recurring as FormObject) : null;
    const unitAmount = body.unit_amount !== undefined ? integer(body, 'unit_amount') : null;
    const unitAmountDecimal = str(body.unit_amount_decimal);
    if (unitAmountDecimal !== null && !/^\d+(\.\d{1,12})?$/.test(unitAmountDecimal)) throw invalidRequest('Invalid decimal: unit_amount_decimal allows at most 12 decimal places.', 'parameter_invalid_decimal', 'unit_amount_decimal');
    const tiered = body.billing_scheme === 'tiered';
    // Meter-based prices (API 2025-03-31 and later): usage_type=metered needs the meter it bills.
    const meter = str(recurring?.meter);
    if (recurring?.usage_type === 'metered') {
      if (!meter) throw invalidRequest('Missing required param: recurring[meter].', 'parameter_missing', 'recurring[meter]');
      this.require(ns, meter, 'billing.meter');
    }
    const tiers = tiered ? (Array.isArray(body.tiers) ? (body.tiers as FormObject[]) : []) : null;
    if (tiers !== null) {
      if (tiers.length === 0 || tiers.at(-1)!.up_to !== 'inf') throw invalidRequest('The last tier must have up_to=inf.', 'parameter_invalid_empty', 'tiers');
      if (body.tiers_mode !== 'graduated' && body.tiers_mode !== 'volume') throw invalidRequest('Missing required param: tiers_mode.', 'parameter_missing', 'tiers_mode');
    }
    if (unitAmount === null && unitAmountDecimal === null && !tiered) throw invalidRequest('Missing required param: unit_amount.', 'parameter_missing', 'unit_amount');
    return this.createObject(ns, 'price', 'price', {
      product, currency: required(body, 'currency').toLowerCase(), unit_amount: unitAmount, unit_amount_decimal: unitAmountDecimal ?? (unitAmount === null ? null : String(unitAmount)),
      billing_scheme: tiered ? 'tiered' : 'per_unit', tiers_mode: tiered ? str(body.tiers_mode) : null,
      tiers: tiers?.map((t) => ({ up_to: t.up_to === 'inf' ? null : Number(t.up_to), unit_amount_decimal: str(t.unit_amount_decimal), flat_amount_decimal: str(t.flat_amount_decimal) })) ?? null,
      recurring: recurring ? { interval: required(recurring, 'interval'), interval_count: recurring.interval_count ? Number(recurring.interval_count) : 1, usage_type: str(recurring.usage_type) ?? 'licensed', meter } : null,
      type: recurring ? 'recurring' : 'one_time', active: true, lookup_key: str(body.lookup_key), nickname: str(body.nickname), metadata: obj(body.metadata),
    });
  }

  private createSubscriptionRoute(ns: Namespace, body: FormObject): [number, unknown] {
    const customer = required(body, 'customer');
    this.require(ns, customer, 'customer');
    const items = Array.isArray(body.items) ? (body.items as FormObject[]).map((i) => ({ price: required(i, 'price'), quantity: i.quantity === undefined ? 1 : integer(i, 'quantity'), quantitySet: i.quantity !== undefined })) : [];
    if (items.length === 0) throw invalidRequest('Missing required param: items.', 'parameter_missing', 'items');
    for (const [i, item] of items.entries()) {
      const metered = (this.require(ns, item.price, 'price').recurring as { usage_type?: string } | null)?.usage_type === 'metered';
      if (metered && item.quantitySet) throw invalidRequest('Quantity should not be specified where usage_type is `metered`. Remove quantity from `items[' + i + ']`.', 'parameter_unknown', `items[${i}][quantity]`);
    }
    const pm = this.chargeMethod(ns, str(body.default_payment_method), customer);
    if (!pm) throw invalidRequest('This customer has no attached payment source or default payment method. Please consider adding a default payment method.', 'resource_missing');
    const card = ns.cards.get(pm.id) ?? 'ok';
    const behaviour = str(body.payment_behavior) ?? 'allow_incomplete';
    if (card !== 'ok' && behaviour === 'error_if_incomplete') {
      return [402, { error: cardError(card, null, pm) }];
    }
    const { subscription } = this.createSubscription(ns, { customer, items, metadata: obj(body.metadata) as Record<string, string>, paymentMethod: pm.id, card });
    return [200, subscription];
  }

  /** Creates a subscription with its first invoice, paid when the card works; queues Stripe's events. */
  private createSubscription(ns: Namespace, input: { customer: string; items: { price: string; quantity: number }[]; metadata: Record<string, string>; paymentMethod: string; card?: Card }) {
    const start = this.created();
    const prices = input.items.map((i) => ({ price: this.require(ns, i.price, 'price'), quantity: i.quantity }));
    const first = prices[0]!.price.recurring as { interval: string; interval_count: number } | null;
    const end = addInterval(start, first?.interval ?? 'month', first?.interval_count ?? 1);
    const subscription = this.createObject(ns, 'sub', 'subscription', {
      customer: input.customer, status: 'incomplete', metadata: input.metadata, cancel_at_period_end: false, canceled_at: null, ended_at: null,
      default_payment_method: input.paymentMethod, latest_invoice: null,
      items: { object: 'list', data: prices.map((p) => ({ id: newId('si'), object: 'subscription_item', price: p.price, quantity: p.quantity, current_period_start: start, current_period_end: end })) },
    });
    const licensed = prices.filter((p) => (p.price.recurring as { usage_type?: string } | null)?.usage_type !== 'metered');
    const amount = licensed.reduce((sum, p) => sum + ((p.price.unit_amount as number | null) ?? 0) * p.quantity, 0);
    const invoice = this.createObject(ns, 'in', 'invoice', {
      customer: input.customer, status: 'draft', currency: prices[0]!.price.currency, amount_due: amount, amount_paid: 0, amount_remaining: amount, total: amount, subtotal: amount,
      collection_method: 'charge_automatically', hosted_invoice_url: null, metadata: {}, period_start: start, period_end: start, billing_reason: 'subscription_create',
      parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id, metadata: input.metadata } },
      lines: { object: 'list', data: licensed.map((p) => ({ id: newId('il'), object: 'line_item', amount: ((p.price.unit_amount as number | null) ?? 0) * p.quantity, currency: p.price.currency, quantity: p.quantity, pricing: { price_details: { price: p.price.id, product: p.price.product } }, period: { start, end } })) },
    });
    subscription.latest_invoice = invoice.id;
    this.emit(ns, 'customer.subscription.created', subscription);
    this.emit(ns, 'invoice.created', invoice);
    Object.assign(invoice, { status: 'open', hosted_invoice_url: `${this.baseUrl}/i/${invoice.id}` });
    this.emit(ns, 'invoice.finalized', invoice);
    if ((input.card ?? ns.cards.get(input.paymentMethod) ?? 'ok') === 'ok') {
      this.settleInvoice(ns, invoice);
      subscription.status = 'active';
      this.emit(ns, 'customer.subscription.updated', subscription);
    } else {
      this.emit(ns, 'invoice.payment_failed', invoice);
    }
    return { subscription, invoice };
  }

  /**
   * Cancel at period end (or undo), metadata, and item prices. A price change with
   * `proration_behavior=always_invoice` invoices the prorated difference for the rest of the period
   * at once and charges it; with `payment_behavior=pending_if_incomplete` a failed charge leaves the
   * items as they were (`pending_update` set, the invoice open), as Stripe does. `none` (or
   * `create_prorations`, not invoiced here) only changes the price for the next period.
   */
  private updateSubscription(ns: Namespace, id: string, body: FormObject): StripeObject {
    const subscription = this.require(ns, id, 'subscription');
    if (subscription.status === 'canceled') throw invalidRequest('A canceled subscription can only update its cancellation_details and metadata.');
    if (body.cancel_at_period_end !== undefined) subscription.cancel_at_period_end = body.cancel_at_period_end === 'true';
    if (body.metadata !== undefined) subscription.metadata = { ...(subscription.metadata as object), ...obj(body.metadata) };
    if (Array.isArray(body.items)) {
      const data = (subscription.items as { data: Record<string, unknown>[] }).data;
      const before = data.map((d) => ({ ...d }));
      let difference = 0;
      for (const item of body.items as FormObject[]) {
        const existing = data.find((d) => d.id === item.id);
        const price = this.require(ns, required(item, 'price'), 'price');
        if (existing) {
          difference += ((price.unit_amount as number | null) ?? 0) - (((existing.price as StripeObject).unit_amount as number | null) ?? 0);
          existing.price = price;
        } else data.push({ id: newId('si'), object: 'subscription_item', price, quantity: 1, current_period_start: data[0]?.current_period_start, current_period_end: data[0]?.current_period_end });
      }
      if (body.proration_behavior === 'always_invoice' && difference !== 0) {
        const paid = this.invoiceProration(ns, subscription, difference, 'subscription_update');
        if (!paid && body.payment_behavior === 'pending_if_incomplete') {
          (subscription.items as { data: Record<string, unknown>[] }).data = before;
          subscription.pending_update = { subscription_items: body.items, expires_at: this.created() + 23 * 3600 };
          return subscription;
        }
      }
    }
    subscription.pending_update = null;
    this.emit(ns, 'customer.subscription.updated', subscription);
    return subscription;
  }

  /**
   * A prorated invoice for `difference` (minor units per period) over the rest of the current
   * period, finalized and collected (charged to the default method when positive; a credit is
   * settled at once). Returns whether it was paid.
   */
  private invoiceProration(ns: Namespace, subscription: StripeObject, difference: number, reason: string): boolean {
    const item = (subscription.items as { data: Record<string, unknown>[] }).data[0]!;
    const start = item.current_period_start as number;
    const end = item.current_period_end as number;
    const now = Math.min(Math.max(this.created(), start), end);
    const amount = Math.round((difference * (end - now)) / Math.max(1, end - start));
    const currency = (item.price as StripeObject).currency as string;
    const invoice = this.createObject(ns, 'in', 'invoice', {
      customer: subscription.customer, status: 'draft', currency, amount_due: Math.max(0, amount), amount_paid: 0, amount_remaining: Math.max(0, amount), total: amount, subtotal: amount,
      collection_method: 'charge_automatically', hosted_invoice_url: null, metadata: {}, period_start: now, period_end: now, billing_reason: reason, created: this.created(),
      parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id, metadata: subscription.metadata } },
      lines: { object: 'list', data: [{ id: newId('il'), object: 'line_item', amount, currency, quantity: 1, description: amount < 0 ? 'Unused time (proration)' : 'Remaining time (proration)', pricing: { price_details: { price: (item.price as StripeObject).id, product: (item.price as StripeObject).product } }, period: { start: now, end } }] },
    });
    subscription.latest_invoice = invoice.id;
    this.emit(ns, 'invoice.created', invoice);
    Object.assign(invoice, { status: 'open', hosted_invoice_url: `${this.baseUrl}/i/${invoice.id}` });
    this.emit(ns, 'invoice.finalized', invoice);
    const pm = subscription.default_payment_method as string | null;
    if (amount <= 0 || (pm && (ns.cards.get(pm) ?? 'ok') === 'ok')) {
      this.settleInvoice(ns, invoice);
      return true;
    }
    this.emit(ns, 'invoice.payment_failed', invoice);
    return false;
  }

  /** Cancels now; with `prorate` and `invoice_now`, a final invoice credits the unused part of the period. */
  private cancelSubscription(ns: Namespace, id: string, body: FormObject = {}): StripeObject {
    const subscription = this.require(ns, id, 'subscription');
    if (subscription.status === 'canceled') throw invalidRequest(`No such subscription: '${id}'`, 'resource_missing', 'id');
    if (body.prorate === 'true' && body.invoice_now === 'true') {
      const licensed = (subscription.items as { data: { price: StripeObject }[] }).data.filter((i) => (i.price.recurring as { usage_type?: string } | null)?.usage_type !== 'metered');
      const price = licensed.reduce((sum, i) => sum + ((i.price.unit_amount as number | null) ?? 0), 0);
      if (price > 0) this.invoiceProration(ns, subscription, -price, 'subscription_cancel');
    }
    Object.assign(subscription, { status: 'canceled', canceled_at: this.created(), ended_at: this.created() });
    this.emit(ns, 'customer.subscription.deleted', subscription);
    return subscription;
  }

  private createInvoice(ns: Namespace, body: FormObject): StripeObject {
    const customer = required(body, 'customer');
    this.require(ns, customer, 'customer');
    // Pending invoice items join a new invoice only when asked (Stripe's default is 'exclude').
    const pending = body.pending_invoice_items_behavior === 'include'
      ? [...ns.objects.values()].filter((o) => o.object === 'invoiceitem' && o.customer === customer && o.invoice === null)
      : [];
    const invoice = this.createObject(ns, 'in', 'invoice', {
      customer, status: 'draft', currency: (str(body.currency) ?? (pending[0]?.currency as string | undefined) ?? 'usd').toLowerCase(), amount_due: 0, amount_paid: 0, amount_remaining: 0, total: 0, subtotal: 0,
      collection_method: str(body.collection_method) ?? 'charge_automatically', days_until_due: body.days_until_due ? Number(body.days_until_due) : null,
      hosted_invoice_url: null, description: str(body.description), metadata: obj(body.metadata), period_start: this.created(), period_end: this.created(), parent: null, billing_reason: 'manual',
      lines: { object: 'list', data: [] },
    });
    for (const item of pending) this.addInvoiceLine(invoice, item);
    this.emit(ns, 'invoice.created', invoice);
    return invoice;
  }

  private createInvoiceItem(ns: Namespace, body: FormObject): StripeObject {
    const customer = required(body, 'customer');
    this.require(ns, customer, 'customer');
    const invoiceId = str(body.invoice);
    const item = this.createObject(ns, 'ii', 'invoiceitem', { customer, invoice: invoiceId, amount: integer(body, 'amount'), currency: required(body, 'currency').toLowerCase(), description: str(body.description), metadata: obj(body.metadata) });
    if (invoiceId) {
      const invoice = this.require(ns, invoiceId, 'invoice');
      if (invoice.status !== 'draft') throw invalidRequest('You can only add invoice items to draft invoices.', 'invoice_not_editable');
      this.addInvoiceLine(invoice, item);
    }
    return item;
  }

  private addInvoiceLine(invoice: StripeObject, item: StripeObject) {
    item.invoice = invoice.id;
    (invoice.lines as { data: unknown[] }).data.push({ id: newId('il'), object: 'line_item', amount: item.amount, currency: item.currency, description: item.description, invoice_item: item.id });
    const total = (invoice.total as number) + (item.amount as number);
    Object.assign(invoice, { total, subtotal: total, amount_due: total, amount_remaining: total });
  }

  private finalizeInvoice(ns: Namespace, id: string): StripeObject {
    const invoice = this.require(ns, id, 'invoice');
    if (invoice.status !== 'draft') throw invalidRequest(`This invoice is already finalized, you can't re-finalize a non-draft invoice.`, 'invoice_not_editable');
    Object.assign(invoice, { status: 'open', hosted_invoice_url: `${this.baseUrl}/i/${id}` });
    this.emit(ns, 'invoice.finalized', invoice);
    return invoice;
  }

  private voidInvoice(ns: Namespace, id: string): StripeObject {
    const invoice = this.require(ns, id, 'invoice');
    if (invoice.status !== 'open') throw invalidRequest('You can only void open invoices.', 'invoice_not_open');
    invoice.status = 'void';
    this.emit(ns, 'invoice.voided', invoice);
    return invoice;
  }

  private markUncollectible(ns: Namespace, id: string): StripeObject {
    const invoice = this.require(ns, id, 'invoice');
    if (invoice.status !== 'open') throw invalidRequest('You can only mark open invoices as uncollectible.', 'invoice_not_open');
    invoice.status = 'uncollectible';
    this.emit(ns, 'invoice.marked_uncollectible', invoice);
    return invoice;
  }

  /** Marks an invoice paid; Stripe then sends both `invoice.paid` and `invoice.payment_succeeded`. */
  private settleInvoice(ns: Namespace, invoice: StripeObject) {
    Object.assign(invoice, { status: 'paid', amount_paid: invoice.amount_due, amount_remaining: 0 });
    this.emit(ns, 'invoice.paid', invoice);
    this.emit(ns, 'invoice.payment_succeeded', invoice);
  }

  private createMeterEvent(ns: Namespace, body: FormObject): StripeObject {
    const eventName = required(body, 'event_name');
    if (![...ns.objects.values()].some((o) => o.object === 'billing.meter' && o.event_name === eventName)) {
      throw invalidRequest(`No active meter found for event_name '${eventName}'`, 'resource_missing', 'event_name');
    }
    const payload = obj(body.payload);
    if (!payload.stripe_customer_id) throw invalidRequest('Missing required param: payload[stripe_customer_id].', 'parameter_missing', 'payload');
    if (payload.value === undefined || !/^\d+$/.test(String(payload.value))) throw invalidRequest('payload[value] must be a non-negative integer.', 'parameter_invalid_integer', 'payload[value]');
    const identifier = str(body.identifier) ?? newId('mev');
    if (ns.meterEvents.some((e) => e.identifier === identifier)) throw invalidRequest(`An event already exists with identifier ${identifier}.`, 'resource_already_exists', 'identifier');
    const event: StripeObject = { id: identifier, object: 'billing.meter_event', event_name: eventName, identifier, payload, timestamp: body.timestamp ? Number(body.timestamp) : this.created(), livemode: ns.livemode, created: this.created() };
    ns.meterEvents.push(event);
    return event;
  }

  private emitCreated(ns: Namespace, type: string, object: StripeObject): StripeObject {
    this.emit(ns, type, object);
    return object;
  }

  private emit(ns: Namespace, type: string, object: StripeObject): StripeObject {
    const event: StripeObject = {
      id: newId('evt'), object: 'event', api_version: '2026-10-28.endive', created: this.created(), livemode: ns.livemode,
      pending_webhooks: 1, request: { id: null, idempotency_key: null }, type,
      // A snapshot: later changes to the object do not rewrite events already sent.
      data: { object: JSON.parse(JSON.stringify(object)) as unknown },
    };
    ns.queue.push(event);
    return event;
  }
}

class StripeError extends Error {
  constructor(readonly status: number, readonly body: Record<string, unknown>) {
    super(String(body.message));
  }
}

function invalidRequest(message: string, code?: string, param?: string): StripeError {
  return new StripeError(400, { type: 'invalid_request_error', message, ...(code ? { code } : {}), ...(param ? { param } : {}) });
}

function cardError(card: Exclude<Card, 'ok'>, intent: StripeObject | null, pm: StripeObject) {
  const base = { type: 'card_error', payment_method: { id: pm.id, object: 'payment_method', type: 'card' }, ...(intent ? { payment_intent: { id: intent.id, object: 'payment_intent', status: 'requires_payment_method' } } : {}) };
  if (card === 'authentication_required') {
    return { ...base, code: 'authentication_required', decline_code: 'authentication_required', message: 'This payment requires authentication.', doc_url: 'https://docs.stripe.com/error-codes/authentication-required' };
  }
  const declineCode = card === 'insufficient_funds' ? 'insufficient_funds' : 'generic_decline';
  return { ...base, code: 'card_declined', decline_code: declineCode, message: card === 'insufficient_funds' ? 'Your card has insufficient funds.' : 'Your card was declined.', doc_url: 'https://docs.stripe.com/error-codes/card-declined' };
}

/** Stripe's minimum charge, in the currency's smallest unit: 50 (USD $0.50, EUR €0.50, JPY ¥50). */
function minimumAmount(_currency: string): number {
  return 50;
}

function addInterval(start: number, interval: string, count: number): number {
  const date = new Date(start * 1000);
  if (interval === 'year') date.setUTCFullYear(date.getUTCFullYear() + count);
  else if (interval === 'month') date.setUTCMonth(date.getUTCMonth() + count);
  else if (interval === 'week') date.setUTCDate(date.getUTCDate() + 7 * count);
  else date.setUTCDate(date.getUTCDate() + count);
  return Math.floor(date.getTime() / 1000);
}

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
}

function matches(pattern: string | RegExp, path: string): boolean {
  return typeof pattern === 'string' ? path.startsWith(pattern) : pattern.test(path);
}

function str(value: FormValue | undefined): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function obj(value: FormValue | undefined): Record<string, string> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
}

function required(body: FormObject, name: string): string {
  const value = str(body[name]);
  if (value === null) throw invalidRequest(`Missing required param: ${name}.`, 'parameter_missing', name);
  return value;
}

function integer(body: FormObject, name: string): number {
  const value = required(body, name);
  if (!/^-?\d+$/.test(value)) throw invalidRequest(`Invalid integer: ${value}`, 'parameter_invalid_integer', name);
  return Number(value);
}

function listOf(data: unknown[], url: string) {
  return { object: 'list', data, has_more: false, url };
}

function withoutSecret(endpoint: StripeObject) {
  const { secret: _secret, ...rest } = endpoint;
  return rest;
}

function notFoundRoute(method: string, path: string): [number, unknown] {
  return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}). (Stripe fake: not implemented)` } }];
}

function maskKey(key: string): string {
  return key.length > 8 ? `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}` : '****';
}

function bearer(header: string | undefined): string | null {
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match ? match[1]! : null;
}

function send(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req'), ...headers });
  res.end(JSON.stringify(payload));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
