import type { monetization } from '../../factories.js';
import { startTestService, type TestService } from '../../harness.js';
import { StripeFake } from './server.js';

/**
 * A test service whose Stripe SDK talks to a fresh fake on 127.0.0.1 (the fake's clock is the
 * service's frozen clock, so webhook signatures are dated as the service sees time). The SDK does
 * not retry, so a test sees each injected failure.
 */
export async function startServiceWithStripe(env: Record<string, string> = {}): Promise<{ svc: TestService; fake: StripeFake; close(): Promise<void> }> {
  // The fake starts first (the service needs its address); it reads the service's clock once it exists.
  const started: { svc?: TestService } = {};
  const fake = await StripeFake.start({ now: () => started.svc!.clock.now() });
  const svc = await startTestService({ env: { APP_STRIPE_API_BASE: fake.baseUrl, APP_STRIPE_MAX_NETWORK_RETRIES: '0', ...env } });
  started.svc = svc;
  return {
    svc,
    fake,
    async close() {
      await svc.close();
      await fake.close();
    },
  };
}

/** Connects an account to the fake: stores the key, registers the webhook, sets the processor mode. */
export async function connectStripe(m: ReturnType<typeof monetization>, secretKey: string, stripeMode: string): Promise<void> {
  await m.expectOk(m.api('POST', '/api/v1/data/stripe/api', { clientStripeApiKey: secretKey }), 201);
  await m.expectOk(m.api('POST', '/api/v1/data/stripe/webhook/register'), 201);
  await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { stripeMode }));
}
