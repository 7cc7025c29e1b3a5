import type { VendorClient, VendorClientOptions } from './types.js';

/** COPILOT client (vendor-apis.md). Not built yet: the vendor-clients work fills this in. */
export function createCopilotClient(_options: VendorClientOptions): VendorClient {
  throw new Error('The COPILOT client is not built yet');
}
