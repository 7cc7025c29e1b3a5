import type { Decimal } from '../../../src/platform/money.js';
import {
  addDays,
  arrayParam,
  DAY_MS,
  dayOfMs,
  decOf,
  exactJson,
  FailureQueue,
  msOfDay,
  offsetOf,
  pageToken,
  sum,
  type Amount,
  type Failure,
} from './fake-kit.js';
import { startHttpFake, type FakeRequest, type FakeResponse, type HttpFake } from './http-fake.js';

/**
 * Loopback fake of the OpenAI Administration API (vendor-apis.md §2), for tests only.
 *
 * Serves the real paths: `GET /v1/organization/projects` (probe), `/v1/organization/usage/completions`
 * and `/v1/organization/costs`. Every call needs `Authorization: Bearer <accepted key>` (else 401 with
 * OpenAI's `{error:{message,type,param,code}}` body). Reports page like the real API (`limit` in
 * buckets, opaque `next_page`, `has_more`; the first bucket starts at `start_time`, the others at UTC
 * midnight; empty ones have `results: []`), aggregate seeded rows by `group_by` (repeated keys, or
 * `group_by[]`) and set non-grouped dimensions to null. Cost values go out as JSON number lexemes of
 * DOLLARS exactly as seeded (`0.1` stays `0.1`), or as strings with `amountsAsStrings`.
 *
 * ```ts
 * const fake = await startOpenAiFake();                    // accepts OPENAI_FAKE_KEY
 * const seeded = fake.seedDays({ from: '2026-09-01', days: 30 });
 * // point the service at it: env APP_SPEND_OPENAI_BASE_URL = fake.url, adminKey OPENAI_FAKE_KEY
 * fake.failNext(1, { status: 429, retryAfter: '1' });
 * fake.refuseKey();                                          // every call now answers 401 invalid_api_key
 * await fake.close();
 * ```
 */
export const OPENAI_FAKE_KEY = 'sk-admin-fake-0000-0000-key1';

export type OpenAiUsageSeed = {
  day: string;
  model: string;
  projectId?: string | null;
  userId?: string | null;
  apiKeyId?: string | null;
  batch?: boolean;
  serviceTier?: string;
  /** ALL input tokens, cached and cache-written included (as OpenAI counts them). */
  inputTokens?: Amount;
  cachedTokens?: Amount;
  cacheWriteTokens?: Amount;
  outputTokens?: Amount;
  requests?: Amount;
};

export type OpenAiCostSeed = {
  day: string;
  projectId?: string | null;
  apiKeyId?: string | null;
  /** e.g. 'gpt-5-mini-2025-08-07, input'. */
  lineItem: string;
  /** DOLLARS, as a decimal string so the lexeme is exact ('0.1'). */
  amountDollars: Amount;
  quantity?: Amount;
  quantityUnit?: string;
};

export type OpenAiSeedDaysOptions = {
  from: string;
  days: number;
  models?: string[];
  projects?: string[];
};

export type OpenAiFakeOptions = {
  /** The accepted admin key (default OPENAI_FAKE_KEY). */
  adminKey?: string;
  /** Cap on buckets per page, below the client's `limit`. */
  pageSize?: number;
  /** Send `amount.value` as a string (seen in third-party fixtures) instead of a number. */
  amountsAsStrings?: boolean;
};

export type OpenAiFake = HttpFake & {
  usage: OpenAiUsageSeed[];
  costs: OpenAiCostSeed[];
  addUsage(...rows: OpenAiUsageSeed[]): void;
  addCosts(...rows: OpenAiCostSeed[]): void;
  /** Deterministic traffic for every day of [from, from + days): usage rows and input/output cost lines. Returns what it added. */
  seedDays(options: OpenAiSeedDaysOptions): { usage: OpenAiUsageSeed[]; costs: OpenAiCostSeed[] };
  clearData(): void;
  /** The next `count` matching calls answer `status` (default 429) with OpenAI's error body and optional Retry-After. */
  failNext(count: number, failure?: Failure): void;
  /** Stop accepting a key (default: every key): calls answer 401 `invalid_api_key`. */
  refuseKey(key?: string): void;
  acceptKey(key: string): void;
  setPageSize(size: number | null): void;
  /** Delay every answer (timeout tests); 0 turns it off. */
  setDelay(ms: number): void;
  /** Back to the start state: no data, no queued failures, no recorded requests, the default key, page size and no delay. */
  reset(): void;
};

const USAGE_GROUPS = ['project_id', 'user_id', 'api_key_id', 'model', 'batch', 'service_tier'];
const COST_GROUPS = ['project_id', 'line_item', 'api_key_id'];
const FAILURES: Record<number, { type: string; code: string | null; message: string }> = {
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later.' },
};

export async function startOpenAiFake(options: OpenAiFakeOptions = {}): Promise<OpenAiFake> {
  const defaultKey = options.adminKey ?? OPENAI_FAKE_KEY;
  const acceptedKeys = new Set([defaultKey]);
  const failures = new FailureQueue();
  let pageSize = options.pageSize ?? null;
  let delayMs = 0;
  const data = { usage: [] as OpenAiUsageSeed[], costs: [] as OpenAiCostSeed[] };

  function error(status: number, message: string, type: string, code: string | null = null, param: string | null = null, headers: Record<string, string> = {}): FakeResponse {
    return exactJson(status, { error: { message, type, param, code } }, headers);
  }

  function invalid(message: string, param: string | null = null): FakeResponse {
    return error(400, message, 'invalid_request_error', null, param);
  }

  function handle(req: FakeRequest): FakeResponse {
    const failure = failures.take(req);
    if (failure) {
      const known = FAILURES[failure.status] ?? { type: failure.status >= 500 ? 'server_error' : 'invalid_request_error', code: null, message: `Fake failure ${failure.status}` };
      return error(failure.status, failure.message ?? known.message, known.type, known.code, null, failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
    }
    const auth = req.headers.authorization;
    const key = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7).trim() : '';
    if (key === '') {
      return error(401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", 'invalid_request_error');
    }
    if (!acceptedKeys.has(key)) {
      const hint = `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`;
      return error(401, `Incorrect API key provided: ${hint}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key');
    }
    if (req.method !== 'GET') return error(404, `Invalid URL (${req.method} ${req.path})`, 'invalid_request_error');
    switch (req.path) {
      case '/v1/organization/projects':
        return projects(req);
      case '/v1/organization/usage/completions':
        return bucketReport(req, USAGE_GROUPS, 31, (day, groups) => usageResults(data.usage, day, groups));
      case '/v1/organization/costs':
        return bucketReport(req, COST_GROUPS, 180, (day, groups) => costResults(data.costs, day, groups, options.amountsAsStrings ?? false));
      default:
        return error(404, `Invalid URL (GET ${req.path})`, 'invalid_request_error');
    }
  }

  function projects(req: FakeRequest): FakeResponse {
    const limit = Number(req.query.get('limit') ?? '20');
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return invalid('Invalid limit: must be between 1 and 100', 'limit');
    const ids = [...new Set(['proj_default', ...data.usage.map((u) => u.projectId), ...data.costs.map((c) => c.projectId)].filter((p): p is string => !!p))];
    const page = ids.slice(0, limit).map((id) => ({ id, object: 'organization.project', name: id, created_at: 1756684800, archived_at: null, status: 'active' }));
    return exactJson(200, { object: 'list', data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: ids.length > limit });
  }

  function bucketReport(req: FakeRequest, allowed: string[], maxLimit: number, resultsOf: (day: string, groups: Set<string>) => unknown[]): FakeResponse {
    const startRaw = req.query.get('start_time');
    if (startRaw === null) return invalid("Missing query parameter 'start_time'", 'start_time');
    if (!/^\d+$/.test(startRaw)) return invalid(`Invalid value for 'start_time': expected an integer, got '${startRaw}'`, 'start_time');
    const startMs = Number(startRaw) * 1000;
    const width = req.query.get('bucket_width') ?? '1d';
    if (width !== '1d') return invalid(`The fake serves bucket_width=1d only (got '${width}')`, 'bucket_width');
    const groups = new Set(arrayParam(req.query, 'group_by'));
    for (const g of groups) if (!allowed.includes(g)) return invalid(`Invalid value for 'group_by': '${g}' is not one of ${allowed.join(', ')}`, 'group_by');
    const limitRaw = req.query.get('limit') ?? '7';
    if (!/^\d+$/.test(limitRaw) || Number(limitRaw) < 1 || Number(limitRaw) > maxLimit) return invalid(`Invalid value for 'limit': must be between 1 and ${maxLimit}`, 'limit');
    const limit = Math.min(Number(limitRaw), pageSize ?? maxLimit);
    const offset = offsetOf(req.query.get('page'));
    if (offset === null) return invalid("Invalid value for 'page'", 'page');
    const endRaw = req.query.get('end_time');
    if (endRaw !== null && !/^\d+$/.test(endRaw)) return invalid(`Invalid value for 'end_time': expected an integer, got '${endRaw}'`, 'end_time');
    const endMs = endRaw === null ? msOfDay(dayOfMs(startMs)) + 31 * DAY_MS : Number(endRaw) * 1000;
    if (endMs <= startMs) return invalid("'end_time' must be after 'start_time'", 'end_time');
    // The first bucket starts at start_time and ends at the next UTC midnight; later ones are full days.
    const buckets: Array<{ day: string; start: number; end: number }> = [];
    for (let start = startMs; start < endMs; ) {
      const end = Math.min(msOfDay(dayOfMs(start)) + DAY_MS, endMs);
      buckets.push({ day: dayOfMs(start), start, end });
      start = end;
    }
    const page = buckets.slice(offset, offset + limit);
    const more = offset + limit < buckets.length;
    return exactJson(200, {
      object: 'page',
      data: page.map((b) => ({ object: 'bucket', start_time: b.start / 1000, end_time: b.end / 1000, results: resultsOf(b.day, groups) })),
      has_more: more,
      next_page: more ? pageToken(offset + limit) : null,
    });
  }

  function clearData(): void {
    data.usage = [];
    data.costs = [];
  }

  const server = await startHttpFake(async (req) => {
    const answer = handle(req);
    return delayMs > 0 ? { ...answer, delayMs } : answer;
  });

  return {
    ...server,
    get usage() {
      return data.usage;
    },
    get costs() {
      return data.costs;
    },
    addUsage: (...rows) => void data.usage.push(...rows),
    addCosts: (...rows) => void data.costs.push(...rows),
    seedDays(seed) {
      const added = seedOpenAiDays(seed);
      data.usage.push(...added.usage);
      data.costs.push(...added.costs);
      return added;
    },
    clearData,
    failNext: (count, failure = {}) => failures.push(count, failure),
    refuseKey(key) {
      if (key === undefined) acceptedKeys.clear();
      else acceptedKeys.delete(key);
    },
    acceptKey: (key) => void acceptedKeys.add(key),
    setPageSize(size) {
      pageSize = size;
    },
    setDelay(ms) {
      delayMs = ms;
    },
    reset() {
      clearData();
      failures.clear();
      server.requests.length = 0;
      acceptedKeys.clear();
      acceptedKeys.add(defaultKey);
      pageSize = options.pageSize ?? null;
      delayMs = 0;
    },
  };
}

/** Deterministic seed data: per day, every model × project gets usage (one user, one key per project) and an input and an output cost line. */
export function seedOpenAiDays(seed: OpenAiSeedDaysOptions): { usage: OpenAiUsageSeed[]; costs: OpenAiCostSeed[] } {
  const models = seed.models ?? ['gpt-5-mini-2025-08-07', 'gpt-4o-2024-08-06'];
  const projects = seed.projects ?? ['proj_abc123', 'proj_def456'];
  const out = { usage: [] as OpenAiUsageSeed[], costs: [] as OpenAiCostSeed[] };
  for (let d = 0; d < seed.days; d += 1) {
    const day = addDays(seed.from, d);
    models.forEach((model, m) => {
      projects.forEach((projectId, p) => {
        out.usage.push({
          day, model, projectId, userId: `user_fake${p}`, apiKeyId: `key_fake${p}`,
          inputTokens: 5000 + 10 * d + 100 * m + p, cachedTokens: 2000 + d, cacheWriteTokens: d % 2 === 0 ? 0 : 10,
          outputTokens: 700 + d + m, requests: 10 + d,
        });
        out.costs.push(
          { day, projectId, lineItem: `${model}, input`, amountDollars: `0.${d + 1}${m}${p}1`, quantity: 5000 + 10 * d, quantityUnit: 'tokens' },
          { day, projectId, lineItem: `${model}, output`, amountDollars: `0.${d + 1}${m}${p}2`, quantity: 700 + d, quantityUnit: 'tokens' },
        );
      });
    });
  }
  return out;
}

function usageResults(rows: OpenAiUsageSeed[], day: string, groups: Set<string>): unknown[] {
  const buckets = new Map<string, { dims: Record<string, string | boolean | null>; sums: Decimal[][] }>();
  for (const r of rows) {
    if (r.day !== day) continue;
    const dims = {
      project_id: groups.has('project_id') ? (r.projectId ?? null) : null,
      user_id: groups.has('user_id') ? (r.userId ?? null) : null,
      api_key_id: groups.has('api_key_id') ? (r.apiKeyId ?? null) : null,
      model: groups.has('model') ? r.model : null,
      batch: groups.has('batch') ? (r.batch ?? false) : null,
      service_tier: groups.has('service_tier') ? (r.serviceTier ?? 'default') : null,
    };
    const key = JSON.stringify(dims);
    const entry = buckets.get(key) ?? { dims, sums: [[], [], [], [], []] as Decimal[][] };
    [r.inputTokens, r.cachedTokens, r.cacheWriteTokens, r.outputTokens, r.requests].forEach((v, i) => entry.sums[i]!.push(decOf(v)));
    buckets.set(key, entry);
  }
  return [...buckets.keys()].sort().map((key) => {
    const { dims, sums } = buckets.get(key)!;
    const [input, cached, write, output, requests] = sums.map(sum) as [Decimal, Decimal, Decimal, Decimal, Decimal];
    return {
      object: 'organization.usage.completions.result',
      input_tokens: input,
      input_cached_tokens: cached,
      input_cache_write_tokens: write,
      input_uncached_tokens: input.minus(cached).minus(write),
      output_tokens: output,
      input_text_tokens: input,
      output_text_tokens: output,
      input_cached_text_tokens: cached,
      input_audio_tokens: 0,
      input_cached_audio_tokens: 0,
      output_audio_tokens: 0,
      input_image_tokens: 0,
      input_cached_image_tokens: 0,
      output_image_tokens: 0,
      num_model_requests: requests,
      ...dims,
    };
  });
}

function costResults(rows: OpenAiCostSeed[], day: string, groups: Set<string>, asStrings: boolean): unknown[] {
  const byLineItem = groups.has('line_item');
  const buckets = new Map<string, { dims: Record<string, string | null>; amounts: Decimal[]; quantities: Decimal[] }>();
  for (const r of rows) {
    if (r.day !== day) continue;
    const dims = {
      line_item: byLineItem ? r.lineItem : null,
      project_id: groups.has('project_id') ? (r.projectId ?? null) : null,
      api_key_id: groups.has('api_key_id') ? (r.apiKeyId ?? null) : null,
      quantity_unit: byLineItem ? (r.quantityUnit ?? null) : null,
    };
    const key = JSON.stringify(dims);
    const entry = buckets.get(key) ?? { dims, amounts: [] as Decimal[], quantities: [] as Decimal[] };
    entry.amounts.push(decOf(r.amountDollars));
    entry.quantities.push(decOf(r.quantity));
    buckets.set(key, entry);
  }
  return [...buckets.keys()].sort().map((key) => {
    const { dims, amounts, quantities } = buckets.get(key)!;
    const value = sum(amounts);
    return {
      object: 'organization.costs.result',
      amount: { value: asStrings ? value.toFixed() : value, currency: 'usd' },
      ...dims,
      quantity: byLineItem ? sum(quantities) : null,
    };
  });
}
