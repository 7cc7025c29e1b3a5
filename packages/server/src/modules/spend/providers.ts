import type { Config } from '../../config.js';

/** What the module needs to know of a vendor besides its client (vendors/<vendor>.ts). */
type ProviderEntry = {
  /** The `vendor` label of the outbound-call metric. */
  metricName: string;
  /** Largest sync chunk in days (contract §7.2: 31; Cursor 30). */
  chunkDays: number;
  /** What the connection's scope means, for vendors that need one (named in the "needs a scope" message); null: no scope, stored null. */
  scopeMeaning: string | null;
  /** The operator's configured origin (`config.spend`), or null when the connection's scope is the origin (LiteLLM's proxy URL). */
  baseUrlKey: BaseUrlKey | null;
};

/** A configured vendor origin of `config.spend` (`APP_SPEND_<VENDOR>_BASE_URL`): the names derive from the configuration's type. */
export type BaseUrlKey = Extract<keyof Config['spend'], `${string}BaseUrl`>;

/**
 * The one registry of spend vendors. `SpendProvider` and every provider enum, list and per-vendor
 * table of the module are derived from it, so a request schema cannot silently refuse a vendor the
 * rest accepts. A new vendor is an entry here, its client in vendors/ (`vendorClient`), a fake, a
 * migration widening the provider check, and a test.
 */
export const PROVIDERS = {
  ANTHROPIC: { metricName: 'anthropic', chunkDays: 31, scopeMeaning: null, baseUrlKey: 'anthropicBaseUrl' },
  OPENAI: { metricName: 'openai', chunkDays: 31, scopeMeaning: null, baseUrlKey: 'openaiBaseUrl' },
  CURSOR: { metricName: 'cursor', chunkDays: 30, scopeMeaning: null, baseUrlKey: 'cursorBaseUrl' },
  COPILOT: { metricName: 'copilot', chunkDays: 31, scopeMeaning: 'the GitHub organisation', baseUrlKey: 'githubBaseUrl' },
  LITELLM: { metricName: 'litellm', chunkDays: 31, scopeMeaning: 'the proxy base URL, e.g. https://litellm.example.com', baseUrlKey: null },
} as const satisfies Record<string, ProviderEntry>;

/** A spend vendor: a key of the registry (tables.ts' `provider` columns use this type too). */
export type SpendProvider = keyof typeof PROVIDERS;

/** Every provider, in the registry's order (the order of the API's provider enums). */
export const SPEND_PROVIDERS = Object.keys(PROVIDERS) as [SpendProvider, ...SpendProvider[]];

/** A connection's origin: the operator's configured one, else (LiteLLM) the connection's scope. */
export function baseUrlOf(spend: Config['spend'], provider: SpendProvider, scope: string | null): string {
  const key = PROVIDERS[provider].baseUrlKey;
  return key === null ? (scope ?? '') : spend[key];
}
