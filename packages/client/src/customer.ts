/**
 * The options and results of the client for a customer-scoped key (`ck_…`, `TallyCustomer` in
 * ./tally.ts, made by `Tally.forCustomer(key, { baseUrl })`): only the
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
import { TallyPaymentRequiredError } from './errors.js';
import type { TransportOptions } from './transport.js';

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

export async function orCheckout<T>(call: () => Promise<T>): Promise<Completed<T> | CheckoutRequired> {
  try {
    return { status: 'completed', data: await call() };
  } catch (err) {
    const checkout = checkoutOf(err);
    if (checkout) return checkout;
    throw err;
  }
}
