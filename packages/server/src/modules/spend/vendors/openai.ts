import { bearerHttp, bucketRows, countOf, cursorPages, errorMessageOf, exactOf, type VendorHttp } from './http.js';
import { assertUsd, centsOfDollars, dayInWindow } from './units.js';
import { VendorError, type CostRow, type DayWindow, type UsageRow, type VendorClient, type VendorClientOptions } from './types.js';

/**
 * OpenAI Administration API client (vendor-apis.md §2): completions usage in daily buckets grouped by
 * project, user, API key and model (cached input split out of `input_tokens`), and costs grouped by
 * project and line item, in dollars → exact cents. Costs carry no model, so `model` is null there.
 * The project is stored as the workspace and the user as the actor.
 */
const VENDOR = 'OpenAI';
/** Daily buckets per page: the usage endpoint's maximum for bucket_width=1d (costs allow 180). */
const BUCKETS_PER_PAGE = 31;

type Bucket<R> = { start_time: unknown; end_time?: unknown; results?: R[] };
type CompletionsResult = {
  input_tokens?: unknown;
  input_cached_tokens?: unknown;
  input_cache_write_tokens?: unknown;
  output_tokens?: unknown;
  num_model_requests?: unknown;
  project_id?: string | null;
  user_id?: string | null;
  api_key_id?: string | null;
  model?: string | null;
};
type CostsResult = {
  amount?: { value?: unknown; currency?: string | null } | null;
  line_item?: string | null;
  project_id?: string | null;
};

export function createOpenAiClient(options: VendorClientOptions): VendorClient {
  const http = bearerHttp(options, VENDOR, errorMessageOf);
  return {
    provider: 'OPENAI',
    async probe() {
      await http.exact({ path: '/v1/organization/projects', query: { limit: 1 } });
    },
    async pull(window) {
      if (window.from >= window.to) return { usage: [], costs: [], actors: [] };
      const usage = await pullUsage(http, window);
      const costs = await pullCosts(http, window);
      return { usage, costs, actors: [] };
    },
  };
}

/** Every daily bucket of a report over the window, grouped by `groupBy` (cursor-paged). */
function dailyBuckets<R>(http: VendorHttp, window: DayWindow, path: string, groupBy: string[]): Promise<Bucket<R>[]> {
  return cursorPages<Bucket<R>>(http, VENDOR, {
    path,
    query: { start_time: unixOf(window.from), end_time: unixOf(window.to), bucket_width: '1d', group_by: groupBy, limit: BUCKETS_PER_PAGE },
  });
}

async function pullUsage(http: VendorHttp, window: DayWindow): Promise<UsageRow[]> {
  const buckets = await dailyBuckets<CompletionsResult>(http, window, '/v1/organization/usage/completions', ['project_id', 'user_id', 'api_key_id', 'model']);
  return bucketRows(buckets, (b) => dayOf(b.start_time, window), (r, day): UsageRow => {
    const input = countOf(r.input_tokens, VENDOR, 'input_tokens');
    const cached = countOf(r.input_cached_tokens, VENDOR, 'input_cached_tokens');
    const cacheWrite = countOf(r.input_cache_write_tokens, VENDOR, 'input_cache_write_tokens');
    // input_tokens counts every input token, cached and cache-written included (§2.2).
    const uncached = input - cached - cacheWrite;
    if (uncached < 0n) throw new VendorError(`${VENDOR} reported more cached than total input tokens (${cached + cacheWrite} > ${input})`);
    return {
      day,
      model: r.model ?? '',
      workspaceId: r.project_id ?? '',
      apiKeyId: r.api_key_id ?? '',
      actor: r.user_id ?? '',
      serviceTier: '',
      uncachedInputTokens: uncached,
      cacheReadTokens: cached,
      cacheWrite5mTokens: cacheWrite,
      cacheWrite1hTokens: 0n,
      outputTokens: countOf(r.output_tokens, VENDOR, 'output_tokens'),
      requests: countOf(r.num_model_requests, VENDOR, 'num_model_requests'),
      vendorCostCents: null,
    };
  });
}

async function pullCosts(http: VendorHttp, window: DayWindow): Promise<CostRow[]> {
  const buckets = await dailyBuckets<CostsResult>(http, window, '/v1/organization/costs', ['project_id', 'line_item']);
  return bucketRows(buckets, (b) => dayOf(b.start_time, window), (r, day): CostRow => {
    assertUsd(VENDOR, r.amount?.currency);
    const dollars = exactOf(r.amount?.value, VENDOR, 'amount.value');
    if (dollars === null) throw new VendorError(`${VENDOR} sent a cost line without an amount`);
    return {
      day,
      workspaceId: r.project_id ?? '',
      model: null,
      description: r.line_item ?? '',
      costType: null,
      amountCents: centsOfDollars(dollars),
    };
  });
}

function unixOf(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / 1000;
}

/** The UTC day a bucket starts on (Unix seconds), or null when it falls outside the window. */
function dayOf(startTime: unknown, window: DayWindow): string | null {
  const seconds = Number(countOf(startTime, VENDOR, 'bucket start_time'));
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) throw new VendorError(`${VENDOR} sent a bucket starting at ${seconds}`);
  return dayInWindow(date, window);
}
