import type { VendorClient, VendorClientOptions } from './types.js';

/** CURSOR client (vendor-apis.md). Not built yet: the vendor-clients work fills this in. */
export function createCursorClient(_options: VendorClientOptions): VendorClient {
  throw new Error('The CURSOR client is not built yet');
}
