/**
 * The client for a customer-scoped key (`ck_…`), `Tally.forCustomer(key, { baseUrl })`: only the
 * routes the service opens to customer keys (contract §2.6; the server's test
 * `customer-key-allow-list.test.ts` lists them): the customer's own entitlements, usage events
 * (single, batched, metered), credit pools and reservations, purchases, subscribe and its own
 * subscriptions. Other customers, the catalog and admin have no method here, and the service
 * answers 403/404 to a key that tries them by hand.
 *
 * A payment the customer must complete in a browser (402 `payment_required` with a hosted
 * checkout) is a result, `{ status: 'checkout', checkoutUrl, … }`, not an error: hand the URL to
 * the person and poll `checkoutSession(id)`.
 */
import type { BatchOptions } from './batcher.js';
import { TallyError, TallyPaymentRequiredError } from './errors.js';
import type { EventResult, TrackEvent, TrackOptions } from './events.js';
import { meter, type MeterContext, type MeterOptions, type MeterResult, type MeterUsage } from './meter.js';
import { Tally, type CallOptions, type CheckOptions, type CreateReservationInput, type MutationOptions } from './tally.js';
import type { TransportOptions } from './transport.js';
import type { DecimalInput, OperationBody, OperationData, PageQuery } from './types.js';

export type CustomerClientOptions = Omit<TransportOptions, 'apiKey' | 'bearerToken'> & {
  /** The key's own customer reference: needed by the routes that name it in their path (entitlement list, usage, pools …). */
  customerReferenceId?: string;
  /** Buffer `track` calls and send them through the batch route (README "Batching"). */
  batch?: BatchOptions;
};

/** A 402 answer: the payment needs the person at a hosted page. */
export type CheckoutRequired = {
  status: 'checkout';
  checkoutUrl: string;
  /** Poll it with `checkoutSession(id)`: PENDING until paid. */
  checkoutSessionId: string;
  declineReason?: string;
  /** The whole 402 payload (the purchase's amount, the pending subscription and invoice …). */
  data: Record<string, unknown>;
};

/** The call went through without the person. */
export type Completed<T> = { status: 'completed'; data: T };

/**
 * Reads a 402 `payment_required` as a checkout result. A 402 without a checkout (no processor
 * connected) stays an error: there is nothing for the person to do.
 */
export function checkoutOf(err: unknown): CheckoutRequired | undefined {
  if (!(err instanceof TallyPaymentRequiredError) || err.checkoutUrl === undefined) return undefined;
  const data = err.data as Record<string, unknown>;
  return {
    status: 'checkout',
    checkoutUrl: err.checkoutUrl,
    checkoutSessionId: String(data.checkoutSessionId),
    ...(typeof data.declineReason === 'string' ? { declineReason: data.declineReason } : {}),
    data,
  };
}

async function orCheckout<T>(call: () => Promise<T>): Promise<Completed<T> | CheckoutRequired> {
  try {
    return { status: 'completed', data: await call() };
  } catch (err) {
    const checkout = checkoutOf(err);
    if (checkout) return checkout;
    throw err;
  }
}

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

  /** Current-period usage and projections. */
  async usage(options?: CallOptions): Promise<OperationData<'getUsageReport'>> {
    return this.#tally.customers.usage(await this.#own(), options);
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
