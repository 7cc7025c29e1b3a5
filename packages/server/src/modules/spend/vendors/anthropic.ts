import type { VendorClient, VendorClientOptions } from './types.js';

/** ANTHROPIC client (vendor-apis.md). Not built yet: the vendor-clients work fills this in. */
export function createAnthropicClient(_options: VendorClientOptions): VendorClient {
  throw new Error('The ANTHROPIC client is not built yet');
}
