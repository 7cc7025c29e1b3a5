import { type Decimal } from '../../../platform/money.js';
import { countOf, exactOf, vendorHttp, type VendorHttp } from './http.js';
import type { ActorMetricRow, DayWindow, UsageRow, VendorClient, VendorClientOptions, VendorPull } from './types.js';
import {
  countOrNull, dayOfEpochMs, epochMsOfDay, messageText, splitWindow, sumNullable, sumNullableDecimal, textOf,
} from './units.js';

/**
 * CURSOR client (vendor-apis.md §3): HTTP Basic with the admin key as user name and an empty
 * password. Usage comes from `POST /teams/filtered-usage-events` (one event per request, cost in
 * fractional cents) and `POST /teams/daily-usage-data` (per-person daily activity, no cost). Request
 * bodies carry epoch milliseconds with both bounds inclusive, and one call covers at most 30 days.
 *
 * Mapping:
 * - usage events → daily UsageRows per (model, actor = userEmail): token classes (`inputTokens` is the
 *   uncached input, cache writes are counted as 5-minute writes), `requests` = number of events,
 *   `vendorCostCents` = Σ `chargedCents` (what Cursor bills, the sum that reconciles with /teams/spend);
 * - the same events → ActorMetricRows per (actor, model): tokens, requests, vendor cost;
 * - daily activity → one ActorMetricRow per (actor, day) with model '': AI lines added / removed
 *   (`acceptedLinesAdded` / `acceptedLinesDeleted`), accepted (applies + tabs accepted), rejected.
 *   Members with no activity that day (`isActive: false`) give no row.
 */
export const CURSOR_TOOL = 'cursor';
const VENDOR = 'Cursor';
const MAX_DAYS_PER_CALL = 30;
const EVENTS_PAGE_SIZE = 1000;
const DAILY_PAGE_SIZE = 500;
/** A runaway `hasNextPage` must not loop forever. */
const MAX_PAGES = 10_000;

export function createCursorClient(options: VendorClientOptions): VendorClient {
  const http = vendorHttp(options, {
    vendor: VENDOR,
    authHeaders: { authorization: `Basic ${Buffer.from(`${options.adminKey}:`).toString('base64')}` },
    messageOf: cursorMessageOf,
  });
  return {
    provider: 'CURSOR',
    async probe() {
      await http.exact({ path: '/teams/members' });
    },
    async pull(window) {
      const acc = new CursorAccumulator(window);
      for (const part of splitWindow(window, MAX_DAYS_PER_CALL)) {
        const range = { startDate: epochMsOfDay(part.from), endDate: epochMsOfDay(part.to) - 1 };
        await pagesOf(http, '/teams/filtered-usage-events', range, EVENTS_PAGE_SIZE, (body) => {
          for (const event of arrayOf(body.usageEvents)) acc.addEvent(event as CursorEvent);
          const pagination = (body.pagination ?? {}) as { hasNextPage?: unknown };
          return pagination.hasNextPage === true && arrayOf(body.usageEvents).length > 0;
        });
        await pagesOf(http, '/teams/daily-usage-data', range, DAILY_PAGE_SIZE, (body) => {
          for (const row of arrayOf(body.data)) acc.addDaily(row as CursorDailyRow);
          const pagination = (body.pagination ?? {}) as { hasNextPage?: unknown };
          return pagination.hasNextPage === true;
        });
      }
      return acc.result();
    },
  };
}

/** Cursor's error bodies: `{error, message}` (team routes) or `{code: "error", message}`; some only `{error}`. */
export function cursorMessageOf(_status: number, body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as { message?: unknown; error?: unknown };
  return messageText(b.message) ?? messageText(b.error);
}

async function pagesOf(
  http: VendorHttp,
  path: string,
  range: { startDate: number; endDate: number },
  pageSize: number,
  take: (body: Record<string, unknown>) => boolean,
): Promise<void> {
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const body = await http.exact({ method: 'POST', path, json: { ...range, page, pageSize } });
    if (!take((body ?? {}) as Record<string, unknown>)) return;
  }
}

type CursorEvent = {
  timestamp?: unknown;
  userEmail?: unknown;
  serviceAccountName?: unknown;
  serviceAccountId?: unknown;
  model?: unknown;
  tokenUsage?: { inputTokens?: unknown; outputTokens?: unknown; cacheWriteTokens?: unknown; cacheReadTokens?: unknown } | null;
  chargedCents?: unknown;
};

type CursorDailyRow = {
  userId?: unknown;
  day?: unknown;
  date?: unknown;
  email?: unknown;
  isActive?: unknown;
  acceptedLinesAdded?: unknown;
  acceptedLinesDeleted?: unknown;
  totalAccepts?: unknown;
  totalTabsAccepted?: unknown;
  totalRejects?: unknown;
};

/** Sums events and daily rows into one row per bucket key (the sync stores each key once). */
class CursorAccumulator {
  private readonly usage = new Map<string, UsageRow>();
  private readonly actors = new Map<string, ActorMetricRow>();

  constructor(private readonly window: DayWindow) {}

  addEvent(event: CursorEvent): void {
    const at = countOrNull(event.timestamp, VENDOR, 'timestamp');
    if (at === null) return;
    const day = dayOfEpochMs(Number(at));
    if (day < this.window.from || day >= this.window.to) return;
    const actor = textOf(event.userEmail) || textOf(event.serviceAccountName) || textOf(event.serviceAccountId);
    const model = textOf(event.model);
    const t = event.tokenUsage ?? {};
    const input = countOf(t.inputTokens, VENDOR, 'inputTokens');
    const cacheRead = countOf(t.cacheReadTokens, VENDOR, 'cacheReadTokens');
    const cacheWrite = countOf(t.cacheWriteTokens, VENDOR, 'cacheWriteTokens');
    const output = countOf(t.outputTokens, VENDOR, 'outputTokens');
    const cost = exactOf(event.chargedCents, VENDOR, 'chargedCents');

    const key = `${day}\u0000${model}\u0000${actor}`;
    const u = this.usage.get(key) ?? emptyUsage(day, model, actor);
    u.uncachedInputTokens += input;
    u.cacheReadTokens += cacheRead;
    u.cacheWrite5mTokens += cacheWrite;
    u.outputTokens += output;
    u.requests = (u.requests ?? 0n) + 1n;
    u.vendorCostCents = sumNullableDecimal(u.vendorCostCents, cost);
    this.usage.set(key, u);

    this.mergeActor(day, actor, model, {
      uncachedInputTokens: input,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      outputTokens: output,
      totalTokens: input + cacheRead + cacheWrite + output,
      requests: 1n,
      vendorCostCents: cost,
    });
  }

  addDaily(row: CursorDailyRow): void {
    if (row.isActive === false) return;
    const ms = countOrNull(row.date, VENDOR, 'date');
    const day = typeof row.day === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(row.day) ? row.day : ms === null ? null : dayOfEpochMs(Number(ms));
    if (day === null || day < this.window.from || day >= this.window.to) return;
    const actor = textOf(row.email) || (row.userId === undefined || row.userId === null ? '' : String(row.userId));
    this.mergeActor(day, actor, '', {
      linesAdded: countOrNull(row.acceptedLinesAdded, VENDOR, 'acceptedLinesAdded'),
      linesRemoved: countOrNull(row.acceptedLinesDeleted, VENDOR, 'acceptedLinesDeleted'),
      accepted: sumNullable(countOrNull(row.totalAccepts, VENDOR, 'totalAccepts'), countOrNull(row.totalTabsAccepted, VENDOR, 'totalTabsAccepted')),
      rejected: countOrNull(row.totalRejects, VENDOR, 'totalRejects'),
    });
  }

  result(): VendorPull {
    return { usage: [...this.usage.values()], costs: [], actors: [...this.actors.values()] };
  }

  private mergeActor(day: string, actor: string, model: string, add: Partial<Record<CountField, bigint | null>> & { vendorCostCents?: Decimal | null }): void {
    const key = `${day}\u0000${actor}\u0000${model}`;
    const row = this.actors.get(key) ?? emptyActor(day, actor, model);
    for (const field of COUNT_FIELDS) {
      if (add[field] !== undefined) row[field] = sumNullable(row[field], add[field] ?? null);
    }
    if (add.vendorCostCents !== undefined) row.vendorCostCents = sumNullableDecimal(row.vendorCostCents, add.vendorCostCents);
    this.actors.set(key, row);
  }
}

const COUNT_FIELDS = [
  'uncachedInputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens', 'totalTokens', 'requests', 'linesAdded', 'linesRemoved', 'accepted', 'rejected',
] as const;
type CountField = (typeof COUNT_FIELDS)[number];

function emptyUsage(day: string, model: string, actor: string): UsageRow {
  return {
    day, model, workspaceId: '', apiKeyId: '', actor, serviceTier: '',
    uncachedInputTokens: 0n, cacheReadTokens: 0n, cacheWrite5mTokens: 0n, cacheWrite1hTokens: 0n, outputTokens: 0n,
    requests: 0n, vendorCostCents: null,
  };
}

function emptyActor(day: string, actor: string, model: string): ActorMetricRow {
  return {
    day, actor, tool: CURSOR_TOOL, model,
    uncachedInputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, outputTokens: null, totalTokens: null,
    sessions: null, requests: null, linesAdded: null, linesRemoved: null, accepted: null, rejected: null,
    commits: null, pullRequests: null, creditsUsed: null, vendorCostCents: null,
  };
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
