import assert from 'node:assert/strict';
import { after, before, beforeEach } from 'node:test';
import { VendorError, type VendorClientOptions } from '../../../src/modules/spend/vendors/types.js';
import type { HttpFake } from './http-fake.js';

/**
 * A vendor client's tests against its loopback fake: the fake started once for the suite and reset
 * before each test, and `client(overrides)` built on it (the fake's key, 2 s timeout, 3 retries)
 * with instant retry waits recorded in `waits`. Call inside `describe`. Test code only.
 */
export function loopbackSuite<F extends HttpFake & { key: string; reset(): void }, C extends { probe(): Promise<void> }>(
  start: () => Promise<F>,
  create: (options: VendorClientOptions) => C,
  scopeOf: (fake: F) => string | null,
) {
  const suite = {
    fake: undefined as unknown as F,
    waits: [] as number[],
    client(overrides: Partial<VendorClientOptions> = {}): C {
      return create({
        baseUrl: suite.fake.url, adminKey: suite.fake.key, scope: scopeOf(suite.fake), timeoutMs: 2000, maxRetries: 3,
        sleep: async (waitMs) => void suite.waits.push(waitMs), ...overrides,
      });
    },
    /** The request a probe sends (path, query and headers as the fake saw them). */
    async probeRequest() {
      await suite.client().probe();
      return suite.fake.requests.at(-1)!;
    },
  };
  before(async () => {
    suite.fake = await start();
  });
  after(() => suite.fake.close());
  beforeEach(() => {
    suite.fake.reset();
    suite.waits = [];
  });
  return suite;
}

/** The VendorError a call is refused with (fails the test when it succeeds or throws anything else). */
export async function vendorRefusal(call: Promise<unknown>): Promise<VendorError> {
  const err = await call.then(() => null, (e: unknown) => e);
  assert.ok(err instanceof VendorError, `expected a VendorError, got ${String(err)}`);
  return err;
}
