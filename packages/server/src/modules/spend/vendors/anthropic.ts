import { bucketRows, countOf, cursorPages, errorMessageOf, exactOf, vendorHttp, type VendorHttp } from './http.js';
import { assertUsd, dayInWindow, daysOf, sumNullable, sumNullableDecimal } from './units.js';
import {
  VendorError,
  type ActorMetricRow,
  type CostRow,
  type DayWindow,
  type UsageRow,
  type VendorClient,
  type VendorClientOptions,
} from './types.js';

/**
 * Anthropic Admin API client (vendor-apis.md §1): the messages usage report (daily buckets grouped by
 * model, workspace, API key and service tier), the cost report (grouped by workspace and
 * description; cents as decimal strings) and the Claude Code analytics report (one call per day;
 * per-person rows). The usage report has no request count, so `requests` is null.
 */
export const ANTHROPIC_VERSION = '2023-06-01';
const VENDOR = 'Anthropic';
/** Daily buckets per page: the report's maximum for bucket_width=1d. */
const BUCKETS_PER_PAGE = 31;
const CLAUDE_CODE_PER_PAGE = 1000;
export const CLAUDE_CODE_TOOL = 'claude_code';

type Bucket<R> = { starting_at: string; ending_at?: string; results?: R[] };
type UsageResult = {
  model?: string | null;
  workspace_id?: string | null;
  api_key_id?: string | null;
  service_tier?: string | null;
  uncached_input_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  cache_creation?: { ephemeral_5m_input_tokens?: unknown; ephemeral_1h_input_tokens?: unknown } | null;
  output_tokens?: unknown;
};
type CostResult = {
  amount?: unknown;
  currency?: string | null;
  workspace_id?: string | null;
  description?: string | null;
  cost_type?: string | null;
  model?: string | null;
};
type ClaudeCodeRecord = {
  actor?: { type?: string; email_address?: string; api_key_name?: string } | null;
  core_metrics?: {
    num_sessions?: unknown;
    lines_of_code?: { added?: unknown; removed?: unknown } | null;
    commits_by_claude_code?: unknown;
    pull_requests_by_claude_code?: unknown;
  } | null;
  tool_actions?: Record<string, { accepted?: unknown; rejected?: unknown } | null> | null;
  model_breakdown?: Array<{
    model?: string | null;
    tokens?: { input?: unknown; output?: unknown; cache_read?: unknown; cache_creation?: unknown } | null;
    estimated_cost?: { amount?: unknown; currency?: string | null } | null;
  }> | null;
};

export function createAnthropicClient(options: VendorClientOptions): VendorClient {
  const http = vendorHttp(options, {
    vendor: VENDOR,
    authHeaders: { 'x-api-key': options.adminKey, 'anthropic-version': ANTHROPIC_VERSION },
    messageOf: errorMessageOf,
  });
  return {
    provider: 'ANTHROPIC',
    async probe() {
      await http.exact({ path: '/v1/organizations/me' });
    },
    async pull(window) {
      if (window.from >= window.to) return { usage: [], costs: [], actors: [] };
      const usage = await pullUsage(http, window);
      const costs = await pullCosts(http, window);
      const actors = await pullClaudeCode(http, window);
      return { usage, costs, actors };
    },
  };
}

/** Every daily bucket of a report over the window, grouped by `groupBy` (cursor-paged). */
function dailyBuckets<R>(http: VendorHttp, window: DayWindow, path: string, groupBy: string[]): Promise<Bucket<R>[]> {
  return cursorPages<Bucket<R>>(http, VENDOR, {
    path,
    query: { starting_at: startOfDay(window.from), ending_at: startOfDay(window.to), bucket_width: '1d', 'group_by[]': groupBy, limit: BUCKETS_PER_PAGE },
  });
}

async function pullUsage(http: VendorHttp, window: DayWindow): Promise<UsageRow[]> {
  const buckets = await dailyBuckets<UsageResult>(http, window, '/v1/organizations/usage_report/messages', ['model', 'workspace_id', 'api_key_id', 'service_tier']);
  return bucketRows(buckets, (b) => dayOf(b.starting_at, window), (r, day): UsageRow => ({
    day,
    model: r.model ?? '',
    workspaceId: r.workspace_id ?? '',
    apiKeyId: r.api_key_id ?? '',
    actor: '',
    serviceTier: r.service_tier ?? '',
    uncachedInputTokens: countOf(r.uncached_input_tokens, VENDOR, 'uncached_input_tokens'),
    cacheReadTokens: countOf(r.cache_read_input_tokens, VENDOR, 'cache_read_input_tokens'),
    cacheWrite5mTokens: countOf(r.cache_creation?.ephemeral_5m_input_tokens, VENDOR, 'ephemeral_5m_input_tokens'),
    cacheWrite1hTokens: countOf(r.cache_creation?.ephemeral_1h_input_tokens, VENDOR, 'ephemeral_1h_input_tokens'),
    outputTokens: countOf(r.output_tokens, VENDOR, 'output_tokens'),
    requests: null,
    vendorCostCents: null,
  }));
}

async function pullCosts(http: VendorHttp, window: DayWindow): Promise<CostRow[]> {
  const buckets = await dailyBuckets<CostResult>(http, window, '/v1/organizations/cost_report', ['workspace_id', 'description']);
  return bucketRows(buckets, (b) => dayOf(b.starting_at, window), (r, day): CostRow => {
    assertUsd(VENDOR, r.currency);
    const amountCents = exactOf(r.amount, VENDOR, 'cost amount');
    if (amountCents === null) throw new VendorError(`${VENDOR} sent a cost line without an amount`);
    return {
      day,
      workspaceId: r.workspace_id ?? '',
      model: r.model ?? null,
      description: r.description ?? '',
      costType: r.cost_type ?? null,
      amountCents,
    };
  });
}

/**
 * Claude Code analytics answers one day per call. A person's day becomes one activity row (model '':
 * sessions, lines, commits, pull requests, accepted/rejected tool actions) plus one row per model
 * with its tokens and estimated cost, so a report can sum either without counting activity twice.
 * Records of the same person and day (one per terminal, say) are summed.
 */
async function pullClaudeCode(http: VendorHttp, window: DayWindow): Promise<ActorMetricRow[]> {
  const rows = new Map<string, ActorMetricRow>();
  for (const day of daysOf(window)) {
    const records = await cursorPages<ClaudeCodeRecord>(http, VENDOR, {
      path: '/v1/organizations/usage_report/claude_code',
      query: { starting_at: day, limit: CLAUDE_CODE_PER_PAGE },
    });
    for (const record of records) {
      const actor = record.actor?.email_address ?? record.actor?.api_key_name;
      if (!actor) continue;
      const core = record.core_metrics;
      const actions = Object.values(record.tool_actions ?? {});
      merge(rows, {
        ...emptyMetric(day, actor, ''),
        sessions: countOf(core?.num_sessions, VENDOR, 'num_sessions'),
        linesAdded: countOf(core?.lines_of_code?.added, VENDOR, 'lines_of_code.added'),
        linesRemoved: countOf(core?.lines_of_code?.removed, VENDOR, 'lines_of_code.removed'),
        commits: countOf(core?.commits_by_claude_code, VENDOR, 'commits_by_claude_code'),
        pullRequests: countOf(core?.pull_requests_by_claude_code, VENDOR, 'pull_requests_by_claude_code'),
        accepted: actions.reduce((sum, a) => sum + countOf(a?.accepted, VENDOR, 'tool_actions.accepted'), 0n),
        rejected: actions.reduce((sum, a) => sum + countOf(a?.rejected, VENDOR, 'tool_actions.rejected'), 0n),
      });
      for (const m of record.model_breakdown ?? []) {
        if (!m.model) continue;
        assertUsd(VENDOR, m.estimated_cost?.currency);
        const input = countOf(m.tokens?.input, VENDOR, 'tokens.input');
        const output = countOf(m.tokens?.output, VENDOR, 'tokens.output');
        const cacheRead = countOf(m.tokens?.cache_read, VENDOR, 'tokens.cache_read');
        const cacheWrite = countOf(m.tokens?.cache_creation, VENDOR, 'tokens.cache_creation');
        merge(rows, {
          ...emptyMetric(day, actor, m.model),
          uncachedInputTokens: input,
          cacheReadTokens: cacheRead,
          cacheWriteTokens: cacheWrite,
          outputTokens: output,
          totalTokens: input + output + cacheRead + cacheWrite,
          vendorCostCents: exactOf(m.estimated_cost?.amount, VENDOR, 'estimated_cost.amount'),
        });
      }
    }
  }
  return [...rows.values()];
}

function emptyMetric(day: string, actor: string, model: string): ActorMetricRow {
  return {
    day, actor, tool: CLAUDE_CODE_TOOL, model,
    uncachedInputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, outputTokens: null, totalTokens: null,
    sessions: null, requests: null, linesAdded: null, linesRemoved: null, accepted: null, rejected: null,
    commits: null, pullRequests: null, creditsUsed: null, vendorCostCents: null,
  };
}

const SUMMED = [
  'uncachedInputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens', 'totalTokens', 'sessions',
  'linesAdded', 'linesRemoved', 'accepted', 'rejected', 'commits', 'pullRequests',
] as const;

function merge(rows: Map<string, ActorMetricRow>, row: ActorMetricRow): void {
  const key = JSON.stringify([row.day, row.actor, row.tool, row.model]);
  const existing = rows.get(key);
  if (!existing) {
    rows.set(key, row);
    return;
  }
  for (const field of SUMMED) existing[field] = sumNullable(existing[field], row[field]);
  existing.vendorCostCents = sumNullableDecimal(existing.vendorCostCents, row.vendorCostCents);
}

function startOfDay(day: string): string {
  return `${day}T00:00:00Z`;
}

/** The UTC day a bucket starts on, or null when it falls outside the window (never written). */
function dayOf(startingAt: string, window: DayWindow): string | null {
  const ms = Date.parse(startingAt);
  if (Number.isNaN(ms)) throw new VendorError(`${VENDOR} sent a bucket starting at ${JSON.stringify(startingAt)}`);
  return dayInWindow(new Date(ms), window);
}
