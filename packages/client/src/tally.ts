/**
 * The ergonomic layer: `new Tally({ apiKey, baseUrl })`, then `check` → your call → `track`, and the
 * Client API by resource (`customers`, `subscriptions`, `credits`, `entitlements`, `catalog`,
 * `billing`, `outcomes`). Every call goes through one `Transport` (./transport.ts); every answer is
 * typed from the generated document with amounts as decimal strings (./types.ts); failures are the
 * typed errors of ./errors.ts.
 *
 * Retry safety: reads are retried; every mutating helper sends an `Idempotency-Key` made once per
 * call (or the caller's `idempotencyKey`) and reused on every attempt, so the service runs it once
 * and replays its answer to a retry. `track` uses the event's own `eventIdempotencyKey` for both.
 * `check` is retried too: it writes only the check's log entry, and its `flowId` (made here once)
 * makes a `reserve: true` hold idempotent.
 */
import { Batcher, type BatchOptions } from './batcher.js';
import { orCheckout, type CustomerClientOptions } from './customer.js';
import { TallyError } from './errors.js';
import { DirectEvents, type EventResult, type EventSink, type TrackEvent, type TrackOptions } from './events.js';
import { meter, type MeterContext, type MeterOptions, type MeterResult, type MeterUsage } from './meter.js';
import { encodePath, newIdempotencyKey, Transport, type TransportOptions } from './transport.js';
import { Billing, Outcomes } from './billing.js';
import { caller, page, split, type Call, type CallOptions, type MutationOptions } from './calls.js';
import type { DecimalInput, OperationBody, OperationData, OperationQuery, PageQuery } from './types.js';

export type { CallOptions, MutationOptions } from './calls.js';
export { Billing, Outcomes } from './billing.js';

export type TallyOptions = TransportOptions & {
  /** Where `track` sends events; default: each alone, unbuffered (`DirectEvents`). */
  events?: EventSink;
  /** Buffer `track` and send through the batch route (a `Batcher`; README "Batching"). Ignored when `events` is given. */
  batch?: BatchOptions;
};

export type CheckOptions = CallOptions & {
  /** Proposed units (default 1). */
  units?: DecimalInput;
  /** The AI model, for the credit quote's weight. */
  model?: string | null;
  /** Hold the quoted credits under `flowId` until the event of the same flow captures them. */
  reserve?: boolean;
  /** Default: a fresh UUID, returned as `flowId`; send it with the event. */
  flowId?: string;
  eventName?: string;
  meta?: Record<string, unknown>;
};

export type Entitlement = OperationData<'evaluateEntitlement'>;
/** Window (ISO 8601 timestamps, half-open), feature and page of `usageEvents`. */
export type UsageEventsQuery = PageQuery & { from?: string; to?: string; featureKey?: string };
/** Window (required, at most 366 days) and filters of `usageHistory`. */
export type UsageHistoryQuery = { from: string; to: string; featureKey?: string; subscriptionId?: string };

/** `POST /api/v1/client/customers` (the generated body is a union the generator cannot name). */
export type CreateCustomerInput = {
  customerReferenceId: string;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  phoneNumber?: string | null;
  address?: string | null;
};

/** `POST /api/v1/client/subscriptions`: `planId` (uuid or key) or `planKey`. */
export type CreateSubscriptionInput = {
  /** Required with a tenant key. */
  customerReferenceId?: string;
  planId?: string;
  planKey?: string;
  paymentMethodId?: string;
  gracePeriod?: number;
};

export type CreateReservationInput = Omit<OperationBody<'createCreditReservation'>, 'idempotencyKey'> & {
  /** Default: a fresh UUID per call (also sent as `Idempotency-Key`). */
  idempotencyKey?: string;
};

export class Tally {
  readonly transport: Transport;
  /** The sink `track` delegates to; swap it for a batching one. */
  events: EventSink;
  readonly entitlements: Entitlements;
  readonly customers: Customers;
  readonly subscriptions: Subscriptions;
  readonly credits: Credits;
  readonly catalog: Catalog;
  readonly billing: Billing;
  readonly outcomes: Outcomes;

  constructor(options: TallyOptions) {
    const { events, batch, ...transport } = options;
    this.transport = new Transport(transport);
    this.events = events ?? (batch ? new Batcher(this.transport, batch) : new DirectEvents(this.transport));
    const call = caller(this.transport);
    this.entitlements = new Entitlements(call);
    this.customers = new Customers(call);
    this.subscriptions = new Subscriptions(call);
    this.credits = new Credits(call);
    this.catalog = new Catalog(call);
    this.billing = new Billing(call);
    this.outcomes = new Outcomes(call);
  }

  /**
   * Is `customer` entitled to `feature` for `units` (of `model`)? A denial is `allowed: false` with
   * `meta.reason`, never an error. With `reserve: true` the quoted credits are held under `flowId`.
   */
  check(customer: string, feature: string, options: CheckOptions = {}): Promise<Entitlement> {
    return this.entitlements.evaluate({ customerReferenceId: customer, featureKey: feature, ...options });
  }

  /** A client for a customer key (`ck_…`) with only the routes such a key may call (./customer.ts). */
  static forCustomer(customerKey: string, options: CustomerClientOptions): TallyCustomer {
    return new TallyCustomer(customerKey, options);
  }

  /**
   * The metering loop for a streaming call (./meter.ts): hold the estimate, run `callback`, report
   * its units under the same flow (capturing the hold); a throw releases the hold, a denial never
   * runs the callback.
   */
  meter<T = undefined>(customer: string, feature: string, options: MeterOptions, callback: (ctx: MeterContext) => Promise<DecimalInput | MeterUsage<T>>): Promise<MeterResult<T>> {
    return meter(this.transport, customer, feature, options, callback);
  }

  /** Reports a usage event through `events` (its `eventIdempotencyKey` made once when absent). */
  track(event: TrackEvent, options?: TrackOptions): Promise<EventResult> {
    return this.events.track(event, options);
  }

  /** Sends what `events` buffers (a no-op unbuffered). */
  async flush(options?: { timeoutMs?: number }): Promise<void> {
    await this.events.flush?.(options);
  }

  /** Flushes and closes `events`; call on shutdown. */
  async close(options?: { timeoutMs?: number }): Promise<void> {
    await this.events.close?.(options);
  }
}


export class Entitlements {
  constructor(private readonly call: Call) {}

  /** `POST /entitlements`: entitlement, limit simulation and credit quote for proposed usage (retried; see the file's note). */
  evaluate(input: { customerReferenceId?: string; featureKey: string } & CheckOptions): Promise<Entitlement> {
    const [{ customerReferenceId, featureKey, units, model, reserve, flowId, eventName, meta }, o] = split(input);
    const body = {
      ...(customerReferenceId === undefined ? {} : { customerReferenceId }),
      featureKey,
      usage: { usageUnits: units ?? 1, ...(model === undefined ? {} : { model }), ...(eventName ? { eventName } : {}), ...(meta ? { meta } : {}) },
      ...(reserve ? { reserve: true } : {}),
      context: { flowId: flowId ?? newIdempotencyKey() },
    };
    return this.call('POST', '/api/v1/client/entitlements', { body, retry: true, ...o });
  }

  /** `GET /entitlements/{ref}/{featureKey}`: entitled now? (`record: false` skips the check's log entry). */
  get(customer: string, feature: string, options: CallOptions & { record?: boolean } = {}): Promise<OperationData<'checkEntitlement'>> {
    const [{ record }, o] = split(options);
    return this.call('GET', encodePath`/api/v1/client/entitlements/${customer}/${feature}`, { query: { record }, ...o });
  }

  /** The customer's entitlements per active subscription. */
  list(customer: string, options: CallOptions & PageQuery = {}): Promise<OperationData<'listCustomerEntitlements'>> {
    const [q, o] = split(options);
    return this.call('GET', encodePath`/api/v1/client/entitlements/${customer}`, { query: page(q), ...o });
  }
}

export class Customers {
  readonly keys: CustomerKeys;
  readonly paymentMethods: PaymentMethods;

  constructor(private readonly call: Call) {
    this.keys = new CustomerKeys(call);
    this.paymentMethods = new PaymentMethods(call);
  }

  create(input: CreateCustomerInput, options?: MutationOptions): Promise<OperationData<'createCustomer'>> {
    return this.call('POST', '/api/v1/client/customers', { body: input, ...options });
  }

  list(options: CallOptions & PageQuery & { customerReferenceId?: string } = {}): Promise<OperationData<'listCustomers'>> {
    const [{ customerReferenceId, ...q }, o] = split(options);
    return this.call('GET', '/api/v1/client/customers', { query: { ...page(q), customerReferenceId }, ...o });
  }

  /** A customer with its subscriptions. */
  get(customer: string, options?: CallOptions): Promise<OperationData<'getCustomer'>> {
    return this.call('GET', encodePath`/api/v1/client/customers/${customer}`, options);
  }

  /** Updates only the fields sent. */
  update(customer: string, patch: OperationBody<'updateCustomer'>, options?: MutationOptions): Promise<OperationData<'updateCustomer'>> {
    return this.call('PATCH', encodePath`/api/v1/client/customers/${customer}`, { body: patch, ...options });
  }

  /** The agent status: provisional / claimed / expired, limits, what is left, the key's spend, the owner and the spend mandate. */
  status(customer: string, options?: CallOptions): Promise<OperationData<'getAgentStatus'>> {
    return this.call('GET', encodePath`/api/v1/client/customers/${customer}/status`, options);
  }

  /** Nominates the customer's owner (its principal's e-mail); answers the status. Idempotent. */
  setOwner(customer: string, email: string, options?: MutationOptions): Promise<OperationData<'setAgentOwner'>> {
    return this.call('PUT', encodePath`/api/v1/client/customers/${customer}/owner`, { body: { email }, ...options });
  }

  /** Asks the principal for a spend mandate: `pending` with the page to hand over, or `unavailable`. */
  requestSpendMandate(customer: string, input: OperationBody<'requestSpendMandate'>, options?: MutationOptions): Promise<OperationData<'requestSpendMandate'>> {
    return this.call('POST', encodePath`/api/v1/client/customers/${customer}/spend-mandate`, { body: input, ...options });
  }

  /** Current-period usage and projections (burndown). */
  usage(customer: string, options?: CallOptions): Promise<OperationData<'getUsageReport'>> {
    return this.call('GET', encodePath`/api/v1/client/customers/${customer}/usage`, options);
  }

  /** The customer's recorded usage events in `[from, to)` (default: the last 90 days), newest first, paged. */
  usageEvents(customer: string, options: CallOptions & UsageEventsQuery = {}): Promise<OperationData<'listCustomerUsageEvents'>> {
    const [q, o] = split(options);
    return this.call('GET', encodePath`/api/v1/client/customers/${customer}/usage/events`, { query: { ...page(q), from: q.from, to: q.to, featureKey: q.featureKey }, ...o });
  }

  /** The customer's recorded usage in `[from, to)` summed per subscription, feature and event name. */
  usageHistory(customer: string, options: CallOptions & UsageHistoryQuery): Promise<OperationData<'getCustomerUsageHistory'>> {
    const [q, o] = split(options);
    return this.call('GET', encodePath`/api/v1/client/customers/${customer}/usage/history`, { query: { from: q.from, to: q.to, featureKey: q.featureKey, subscriptionId: q.subscriptionId }, ...o });
  }
}

export class CustomerKeys {
  constructor(private readonly call: Call) {}

  /** Issues a customer key (`ck_…`); its plaintext is in this answer only. */
  create(customer: string, input: OperationBody<'createCustomerKey'> = {}, options?: MutationOptions): Promise<OperationData<'createCustomerKey'>> {
    return this.call('POST', encodePath`/api/v1/client/customers/${customer}/keys`, { body: input, ...options });
  }

  list(customer: string, options: CallOptions & PageQuery = {}): Promise<OperationData<'listCustomerKeys'>> {
    const [q, o] = split(options);
    return this.call('GET', encodePath`/api/v1/client/customers/${customer}/keys`, { query: page(q), ...o });
  }

  rotate(customer: string, keyId: string, options?: MutationOptions): Promise<OperationData<'rotateCustomerKey'>> {
    return this.call('POST', encodePath`/api/v1/client/customers/${customer}/keys/${keyId}/rotate`, options);
  }

  revoke(customer: string, keyId: string, options?: MutationOptions): Promise<OperationData<'revokeCustomerKey'>> {
    return this.call('DELETE', encodePath`/api/v1/client/customers/${customer}/keys/${keyId}`, options);
  }

  /** The key's budget and what it spent in the current window (api-contract-agent-v2.md §2.3); a customer key may read its own. */
  budget(customer: string, keyId: string, options?: CallOptions): Promise<OperationData<'getCustomerKeyBudget'>> {
    return this.call('GET', encodePath`/api/v1/client/customers/${customer}/keys/${keyId}/budget`, options);
  }

  /** Sets the key's budget (both limits replaced; an axis left out is unlimited). Tenant key only. */
  setBudget(customer: string, keyId: string, input: OperationBody<'setCustomerKeyBudget'>, options?: MutationOptions): Promise<OperationData<'setCustomerKeyBudget'>> {
    return this.call('PUT', encodePath`/api/v1/client/customers/${customer}/keys/${keyId}/budget`, { body: input, ...options });
  }

  /** Removes the key's budget (also when it had none). Tenant key only. */
  clearBudget(customer: string, keyId: string, options?: MutationOptions): Promise<OperationData<'clearCustomerKeyBudget'>> {
    return this.call('DELETE', encodePath`/api/v1/client/customers/${customer}/keys/${keyId}/budget`, options);
  }
}

export class PaymentMethods {
  constructor(private readonly call: Call) {}

  /** A Stripe setup intent the principal confirms with Stripe directly. */
  setupIntent(customer: string, options?: MutationOptions): Promise<OperationData<'createSetupIntent'>> {
    return this.call('POST', encodePath`/api/v1/client/customers/${customer}/payment-methods/setup-intent`, options);
  }

  setDefault(customer: string, paymentMethodId: string, options?: MutationOptions): Promise<OperationData<'setDefaultPaymentMethod'>> {
    return this.call('POST', encodePath`/api/v1/client/customers/${customer}/payment-methods/default`, { body: { paymentMethodId }, ...options });
  }
}

export class Subscriptions {
  constructor(private readonly call: Call) {}

  /** Subscribes a customer to an ACTIVE plan (a DUE invoice is raised for paid plans). */
  create(input: CreateSubscriptionInput, options?: MutationOptions): Promise<OperationData<'createSubscription'>> {
    return this.call('POST', '/api/v1/client/subscriptions', { body: input, ...options });
  }

  /** Cancels at period end (default) or immediately. */
  cancel(subscriptionId: string, options: MutationOptions & { mode?: NonNullable<OperationQuery<'cancelSubscription'>['cancelMode']> } = {}): Promise<OperationData<'cancelSubscription'>> {
    const { mode, ...o } = options;
    return this.call('POST', encodePath`/api/v1/client/subscriptions/cancellation/${subscriptionId}`, { query: { cancelMode: mode }, ...o });
  }

  /** Undoes a scheduled end-of-period cancellation. */
  undoCancellation(subscriptionId: string, options?: MutationOptions): Promise<OperationData<'undoSubscriptionCancellation'>> {
    return this.call('DELETE', encodePath`/api/v1/client/subscriptions/cancellation/${subscriptionId}/scheduled`, options);
  }

  /** Upgrades now (prorated) or downgrades at period end. */
  changePlan(subscriptionId: string, input: OperationBody<'changeSubscriptionPlan'>, options?: MutationOptions): Promise<OperationData<'changeSubscriptionPlan'>> {
    return this.call('POST', encodePath`/api/v1/client/subscriptions/${subscriptionId}/plan-change`, { body: input, ...options });
  }

  cancelScheduledPlanChange(subscriptionId: string, options?: MutationOptions): Promise<OperationData<'cancelScheduledPlanChange'>> {
    return this.call('DELETE', encodePath`/api/v1/client/subscriptions/${subscriptionId}/plan-change/scheduled`, options);
  }
}

export class Credits {
  readonly reservations: Reservations;

  constructor(private readonly call: Call) {
    this.reservations = new Reservations(call);
  }

  /** The price in effect now per priced denomination. */
  prices(options: CallOptions & PageQuery = {}): Promise<OperationData<'listCurrentCreditPrices'>> {
    const [q, o] = split(options);
    return this.call('GET', '/api/v1/client/credits/prices', { query: page(q), ...o });
  }

  /** The customer's pools, with their balances. */
  pools(customer: string, options: CallOptions & PageQuery = {}): Promise<OperationData<'listCustomerCreditPools'>> {
    const [q, o] = split(options);
    return this.call('GET', encodePath`/api/v1/client/credits/${customer}/pools`, { query: page(q), ...o });
  }

  pool(customer: string, poolId: string, options?: CallOptions): Promise<OperationData<'getCustomerCreditPool'>> {
    return this.call('GET', encodePath`/api/v1/client/credits/${customer}/pools/${poolId}`, options);
  }

  grants(customer: string, poolId: string, options: CallOptions & PageQuery = {}): Promise<OperationData<'listCustomerCreditGrants'>> {
    const [q, o] = split(options);
    return this.call('GET', encodePath`/api/v1/client/credits/${customer}/pools/${poolId}/grants`, { query: page(q), ...o });
  }

  /** A pool's ledger, oldest first. */
  ledger(customer: string, poolId: string, options: CallOptions & PageQuery = {}): Promise<OperationData<'listCustomerCreditTransactions'>> {
    const [q, o] = split(options);
    return this.call('GET', encodePath`/api/v1/client/credits/${customer}/pools/${poolId}/transactions`, { query: page(q), ...o });
  }

  /** Buys credits at the book price: charged off-session, or `TallyPaymentRequiredError` with `checkoutUrl`. */
  purchase(input: OperationBody<'purchaseCredits'>, options?: MutationOptions): Promise<OperationData<'purchaseCredits'>> {
    return this.call('POST', '/api/v1/client/credits/purchases', { body: input, ...options });
  }

  /** The pool's auto top-up rule with its derived `state` (404 `not_found` when it has none). */
  autoTopup(customer: string, poolId: string, options?: CallOptions): Promise<OperationData<'getAutoTopupRule'>> {
    return this.call('GET', encodePath`/api/v1/client/credits/${customer}/pools/${poolId}/auto-topup`, options);
  }

  /** Creates or replaces the pool's auto top-up rule (the whole rule every time). */
  setAutoTopup(customer: string, poolId: string, rule: OperationBody<'putAutoTopupRule'>, options?: MutationOptions): Promise<OperationData<'putAutoTopupRule'>> {
    return this.call('PUT', encodePath`/api/v1/client/credits/${customer}/pools/${poolId}/auto-topup`, { body: rule, ...options });
  }

  /** Removes the pool's auto top-up rule (idempotent); attempts stay listed. */
  deleteAutoTopup(customer: string, poolId: string, options?: MutationOptions): Promise<OperationData<'deleteAutoTopupRule'>> {
    return this.call('DELETE', encodePath`/api/v1/client/credits/${customer}/pools/${poolId}/auto-topup`, options);
  }

  /** The pool's auto top-up attempts, newest first. */
  autoTopupAttempts(customer: string, poolId: string, options: CallOptions & PageQuery = {}): Promise<OperationData<'listAutoTopupAttempts'>> {
    const [q, o] = split(options);
    return this.call('GET', encodePath`/api/v1/client/credits/${customer}/pools/${poolId}/auto-topup/attempts`, { query: page(q), ...o });
  }

  /** A hosted checkout: PENDING until paid (COMPLETED) or expired. */
  checkoutSession(checkoutSessionId: string, options?: CallOptions): Promise<OperationData<'getCheckoutSession'>> {
    return this.call('GET', encodePath`/api/v1/client/checkout-sessions/${checkoutSessionId}`, options);
  }
}

export class Reservations {
  constructor(private readonly call: Call) {}

  /** Holds `amount` credits of `denomination` (its `idempotencyKey` made once per call when absent). */
  hold(input: CreateReservationInput, options?: CallOptions): Promise<OperationData<'createCreditReservation'>> {
    const body = { ...input, idempotencyKey: input.idempotencyKey ?? newIdempotencyKey() };
    return this.call('POST', '/api/v1/client/credits/reservations', { body, idempotencyKey: body.idempotencyKey, ...options });
  }

  get(reservationId: string, options?: CallOptions): Promise<OperationData<'getCreditReservation'>> {
    return this.call('GET', encodePath`/api/v1/client/credits/reservations/${reservationId}`, options);
  }

  /** Captures the actual credits and releases the rest (an excess is drawn as far as the pools go). */
  capture(reservationId: string, amount: DecimalInput, options?: MutationOptions): Promise<OperationData<'captureCreditReservation'>> {
    return this.call('POST', encodePath`/api/v1/client/credits/reservations/${reservationId}/capture`, { body: { amount }, ...options });
  }

  /** Releases the hold without consuming anything. */
  release(reservationId: string, options?: MutationOptions): Promise<OperationData<'releaseCreditReservation'>> {
    return this.call('POST', encodePath`/api/v1/client/credits/reservations/${reservationId}/release`, options);
  }
}

export class Catalog {
  constructor(private readonly call: Call) {}

  /** ACTIVE plans with their features. */
  plans(options: CallOptions & PageQuery = {}): Promise<OperationData<'listCatalogPlans'>> {
    const [q, o] = split(options);
    return this.call('GET', '/api/v1/client/plans', { query: page(q), ...o });
  }

  features(options: CallOptions & PageQuery = {}): Promise<OperationData<'listCatalogFeatures'>> {
    const [q, o] = split(options);
    return this.call('GET', '/api/v1/client/features', { query: page(q), ...o });
  }

  feature(featureKey: string, options?: CallOptions): Promise<OperationData<'getCatalogFeature'>> {
    return this.call('GET', encodePath`/api/v1/client/features/${featureKey}`, options);
  }
}

/** The client for a customer-scoped key (`ck_…`): the routes such a key may call, see ./customer.ts. */
export class TallyCustomer {
  /** The tenant-shaped client underneath, kept private: its other routes are closed to this key. */
  readonly #tally: Tally;
  readonly #ref: string | undefined;

  constructor(customerKey: string, options: CustomerClientOptions) {
    const { customerReferenceId, ...rest } = options;
    this.#tally = new Tally({ ...rest, apiKey: customerKey });
    this.#ref = customerReferenceId;
  }

  /** The reference for routes that name the customer; rejects (before any call) when not given. */
  #own = async (): Promise<string> => {
    if (this.#ref === undefined) throw new TallyError('customer_reference_required', 'Give forCustomer(key, { customerReferenceId }) to call routes that name the customer');
    return this.#ref;
  };

  /** Evaluates a proposed use of the feature. A denial is `allowed: false`, never an error. */
  check(featureKey: string, options: CheckOptions = {}): Promise<OperationData<'evaluateEntitlement'>> {
    return this.#tally.entitlements.evaluate({ featureKey, ...options });
  }

  readonly entitlements = {
    /** The customer's entitlements per active subscription. */
    list: async (options: CallOptions & PageQuery = {}) => this.#tally.entitlements.list(await this.#own(), options),
    /** Is the customer entitled to the feature now? */
    get: async (featureKey: string, options: CallOptions & { record?: boolean } = {}) => this.#tally.entitlements.get(await this.#own(), featureKey, options),
  };

  /**
   * Reports a usage event of the key's own customer (any `customerReferenceId` is ignored by the
   * service). With `batch` options it is buffered and resolves with its per-event result.
   */
  track(event: Omit<TrackEvent, 'customerReferenceId'>, options?: TrackOptions): Promise<EventResult> {
    return this.#tally.track(event, options);
  }

  /** Sends every buffered event and waits for their answers (a no-op without batching). */
  flush(options?: { timeoutMs?: number }): Promise<void> {
    return this.#tally.flush(options);
  }

  /** Flushes and stops taking events; call on shutdown. */
  close(options?: { timeoutMs?: number }): Promise<void> {
    return this.#tally.close(options);
  }

  /** The metering loop for a streaming call (README "Streaming calls"). */
  meter<T = undefined>(featureKey: string, options: MeterOptions, callback: (ctx: MeterContext) => Promise<DecimalInput | MeterUsage<T>>): Promise<MeterResult<T>> {
    return meter(this.#tally.transport, undefined, featureKey, options, callback);
  }

  /** The customer with its subscriptions. */
  async customer(options?: CallOptions): Promise<OperationData<'getCustomer'>> {
    return this.#tally.customers.get(await this.#own(), options);
  }

  /** The agent status of the key's own customer (provisional until paid; its expiry; limits, spend, mandate). */
  async status(options?: CallOptions): Promise<OperationData<'getAgentStatus'>> {
    return this.#tally.customers.status(await this.#own(), options);
  }

  /** Nominates the owner (the principal's e-mail) of the key's own customer. */
  async setOwner(email: string, options?: MutationOptions): Promise<OperationData<'setAgentOwner'>> {
    return this.#tally.customers.setOwner(await this.#own(), email, options);
  }

  /** Asks the principal for a spend mandate (purchase scope): hand `setup_url` to the person when `pending`. */
  async requestSpendMandate(input: OperationBody<'requestSpendMandate'>, options?: MutationOptions): Promise<OperationData<'requestSpendMandate'>> {
    return this.#tally.customers.requestSpendMandate(await this.#own(), input, options);
  }

  /** Current-period usage and projections. */
  async usage(options?: CallOptions): Promise<OperationData<'getUsageReport'>> {
    return this.#tally.customers.usage(await this.#own(), options);
  }

  /** The key's own recorded usage events (default: the last 90 days), newest first, paged. */
  async usageEvents(options: CallOptions & UsageEventsQuery = {}): Promise<OperationData<'listCustomerUsageEvents'>> {
    return this.#tally.customers.usageEvents(await this.#own(), options);
  }

  /** The key's own recorded usage in `[from, to)` summed per subscription, feature and event name. */
  async usageHistory(options: CallOptions & UsageHistoryQuery): Promise<OperationData<'getCustomerUsageHistory'>> {
    return this.#tally.customers.usageHistory(await this.#own(), options);
  }

  readonly credits = {
    prices: (options?: CallOptions & PageQuery) => this.#tally.credits.prices(options),
    pools: async (options?: CallOptions & PageQuery) => this.#tally.credits.pools(await this.#own(), options),
    pool: async (poolId: string, options?: CallOptions) => this.#tally.credits.pool(await this.#own(), poolId, options),
    grants: async (poolId: string, options?: CallOptions & PageQuery) => this.#tally.credits.grants(await this.#own(), poolId, options),
    ledger: async (poolId: string, options?: CallOptions & PageQuery) => this.#tally.credits.ledger(await this.#own(), poolId, options),
    /** Buys credits (purchase scope): charged off-session (`completed`), or `checkout` for the person. */
    purchase: (input: Omit<OperationBody<'purchaseCredits'>, 'customerReferenceId'>, options?: MutationOptions) =>
      orCheckout(() => this.#tally.credits.purchase(input, options)),
    reservations: {
      hold: (input: Omit<CreateReservationInput, 'customerReferenceId'>, options?: CallOptions) => this.#tally.credits.reservations.hold(input, options),
      get: (reservationId: string, options?: CallOptions) => this.#tally.credits.reservations.get(reservationId, options),
      capture: (reservationId: string, amount: DecimalInput, options?: MutationOptions) => this.#tally.credits.reservations.capture(reservationId, amount, options),
      release: (reservationId: string, options?: MutationOptions) => this.#tally.credits.reservations.release(reservationId, options),
    },
  };

  /** Subscribes the customer to an ACTIVE plan (purchase scope); a paid plan without a saved card answers `checkout`. */
  subscribe(input: { planId?: string; planKey?: string; paymentMethodId?: string; gracePeriod?: number }, options?: MutationOptions) {
    return orCheckout(() => this.#tally.subscriptions.create(input, options));
  }

  readonly subscriptions = {
    cancel: (subscriptionId: string, options?: Parameters<Tally['subscriptions']['cancel']>[1]) => this.#tally.subscriptions.cancel(subscriptionId, options),
    undoCancellation: (subscriptionId: string, options?: MutationOptions) => this.#tally.subscriptions.undoCancellation(subscriptionId, options),
    /** Upgrade now (prorated) or downgrade at period end (purchase scope). */
    changePlan: (subscriptionId: string, input: OperationBody<'changeSubscriptionPlan'>, options?: MutationOptions) => this.#tally.subscriptions.changePlan(subscriptionId, input, options),
    cancelScheduledPlanChange: (subscriptionId: string, options?: MutationOptions) => this.#tally.subscriptions.cancelScheduledPlanChange(subscriptionId, options),
  };

  readonly paymentMethods = {
    /** Start saving a card (purchase scope). */
    setupIntent: async (options?: MutationOptions) => this.#tally.customers.paymentMethods.setupIntent(await this.#own(), options),
    setDefault: async (paymentMethodId: string, options?: MutationOptions) => this.#tally.customers.paymentMethods.setDefault(await this.#own(), paymentMethodId, options),
  };

  /** A hosted checkout's state: PENDING until paid (COMPLETED) or expired. */
  checkoutSession(checkoutSessionId: string, options?: CallOptions): Promise<OperationData<'getCheckoutSession'>> {
    return this.#tally.credits.checkoutSession(checkoutSessionId, options);
  }
}
