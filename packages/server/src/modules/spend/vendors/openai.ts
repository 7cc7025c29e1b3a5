import type { VendorClient, VendorClientOptions } from './types.js';

/** OPENAI client (vendor-apis.md). Not built yet: the vendor-clients work fills this in. */
export function createOpenAiClient(_options: VendorClientOptions): VendorClient {
  throw new Error('The OPENAI client is not built yet');
}
