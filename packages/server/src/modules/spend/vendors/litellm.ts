import type { VendorClient, VendorClientOptions } from './types.js';

/** LITELLM client (vendor-apis.md). Not built yet: the vendor-clients work fills this in. */
export function createLiteLlmClient(_options: VendorClientOptions): VendorClient {
  throw new Error('The LITELLM client is not built yet');
}
