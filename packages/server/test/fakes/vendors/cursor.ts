import { Decimal } from '../../../src/platform/money.js';
import { addDays, decOf, exactJson, failureAnswer, FailureQueue, msOfDay, timeIndex, type Failure } from './fake-kit.js';
import { startHttpFake, type FakeRequest, type FakeResponse, type HttpFake } from './http-fake.js';

/**
 * Loopback fake of the Cursor Admin API (vendor-apis.md §3), for tests only. Point the client (or
 * APP_SPEND_CURSOR_BASE_URL) at `fake.url`.
 *
 * - Auth: HTTP Basic, the key as user name and an empty password; any other key → 401
 *   `{"error":"Unauthorized","message":"Invalid API key"}` (the shape of Cursor's team-route errors).
 * - `GET /teams/members`; `POST /teams/filtered-usage-events` (events whose epoch-ms timestamp lies in
 *   [startDate, endDate], both inclusive, newest first; `page`/`pageSize`, capped at `pageSize`
 *   of the fake); `POST /teams/daily-usage-data` (rows of days in the range; with `page` + `pageSize`
 *   it pages over users). Both POSTs refuse a range over 30 days with 400, as Cursor does.
 * - `failNext(n, { status: 429, retryAfter: '1' })` scripts the next n calls (Cursor's 429 body:
 *   `{"error":"Too Many Requests","message":"Rate limit exceeded. Please try again later."}`).
 *
 * Seeding N days in one line: `fake.seedDays({ from: '2026-09-01', days: 3 })` adds, per day and per
 * user × model, one event with the §3.4 example numbers (input 1200, output 800, cache write 5000,
 * cache read 20000, chargedCents 3.9) and one active daily row per user (accepted lines 90 / 20,
 * accepts 6, tabs accepted 31, rejects 2). Amounts may be given as strings to keep any precision.
 */
export const CURSOR_FAKE_KEY = `key_${'c'.repeat(64)}`;

export type CursorFakeEvent = {
  /** Epoch ms as a string, as Cursor sends it. */
  timestamp: string;
  userEmail: string;
  model: string;
  kind?: string;
  maxMode?: boolean;
  requestsCosts?: number;
  isTokenBasedCall?: boolean;
  tokenUsage?: { inputTokens: number; outputTokens: number; cacheWriteTokens: number; cacheReadTokens: number; totalCents: number | string };
  /** Cents, fractional; a string keeps any precision. */
  chargedCents: number | string;
  cursorTokenFee?: number | string;
  serviceAccountId?: string;
};

export type CursorFakeDailyRow = {
  userId: number;
  day: string;
  email: string;
  isActive: boolean;
  totalLinesAdded?: number;
  totalLinesDeleted?: number;
  acceptedLinesAdded?: number;
  acceptedLinesDeleted?: number;
  totalAccepts?: number;
  totalRejects?: number;
  totalTabsShown?: number;
  totalTabsAccepted?: number;
  chatRequests?: number;
  mostUsedModel?: string | null;
};

export type CursorFake = HttpFake & {
  /** The key the fake accepts; `setKey` changes it (the old key is then refused with 401). */
  key: string;
  setKey(key: string): void;
  /** Largest page the fake serves (default 1000 events, 500 users); lower it to test paging. */
  pageSize: number;
  events: CursorFakeEvent[];
  daily: CursorFakeDailyRow[];
  addEvents(events: CursorFakeEvent[]): void;
  addDaily(rows: CursorFakeDailyRow[]): void;
  /** Deterministic data for `days` days from `from` (see the file comment); returns what was added. */
  seedDays(options: { from: string; days: number; users?: string[]; models?: string[] }): { events: number; chargedCents: Decimal };
  failNext(count: number, failure: Failure): void;
  /** Calls that reached the data routes (after auth and scripted failures), by path. */
  served(path: string): number;
  /** Back to the start state (no data, no scripted failures, no recorded requests; the key stays). */
  reset(): void;
};

type StartOptions = { key?: string; pageSize?: number };

export async function startCursorFake(options: StartOptions = {}): Promise<CursorFake> {
  const failures = new FailureQueue();
  const byTime = timeIndex((e: CursorFakeEvent) => Number(e.timestamp));
  const servedCount = new Map<string, number>();
  const state = {
    key: options.key ?? CURSOR_FAKE_KEY,
    pageSize: options.pageSize ?? 0,
    events: [] as CursorFakeEvent[],
    daily: [] as CursorFakeDailyRow[],
  };

  const fake = await startHttpFake((req) => {
    if (req.headers['authorization'] !== `Basic ${Buffer.from(`${state.key}:`).toString('base64')}`) {
      return { status: 401, json: { error: 'Unauthorized', message: 'Invalid API key' } };
    }
    const failure = failures.take(req);
    if (failure) return failureAnswer(failure, errorBody);
    servedCount.set(req.path, (servedCount.get(req.path) ?? 0) + 1);
    if (req.method === 'GET' && req.path === '/teams/members') return members(state.events, state.daily);
    if (req.method === 'POST' && req.path === '/teams/filtered-usage-events') return usageEvents(req, (from, to) => byTime.slice(state.events, from, to), state.pageSize || 1000);
    if (req.method === 'POST' && req.path === '/teams/daily-usage-data') return dailyUsage(req, state.daily, state.pageSize || 500);
    return { status: 404, json: { error: 'Not Found', message: 'Resource not found' } };
  });

  return {
    ...fake,
    get key() {
      return state.key;
    },
    setKey(key) {
      state.key = key;
    },
    get pageSize() {
      return state.pageSize;
    },
    set pageSize(size: number) {
      state.pageSize = size;
    },
    get events() {
      return state.events;
    },
    get daily() {
      return state.daily;
    },
    addEvents(events) {
      byTime.invalidate();
      state.events.push(...events);
    },
    addDaily(rows) {
      state.daily.push(...rows);
    },
    seedDays({ from, days, users = ['dana@example.com', 'eli@example.com'], models = ['claude-4.5-sonnet', 'gpt-5'] }) {
      byTime.invalidate();
      let charged = new Decimal(0);
      let count = 0;
      const perDay = users.length * models.length;
      for (let d = 0; d < days; d += 1) {
        const day = addDays(from, d);
        users.forEach((email, u) => {
          models.forEach((model, m) => {
            state.events.push({
              // Spread over the day, never past its end.
              timestamp: String(msOfDay(day) + Math.floor(((u * models.length + m) * 86_400_000) / perDay)),
              userEmail: email, model, kind: 'Usage-based', maxMode: false, requestsCosts: 1, isTokenBasedCall: true,
              tokenUsage: { inputTokens: 1200, outputTokens: 800, cacheWriteTokens: 5000, cacheReadTokens: 20000, totalCents: '3.735' },
              chargedCents: '3.9', cursorTokenFee: '0.165',
            });
            charged = charged.plus('3.9');
            count += 1;
          });
          state.daily.push({
            userId: 101 + u, day, email, isActive: true, totalLinesAdded: 120, totalLinesDeleted: 30, acceptedLinesAdded: 90, acceptedLinesDeleted: 20,
            totalAccepts: 6, totalRejects: 2, totalTabsShown: 50, totalTabsAccepted: 31, chatRequests: 9, mostUsedModel: models[0] ?? null,
          });
        });
      }
      return { events: count, chargedCents: charged };
    },
    failNext(count, failure) {
      failures.push(count, failure);
    },
    served(path) {
      return servedCount.get(path) ?? 0;
    },
    reset() {
      state.events.length = 0;
      byTime.invalidate();
      state.daily.length = 0;
      state.pageSize = options.pageSize ?? 0;
      failures.clear();
      servedCount.clear();
      fake.requests.length = 0;
    },
  };
}

function errorBody(status: number, message?: string): unknown {
  if (status === 429) return { error: 'Too Many Requests', message: message ?? 'Rate limit exceeded. Please try again later.' };
  if (status >= 500) return { error: 'Internal Server Error', message: message ?? 'Something went wrong' };
  return { error: 'Bad Request', message: message ?? 'Bad request' };
}

const MAX_RANGE_MS = 30 * 86_400_000;

/** startDate/endDate as Cursor validates them (epoch ms numbers, ≤ 30 days); a 400 answer when wrong. */
function rangeOf(req: FakeRequest, required: boolean): { start: number; end: number; refusal?: undefined } | { refusal: FakeResponse } {
  const body = (req.json ?? {}) as { startDate?: unknown; endDate?: unknown };
  if (body.startDate === undefined && body.endDate === undefined && !required) return { start: -Infinity, end: Infinity };
  if (typeof body.startDate !== 'number' || typeof body.endDate !== 'number') {
    return { refusal: { status: 400, json: { error: 'Bad Request', message: 'startDate and endDate must be epoch milliseconds' } } };
  }
  if (body.endDate < body.startDate) return { refusal: { status: 400, json: { error: 'Bad Request', message: 'endDate must not be before startDate' } } };
  if (body.endDate - body.startDate >= MAX_RANGE_MS) return { refusal: { status: 400, json: { error: 'Bad Request', message: 'Date range cannot exceed 30 days' } } };
  return { start: body.startDate, end: body.endDate };
}

function paging(req: FakeRequest, max: number, defaultSize: number): { page: number; pageSize: number } {
  const body = (req.json ?? {}) as { page?: unknown; pageSize?: unknown };
  const page = typeof body.page === 'number' && body.page >= 1 ? Math.floor(body.page) : 1;
  const asked = typeof body.pageSize === 'number' && body.pageSize >= 1 ? Math.floor(body.pageSize) : defaultSize;
  return { page, pageSize: Math.min(asked, max) };
}

function usageEvents(req: FakeRequest, eventsIn: (from: number, to: number) => CursorFakeEvent[], maxPageSize: number): FakeResponse {
  const range = rangeOf(req, false);
  if (range.refusal) return range.refusal;
  const { page, pageSize } = paging(req, Math.min(maxPageSize, 1000), 100);
  const matching = eventsIn(range.start, range.end).reverse();
  const numPages = Math.max(1, Math.ceil(matching.length / pageSize));
  const slice = matching.slice((page - 1) * pageSize, page * pageSize).map((e) => ({
    isChargeable: true, isHeadless: false, kind: 'Usage-based', maxMode: false, requestsCosts: 1, isTokenBasedCall: Boolean(e.tokenUsage),
    ...e,
    ...(e.tokenUsage ? { tokenUsage: { ...e.tokenUsage, totalCents: decOf(e.tokenUsage.totalCents) } } : {}),
    chargedCents: decOf(e.chargedCents),
    ...(e.cursorTokenFee !== undefined ? { cursorTokenFee: decOf(e.cursorTokenFee) } : {}),
  }));
  return exactJson(200, {
    totalUsageEventsCount: matching.length,
    pagination: { numPages, currentPage: page, pageSize, hasNextPage: page < numPages, hasPreviousPage: page > 1 },
    usageEvents: slice,
    period: { startDate: range.start, endDate: range.end },
  });
}

function dailyUsage(req: FakeRequest, daily: CursorFakeDailyRow[], maxPageSize: number): FakeResponse {
  const range = rangeOf(req, true);
  if (range.refusal) return range.refusal;
  const inRange = daily.filter((r) => msOfDay(r.day) >= range.start && msOfDay(r.day) <= range.end);
  const body = (req.json ?? {}) as { page?: unknown; pageSize?: unknown };
  const period = { startDate: range.start, endDate: range.end };
  const row = (r: CursorFakeDailyRow) => ({ date: msOfDay(r.day), ...r });
  if (body.page === undefined || body.pageSize === undefined) return exactJson(200, { data: inRange.filter((r) => r.isActive).map(row), period });
  const { page, pageSize } = paging(req, maxPageSize, 500);
  const users = [...new Set(inRange.map((r) => r.userId))].sort((a, b) => a - b);
  const totalPages = Math.max(1, Math.ceil(users.length / pageSize));
  const pageUsers = new Set(users.slice((page - 1) * pageSize, page * pageSize));
  return exactJson(200, {
    data: inRange.filter((r) => pageUsers.has(r.userId)).map(row),
    period,
    pagination: { page, pageSize, totalUsers: users.length, totalPages, hasNextPage: page < totalPages, hasPreviousPage: page > 1 },
  });
}

function members(events: CursorFakeEvent[], daily: CursorFakeDailyRow[]): FakeResponse {
  const emails = [...new Set([...daily.map((r) => r.email), ...events.map((e) => e.userEmail)])];
  if (emails.length === 0) emails.push('dana@example.com');
  return exactJson(200, {
    teamMembers: emails.map((email, i) => ({ id: `user_P${i + 1}`, email, name: email.split('@')[0], role: i === 0 ? 'owner' : 'member', isRemoved: false })),
  });
}
