import type { SpendProvider } from '../tables.js';
import { createAnthropicClient } from './anthropic.js';
import { createCopilotClient } from './copilot.js';
import { createCursorClient } from './cursor.js';
import { createLiteLlmClient } from './litellm.js';
import { createOpenAiClient } from './openai.js';
import type { VendorClient, VendorClientOptions } from './types.js';
import { PROVIDERS } from '../providers.js';

export * from './types.js';

/**
 * Each provider's client factory (one small module per vendor; vendor-apis.md §1–5). Keyed by the
 * registry's providers: a provider without a client, or a client without a provider, fails the typecheck.
 */
const CLIENTS = {
  ANTHROPIC: createAnthropicClient,
  OPENAI: createOpenAiClient,
  CURSOR: createCursorClient,
  COPILOT: createCopilotClient,
  LITELLM: createLiteLlmClient,
} as const satisfies Record<keyof typeof PROVIDERS, (options: VendorClientOptions) => VendorClient>;

/** The client for a provider. */
export function vendorClient(provider: SpendProvider, options: VendorClientOptions): VendorClient {
  return CLIENTS[provider](options);
}

/** Largest sync chunk per provider in days (contract §7.2: 31; Cursor 30; the registry's `chunkDays`). */
export function chunkDaysOf(provider: SpendProvider): number {
  return PROVIDERS[provider].chunkDays;
}
