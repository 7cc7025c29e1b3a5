import Stripe from 'stripe';
import type { Config } from '../../config.js';
import type { Metrics } from '../../platform/metrics.js';

/**
 * The official Stripe SDK, one client per secret key, pointed at APP_STRIPE_API_BASE (tests: the
 * fake on 127.0.0.1). A client holds no account state, only its key and connection settings, so
 * keeping one per key is safe on every node. The SDK retries network errors, 409 and 5xx itself,
 * reusing the request's idempotency key, so a retry never charges twice.
 */
const clientsByRuntime = new WeakMap<Pick<Metrics, 'outboundCall'>, Map<string, Stripe>>();

/** The client for this key; each runtime (its metrics) keeps its own, whose answers count in its `/metrics`. */
export function stripeClient(config: Config, secretKey: string, metrics: Pick<Metrics, 'outboundCall'>): Stripe {
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

/** What the processor said when it refused a call, for a 502 `vendor_error` or a decline reason. */
export function processorMessage(err: unknown): string {
  if (err instanceof Stripe.errors.StripeError) return err.message || err.type;
  return err instanceof Error ? err.message : String(err);
}

export const isCardError = (err: unknown): err is Stripe.errors.StripeCardError => err instanceof Stripe.errors.StripeCardError;
export const isAuthenticationError = (err: unknown): err is Stripe.errors.StripeAuthenticationError => err instanceof Stripe.errors.StripeAuthenticationError;
