import type { SpendProvider } from '../../../platform/db/tables.js';
import { createAnthropicClient } from './anthropic.js';
import { createCopilotClient } from './copilot.js';
import { createCursorClient } from './cursor.js';
import { createLiteLlmClient } from './litellm.js';
import { createOpenAiClient } from './openai.js';
import type { VendorClient, VendorClientOptions } from './types.js';
import { PROVIDERS } from '../providers.js';

export * from './types.js';

/** The client for a provider (one small module per vendor; vendor-apis.md §1–5). */
export function vendorClient(provider: SpendProvider, options: VendorClientOptions): VendorClient {
  switch (provider) {
    case 'ANTHROPIC':
      return createAnthropicClient(options);
    case 'OPENAI':
      return createOpenAiClient(options);
    case 'CURSOR':
      return createCursorClient(options);
    case 'COPILOT':
      return createCopilotClient(options);
    case 'LITELLM':
      return createLiteLlmClient(options);
  }
}

/** Largest sync chunk per provider in days (contract §7.2: 31; Cursor 30; the registry's `chunkDays`). */
export function chunkDaysOf(provider: SpendProvider): number {
  return PROVIDERS[provider].chunkDays;
}
