import type { Decimal } from '../../../platform/money.js';
import type { SpendProvider } from '../tables.js';

/**
 * What every vendor client returns, in one internal shape (contract §7, vendor-apis.md §1–5).
 * Days are 'YYYY-MM-DD' UTC; windows are [from, to). Token counts are bigint, money is cents as an
 * exact Decimal (Anthropic sends cents as decimal strings, OpenAI and LiteLLM dollars, Cursor
 * fractional cents): each client converts its vendor's unit with `dec()`, never through a float.
 * '' / null in a dimension means the vendor did not report it.
 */
export type DayWindow = { from: string; to: string };

/** One daily usage bucket (spend_usage_buckets). Rows with the same key are summed by the sync. */
export type UsageRow = {
  day: string;
  model: string;
  workspaceId: string;
  apiKeyId: string;
  actor: string;
  serviceTier: string;
  uncachedInputTokens: bigint;
  cacheReadTokens: bigint;
  cacheWrite5mTokens: bigint;
  cacheWrite1hTokens: bigint;
  outputTokens: bigint;
  /** null: the vendor reports no request count (Anthropic). */
  requests: bigint | null;
  /** The vendor's price for this very row where it gives one (LiteLLM); else null. */
  vendorCostCents: Decimal | null;
};

/** One vendor cost line (spend_vendor_costs): Anthropic cost report, OpenAI costs. */
export type CostRow = {
  day: string;
  workspaceId: string;
  /** null: the line is not attributable to a model (OpenAI line items, code execution). */
  model: string | null;
  description: string;
  costType: string | null;
  amountCents: Decimal;
};

/** Coding-assistant per-person daily metrics (spend_actor_metrics); null = not reported. */
export type ActorMetricRow = {
  day: string;
  actor: string;
  tool: string;
  model: string;
  uncachedInputTokens: bigint | null;
  cacheReadTokens: bigint | null;
  cacheWriteTokens: bigint | null;
  outputTokens: bigint | null;
  totalTokens: bigint | null;
  sessions: bigint | null;
  requests: bigint | null;
  linesAdded: bigint | null;
  linesRemoved: bigint | null;
  accepted: bigint | null;
  rejected: bigint | null;
  commits: bigint | null;
  pullRequests: bigint | null;
  creditsUsed: Decimal | null;
  vendorCostCents: Decimal | null;
};

export type VendorPull = { usage: UsageRow[]; costs: CostRow[]; actors: ActorMetricRow[] };

/** Everything a client needs to talk to one connection's vendor. */
export type VendorClientOptions = {
  /** Origin without trailing slash (config.spend.*BaseUrl; LiteLLM: the connection's scope). */
  baseUrl: string;
  adminKey: string;
  /** COPILOT: the GitHub organisation; LITELLM: the proxy URL; else null. */
  scope: string | null;
  timeoutMs: number;
  maxRetries: number;
  /** Passed to fetch as `dispatcher` (the outbound-URL guard's connection-time check, DNS rebinding). */
  dispatcher?: unknown;
  /** Waits between retries; tests pass a fast one. Default: setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** Told of every attempt's outcome (its HTTP status, or 'error' without an answer): the runtime's outbound metrics. */
  onAnswer?: (status: number | 'error') => void;
};

export interface VendorClient {
  readonly provider: SpendProvider;
  /** One cheap authenticated call; resolves when the vendor accepts the key, else throws VendorError. */
  probe(): Promise<void>;
  /** Everything the vendor reports for the window, all pages fetched. Throws VendorError on refusal. */
  pull(window: DayWindow): Promise<VendorPull>;
}

/** A vendor refused or failed a call. `message` is the vendor's own message (never a raw body). */
export class VendorError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'VendorError';
  }
}
