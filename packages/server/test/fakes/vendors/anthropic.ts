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
 * Loopback fake of the Anthropic Admin API (vendor-apis.md §1), for tests only.
 *
 * Serves the real paths: `GET /v1/organizations/me` (probe), `/v1/organizations/usage_report/messages`,
 * `/v1/organizations/cost_report` and `/v1/organizations/usage_report/claude_code`. Every call needs
 * `x-api-key` (an accepted key, else 401 with Anthropic's body) and `anthropic-version: 2023-06-01`
 * (else 400). Reports page like the real API (`limit` in buckets or records, opaque `next_page`,
 * `has_more`), emit every daily bucket in range (empty ones with `results: []`), aggregate seeded rows
 * by `group_by[]` (bracketed, encoded or bare) and set non-grouped dimensions to null. Cost amounts go
 * out as decimal strings of cents, Claude Code costs as number lexemes of cents, exactly as seeded.
 *
 * ```ts
 * const fake = await startAnthropicFake();                 // accepts ANTHROPIC_FAKE_KEY
 * const seeded = fake.seedDays({ from: '2026-09-01', days: 30 });
 * // point the service at it: env APP_SPEND_ANTHROPIC_BASE_URL = fake.url, adminKey ANTHROPIC_FAKE_KEY
 * fake.failNext(2, { status: 429, retryAfter: '1' });     // the next two calls are rate limited
 * fake.refuseKey();                                         // every call now answers 401 invalid x-api-key
 * fake.requests                                             // what the client sent
 * await fake.close();
 * ```
 */
export const ANTHROPIC_FAKE_KEY = 'sk-ant-admin01-fake-0000-key1';
export const ANTHROPIC_FAKE_ORG = { id: '5f0c3c2e-1111-2222-3333-444455556666', name: 'Acme Inc', type: 'organization' };

/** One usage bucket's worth of traffic (summed with others of the same grouped dimensions). */
export type AnthropicUsageSeed = {
  day: string;
  model: string;
  /** null: the default workspace (reported as null even when grouped). */
  workspaceId?: string | null;
  /** null: Console / Workbench usage. */
  apiKeyId?: string | null;
  serviceTier?: string;
  uncachedInputTokens?: Amount;
  cacheReadTokens?: Amount;
  cacheWrite5mTokens?: Amount;
  cacheWrite1hTokens?: Amount;
  outputTokens?: Amount;
  webSearchRequests?: Amount;
};

export type AnthropicCostSeed = {
  day: string;
  workspaceId?: string | null;
  /** e.g. 'Claude Sonnet 4.5 Usage - Input Tokens' or 'Code Execution Usage'. */
  description: string;
  /** Cents as the decimal string Anthropic sends ('123.78912' = $1.2378912). */
  amountCents: string;
  costType?: string | null;
  model?: string | null;
  tokenType?: string | null;
  serviceTier?: string | null;
};

/** One Claude Code analytics record (one person, one day, one terminal). */
export type ClaudeCodeSeed = {
  day: string;
  /** A user actor (email) or an API actor (key name): give one. */
  email?: string;
  apiKeyName?: string;
  terminalType?: string;
  sessions?: Amount;
  linesAdded?: Amount;
  linesRemoved?: Amount;
  commits?: Amount;
  pullRequests?: Amount;
  toolActions?: Record<string, { accepted: Amount; rejected: Amount }>;
  models?: Array<{ model: string; input?: Amount; output?: Amount; cacheRead?: Amount; cacheCreation?: Amount; costCents?: Amount }>;
};

export type SeedDaysOptions = {
  from: string;
  days: number;
  models?: string[];
  /** Workspace ids; null is the default workspace. */
  workspaces?: Array<string | null>;
  /** Claude Code people (emails). */
  people?: string[];
};

export type AnthropicFakeOptions = {
  /** The accepted admin key (default ANTHROPIC_FAKE_KEY). */
  adminKey?: string;
  /** Cap on buckets (or Claude Code records) per page, below the client's `limit`. */
  pageSize?: number;
};

export type AnthropicFake = HttpFake & {
  usage: AnthropicUsageSeed[];
  costs: AnthropicCostSeed[];
  claudeCode: ClaudeCodeSeed[];
  addUsage(...rows: AnthropicUsageSeed[]): void;
  addCosts(...rows: AnthropicCostSeed[]): void;
  addClaudeCode(...records: ClaudeCodeSeed[]): void;
  /** Deterministic traffic for every day of [from, from + days): usage, cost lines and Claude Code records. Returns what it added. */
  seedDays(options: SeedDaysOptions): { usage: AnthropicUsageSeed[]; costs: AnthropicCostSeed[]; claudeCode: ClaudeCodeSeed[] };
  /** Remove all seeded data (a vendor outage that returns nothing). */
  clearData(): void;
  /** The next `count` matching calls answer `status` (default 429) with Anthropic's error body and optional Retry-After. */
  failNext(count: number, failure?: Failure): void;
  /** Stop accepting a key (default: every key): calls answer 401 `invalid x-api-key`. */
  refuseKey(key?: string): void;
  acceptKey(key: string): void;
  setPageSize(size: number | null): void;
  /** Delay every answer (timeout tests); 0 turns it off. */
  setDelay(ms: number): void;
  /** Back to the start state: no data, no queued failures, no recorded requests, the default key, page size and no delay. */
  reset(): void;
};

const USAGE_GROUPS = ['api_key_id', 'workspace_id', 'model', 'service_tier', 'context_window', 'inference_geo', 'speed', 'account_id', 'service_account_id'];
const COST_GROUPS = ['workspace_id', 'description'];
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};
const ERROR_MESSAGES: Record<number, string> = {
  429: 'Number of requests has exceeded your rate limit. Please try again later.',
  500: 'Internal server error',
  529: 'Overloaded',
};

export async function startAnthropicFake(options: AnthropicFakeOptions = {}): Promise<AnthropicFake> {
  const defaultKey = options.adminKey ?? ANTHROPIC_FAKE_KEY;
  const acceptedKeys = new Set([defaultKey]);
  const failures = new FailureQueue();
  let pageSize = options.pageSize ?? null;
  let delayMs = 0;
  const data = { usage: [] as AnthropicUsageSeed[], costs: [] as AnthropicCostSeed[], claudeCode: [] as ClaudeCodeSeed[] };
  let requestCounter = 0;

  function error(status: number, message: string, headers: Record<string, string> = {}): FakeResponse {
    requestCounter += 1;
    const requestId = `req_fake${String(requestCounter).padStart(6, '0')}`;
    return exactJson(
      status,
      { type: 'error', error: { type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message }, request_id: requestId },
      { 'request-id': requestId, ...headers },
    );
  }

  function handle(req: FakeRequest): FakeResponse {
    const failure = failures.take(req);
    if (failure) {
      return error(failure.status, failure.message ?? ERROR_MESSAGES[failure.status] ?? `Fake failure ${failure.status}`, failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
    }
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || key === '') return error(401, 'x-api-key header is required');
    if (!acceptedKeys.has(key)) return error(401, 'invalid x-api-key');
    const version = req.headers['anthropic-version'];
    if (typeof version !== 'string' || version === '') return error(400, 'anthropic-version: header is required');
    if (version !== '2023-06-01') return error(400, `anthropic-version: invalid version ${version}`);
    if (req.method !== 'GET') return error(404, `Not found: ${req.method} ${req.path}`);
    switch (req.path) {
      case '/v1/organizations/me':
        return exactJson(200, ANTHROPIC_FAKE_ORG);
      case '/v1/organizations/usage_report/messages':
        return bucketReport(req, USAGE_GROUPS, (day, groups) => usageResults(data.usage, day, groups));
      case '/v1/organizations/cost_report':
        return bucketReport(req, COST_GROUPS, (day, groups) => costResults(data.costs, day, groups));
      case '/v1/organizations/usage_report/claude_code':
        return claudeCodeReport(req);
      default:
        return error(404, `Not found: ${req.path}`);
    }
  }

  function limitOf(req: FakeRequest, fallback: number, max: number): number | FakeResponse {
    const raw = req.query.get('limit');
    if (raw === null) return Math.min(fallback, pageSize ?? fallback);
    if (!/^\d+$/.test(raw) || Number(raw) < 1) return error(400, 'limit: Input should be a valid integer greater than or equal to 1');
    if (Number(raw) > max) return error(400, `limit: Input should be less than or equal to ${max}`);
    return Math.min(Number(raw), pageSize ?? max);
  }

  function bucketReport(req: FakeRequest, allowed: string[], resultsOf: (day: string, groups: Set<string>) => unknown[]): FakeResponse {
    const startRaw = req.query.get('starting_at');
    if (startRaw === null) return error(400, 'starting_at: Field required');
    const startMs = Date.parse(startRaw);
    if (Number.isNaN(startMs)) return error(400, 'starting_at: Input should be a valid datetime');
    const width = req.query.get('bucket_width') ?? '1d';
    if (width !== '1d') return error(400, `bucket_width: the fake serves 1d buckets only (got ${width})`);
    const groups = new Set(arrayParam(req.query, 'group_by'));
    for (const g of groups) if (!allowed.includes(g)) return error(400, `group_by: Input should be ${allowed.map((a) => `'${a}'`).join(', ')}`);
    const limit = limitOf(req, 7, 31);
    if (typeof limit !== 'number') return limit;
    const offset = offsetOf(req.query.get('page'));
    if (offset === null) return error(400, 'page: Invalid page token');
    const first = dayOfMs(startMs);
    const endRaw = req.query.get('ending_at');
    const endMs = endRaw === null ? msOfDay(first) + 31 * DAY_MS : Date.parse(endRaw);
    if (Number.isNaN(endMs)) return error(400, 'ending_at: Input should be a valid datetime');
    if (endMs <= startMs) return error(400, 'ending_at must be after starting_at');
    const days: string[] = [];
    for (let ms = msOfDay(first); ms < endMs; ms += DAY_MS) days.push(dayOfMs(ms));
    const page = days.slice(offset, offset + limit);
    const more = offset + limit < days.length;
    return exactJson(200, {
      data: page.map((day) => ({ starting_at: `${day}T00:00:00Z`, ending_at: `${addDays(day, 1)}T00:00:00Z`, results: resultsOf(day, groups) })),
      has_more: more,
      next_page: more ? pageToken(offset + limit) : null,
    });
  }

  function claudeCodeReport(req: FakeRequest): FakeResponse {
    const day = req.query.get('starting_at');
    if (day === null) return error(400, 'starting_at: Field required');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(msOfDay(day))) return error(400, 'starting_at: Input should be a valid date in the format YYYY-MM-DD');
    const limit = limitOf(req, 20, 1000);
    if (typeof limit !== 'number') return limit;
    const offset = offsetOf(req.query.get('page'));
    if (offset === null) return error(400, 'page: Invalid page token');
    const records = data.claudeCode.filter((r) => r.day === day);
    const more = offset + limit < records.length;
    return exactJson(200, {
      data: records.slice(offset, offset + limit).map(toClaudeCodeRecord),
      has_more: more,
      next_page: more ? pageToken(offset + limit) : null,
    });
  }

  function clearData(): void {
    data.usage = [];
    data.costs = [];
    data.claudeCode = [];
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
    get claudeCode() {
      return data.claudeCode;
    },
    addUsage: (...rows) => void data.usage.push(...rows),
    addCosts: (...rows) => void data.costs.push(...rows),
    addClaudeCode: (...records) => void data.claudeCode.push(...records),
    seedDays(seed) {
      const added = seedAnthropicDays(seed);
      data.usage.push(...added.usage);
      data.costs.push(...added.costs);
      data.claudeCode.push(...added.claudeCode);
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

/** Deterministic seed data: per day, every model × workspace gets usage and an input-token cost line; every person a Claude Code record. */
export function seedAnthropicDays(seed: SeedDaysOptions): { usage: AnthropicUsageSeed[]; costs: AnthropicCostSeed[]; claudeCode: ClaudeCodeSeed[] } {
  const models = seed.models ?? ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001'];
  const workspaces = seed.workspaces ?? ['wrkspc_01AbCdEf', null];
  const people = seed.people ?? ['dana@example.com'];
  const out = { usage: [] as AnthropicUsageSeed[], costs: [] as AnthropicCostSeed[], claudeCode: [] as ClaudeCodeSeed[] };
  for (let d = 0; d < seed.days; d += 1) {
    const day = addDays(seed.from, d);
    models.forEach((model, m) => {
      workspaces.forEach((workspaceId, w) => {
        out.usage.push({
          day, model, workspaceId, apiKeyId: `apikey_fake${w}`, serviceTier: 'standard',
          uncachedInputTokens: 1000 + 10 * d + 100 * m + w, cacheReadTokens: 2000 + d, cacheWrite5mTokens: 100 + d,
          cacheWrite1hTokens: d % 2 === 0 ? 0 : 50, outputTokens: 500 + d + m,
        });
        out.costs.push({
          day, workspaceId, description: `${model} Usage - Input Tokens`, amountCents: `${d + 1}.${m}${w}125`,
          costType: 'tokens', model, tokenType: 'uncached_input_tokens', serviceTier: 'standard',
        });
      });
    });
    people.forEach((email) => {
      out.claudeCode.push({
        day, email, terminalType: 'vscode', sessions: 1 + (d % 3), linesAdded: 10 * (d + 1), linesRemoved: d, commits: d % 2,
        pullRequests: d % 3 === 0 ? 1 : 0, toolActions: { edit_tool: { accepted: 5, rejected: 1 } },
        models: [{ model: models[0]!, input: 1000 + d, output: 200 + d, cacheRead: 3000, cacheCreation: 100, costCents: '12.5' }],
      });
    });
  }
  return out;
}

function usageResults(rows: AnthropicUsageSeed[], day: string, groups: Set<string>): unknown[] {
  const buckets = new Map<string, { dims: Record<string, string | null>; sums: Decimal[][] }>();
  for (const r of rows) {
    if (r.day !== day) continue;
    const dims = {
      model: groups.has('model') ? r.model : null,
      workspace_id: groups.has('workspace_id') ? (r.workspaceId ?? null) : null,
      api_key_id: groups.has('api_key_id') ? (r.apiKeyId ?? null) : null,
      service_tier: groups.has('service_tier') ? (r.serviceTier ?? 'standard') : null,
    };
    const key = JSON.stringify(dims);
    const entry = buckets.get(key) ?? { dims, sums: [[], [], [], [], [], []] as Decimal[][] };
    [r.uncachedInputTokens, r.cacheReadTokens, r.cacheWrite5mTokens, r.cacheWrite1hTokens, r.outputTokens, r.webSearchRequests].forEach((v, i) =>
      entry.sums[i]!.push(decOf(v)),
    );
    buckets.set(key, entry);
  }
  return [...buckets.keys()].sort().map((key) => {
    const { dims, sums } = buckets.get(key)!;
    const [uncached, cacheRead, write5m, write1h, output, webSearch] = sums.map(sum);
    return {
      uncached_input_tokens: uncached,
      cache_read_input_tokens: cacheRead,
      cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
      output_tokens: output,
      server_tool_use: { web_search_requests: webSearch },
      ...dims,
      context_window: null,
      inference_geo: null,
      account_id: null,
      service_account_id: null,
    };
  });
}

function costResults(rows: AnthropicCostSeed[], day: string, groups: Set<string>): unknown[] {
  const byDescription = groups.has('description');
  const buckets = new Map<string, { dims: Record<string, string | null>; amounts: Decimal[] }>();
  for (const r of rows) {
    if (r.day !== day) continue;
    const dims = {
      workspace_id: groups.has('workspace_id') ? (r.workspaceId ?? null) : null,
      description: byDescription ? r.description : null,
      cost_type: byDescription ? (r.costType ?? null) : null,
      model: byDescription ? (r.model ?? null) : null,
      token_type: byDescription ? (r.tokenType ?? null) : null,
      service_tier: byDescription ? (r.serviceTier ?? null) : null,
    };
    const key = JSON.stringify(dims);
    const entry = buckets.get(key) ?? { dims, amounts: [] as Decimal[] };
    entry.amounts.push(decOf(r.amountCents));
    buckets.set(key, entry);
  }
  return [...buckets.keys()].sort().map((key) => {
    const { dims, amounts } = buckets.get(key)!;
    return { amount: sum(amounts).toFixed(), currency: 'USD', ...dims, context_window: null, inference_geo: null };
  });
}

function toClaudeCodeRecord(r: ClaudeCodeSeed): unknown {
  return {
    date: `${r.day}T00:00:00Z`,
    actor: r.email !== undefined ? { type: 'user_actor', email_address: r.email } : { type: 'api_actor', api_key_name: r.apiKeyName ?? 'unnamed-key' },
    organization_id: ANTHROPIC_FAKE_ORG.id,
    customer_type: 'api',
    terminal_type: r.terminalType ?? 'vscode',
    core_metrics: {
      num_sessions: decOf(r.sessions),
      lines_of_code: { added: decOf(r.linesAdded), removed: decOf(r.linesRemoved) },
      commits_by_claude_code: decOf(r.commits),
      pull_requests_by_claude_code: decOf(r.pullRequests),
    },
    tool_actions: Object.fromEntries(
      Object.entries(r.toolActions ?? {}).map(([tool, a]) => [tool, { accepted: decOf(a.accepted), rejected: decOf(a.rejected) }]),
    ),
    model_breakdown: (r.models ?? []).map((m) => ({
      model: m.model,
      tokens: { input: decOf(m.input), output: decOf(m.output), cache_read: decOf(m.cacheRead), cache_creation: decOf(m.cacheCreation) },
      estimated_cost: { amount: decOf(m.costCents), currency: 'USD' },
    })),
  };
}
