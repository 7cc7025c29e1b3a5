import { parseJson } from '../../../platform/http/json.js';
import { bearerHttp, countOf, exactOf, type VendorHttp } from './http.js';
import type { DayWindow, UsageRow, VendorClient, VendorClientOptions } from './types.js';
import {
  addDays, centsOfDollars, countOrNull, dayOfEpochMs, daysOf, messageText, sumNullableDecimal, textOf,
} from './units.js';

/**
 * LITELLM client (vendor-apis.md §5): the customer's own proxy, whose origin is the connection's
 * scope (passed as baseUrl), `Authorization: Bearer <master or admin key>`. Usage comes from
 * `GET /spend/logs/v2` (one row per request, spend in float dollars read exactly from the JSON
 * lexeme), summed into daily UsageRows per (model, team → workspaceId, hashed key → apiKeyId,
 * user → actor) with `requests` = rows and `vendorCostCents` = Σ spend × 100.
 *
 * Windows: both bounds are inclusive and written `YYYY-MM-DD HH:MM:SS` (UTC), so [from, to) is asked
 * as `from 00:00:00` … `to−1 23:59:59`. Since v1.93 `total` is capped at 10,000: a capped window is
 * split in halves (the doc's preferred way) down to single days, and a still-capped day is paged
 * until `data` comes back empty.
 *
 * Token classes: LiteLLM's `prompt_tokens` counts cached tokens in (OpenAI convention); the cache
 * split comes from `metadata.usage_object` (`cache_read_input_tokens` or
 * `prompt_tokens_details.cached_tokens`, `cache_creation_input_tokens`) and is taken out of the
 * prompt when the prompt holds it; otherwise the prompt is already the uncached input.
 *
 * Errors: only the proxy's JSON `message` (ProxyException `{error: {message}}`) or `detail`
 * (FastAPI `{detail}`) is ever shown, never the raw body (contract §7.2): an HTML page from a
 * reverse proxy becomes "LiteLLM answered HTTP <status>".
 */
const VENDOR = 'LiteLLM';
const PAGE_SIZE = 1000;
const MAX_PAGES = 100_000;

type SpendLogsPage = { data?: unknown; total_pages?: unknown; total_is_capped?: unknown };

export function createLiteLlmClient(options: VendorClientOptions): VendorClient {
  const http = bearerHttp(options, VENDOR, liteLlmMessageOf);
  return {
    provider: 'LITELLM',
    async probe() {
      const today = dayOfEpochMs(Date.now());
      await spendLogs(http, { from: today, to: addDays(today, 1) }, 1, 1);
    },
    async pull(window) {
      const acc = new Map<string, UsageRow>();
      await pullRange(http, window, window, acc);
      return { usage: [...acc.values()], costs: [], actors: [] };
    },
  };
}

/** The proxy's own message: `error.message`, `message`, or `detail` (a string, `{error}`/`{message}`, or FastAPI's list of `{msg}`). */
export function liteLlmMessageOf(_status: number, body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as { error?: unknown; message?: unknown; detail?: unknown };
  const fromError = b.error && typeof b.error === 'object' ? messageText((b.error as { message?: unknown }).message) : null;
  return fromError ?? messageText(b.message) ?? detailText(b.detail);
}

function detailText(detail: unknown): string | null {
  if (typeof detail === 'string') return messageText(detail);
  if (Array.isArray(detail)) {
    const msgs = detail.map((d) => (d && typeof d === 'object' ? messageText((d as { msg?: unknown }).msg) : null)).filter((m): m is string => m !== null);
    return messageText(msgs.join('; '));
  }
  if (detail && typeof detail === 'object') {
    const d = detail as { error?: unknown; message?: unknown };
    return messageText(d.error) ?? messageText(d.message);
  }
  return null;
}

async function spendLogs(http: VendorHttp, range: DayWindow, page: number, pageSize: number): Promise<SpendLogsPage> {
  const body = await http.exact({
    path: '/spend/logs/v2',
    query: {
      start_date: `${range.from} 00:00:00`,
      end_date: `${addDays(range.to, -1)} 23:59:59`,
      page,
      page_size: pageSize,
      sort_by: 'startTime',
      sort_order: 'asc',
    },
  });
  return (body ?? {}) as SpendLogsPage;
}

async function pullRange(http: VendorHttp, range: DayWindow, window: DayWindow, acc: Map<string, UsageRow>): Promise<void> {
  const first = await spendLogs(http, range, 1, PAGE_SIZE);
  const capped = first.total_is_capped === true;
  const days = daysOf(range);
  if (capped && days.length > 1) {
    const mid = days[Math.floor(days.length / 2)]!;
    await pullRange(http, { from: range.from, to: mid }, window, acc);
    await pullRange(http, { from: mid, to: range.to }, window, acc);
    return;
  }
  let body = first;
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const rows = Array.isArray(body.data) ? body.data : [];
    for (const row of rows) addLog(acc, row as SpendLog, window);
    if (rows.length === 0) return;
    // A capped total makes total_pages meaningless: page until the proxy runs dry.
    if (!capped) {
      const totalPages = countOrNull(body.total_pages, VENDOR, 'total_pages');
      if (totalPages === null || BigInt(page) >= totalPages) return;
    }
    body = await spendLogs(http, range, page + 1, PAGE_SIZE);
  }
}

type SpendLog = {
  spend?: unknown;
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  startTime?: unknown;
  model?: unknown;
  model_group?: unknown;
  api_key?: unknown;
  user?: unknown;
  team_id?: unknown;
  metadata?: unknown;
};

type LogMetadata = {
  user_api_key_team_id?: unknown;
  user_api_key_user_id?: unknown;
  usage_object?: {
    cache_read_input_tokens?: unknown;
    cache_creation_input_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown } | null;
  } | null;
};

function addLog(acc: Map<string, UsageRow>, log: SpendLog, window: DayWindow): void {
  const day = dayOfStart(log.startTime);
  if (day === null || day < window.from || day >= window.to) return;
  const meta = metadataOf(log.metadata);
  const model = textOf(log.model) || textOf(log.model_group);
  const workspaceId = textOf(log.team_id) || textOf(meta.user_api_key_team_id);
  const apiKeyId = textOf(log.api_key);
  const actor = textOf(log.user) || textOf(meta.user_api_key_user_id);

  const usage = meta.usage_object ?? {};
  const cacheRead = countOrNull(usage.cache_read_input_tokens, VENDOR, 'cache_read_input_tokens') ?? countOrNull(usage.prompt_tokens_details?.cached_tokens, VENDOR, 'cached_tokens') ?? 0n;
  const cacheWrite = countOf(usage.cache_creation_input_tokens, VENDOR, 'cache_creation_input_tokens');
  const prompt = countOf(log.prompt_tokens, VENDOR, 'prompt_tokens');
  const uncached = prompt >= cacheRead + cacheWrite ? prompt - cacheRead - cacheWrite : prompt;
  const spend = exactOf(log.spend, VENDOR, 'spend');

  const key = [day, model, workspaceId, apiKeyId, actor].join('\u0000');
  const row = acc.get(key) ?? {
    day, model, workspaceId, apiKeyId, actor, serviceTier: '',
    uncachedInputTokens: 0n, cacheReadTokens: 0n, cacheWrite5mTokens: 0n, cacheWrite1hTokens: 0n, outputTokens: 0n,
    requests: 0n, vendorCostCents: null,
  };
  row.uncachedInputTokens += uncached;
  row.cacheReadTokens += cacheRead;
  row.cacheWrite5mTokens += cacheWrite;
  row.outputTokens += countOf(log.completion_tokens, VENDOR, 'completion_tokens');
  row.requests = (row.requests ?? 0n) + 1n;
  row.vendorCostCents = sumNullableDecimal(row.vendorCostCents, spend === null ? null : centsOfDollars(spend));
  acc.set(key, row);
}

/** The UTC day of a log's startTime: '2026-09-01T10:00:00.000Z', '2026-09-01 10:00:00' (UTC) or with an offset. */
function dayOfStart(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(Z|[+-]\d{2}:?\d{2})?)?$/.exec(value.trim());
  if (!m) return null;
  if (!m[3] || m[3] === 'Z' || /^[+-]00:?00$/.test(m[3])) return m[1]!;
  const at = Date.parse(value.trim().replace(' ', 'T'));
  return Number.isNaN(at) ? null : dayOfEpochMs(at);
}

function metadataOf(value: unknown): LogMetadata {
  if (typeof value === 'string') {
    try {
      return metadataOf(parseJson(value));
    } catch {
      return {};
    }
  }
  return value && typeof value === 'object' ? (value as LogMetadata) : {};
}
