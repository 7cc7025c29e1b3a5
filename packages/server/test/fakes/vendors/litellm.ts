import { parseJson } from '../../../src/platform/http/json.js';
import { Decimal, isDecimal } from '../../../src/platform/money.js';
import { addDays, bearerOf, decOf, exactJson, failureAnswer, FailureQueue, timeIndex, type Failure } from './fake-kit.js';
import { startHttpFake, type FakeRequest, type FakeResponse, type HttpFake } from './http-fake.js';

/**
 * Loopback fake of a LiteLLM proxy's spend routes (vendor-apis.md §5), for tests only. The fake's
 * `url` is what a LITELLM connection's scope points at (the client's baseUrl).
 *
 * - Auth: `Authorization: Bearer <key>` (or `x-litellm-api-key`); another key → 401 ProxyException
 *   `{"error":{"message":"Authentication Error, Invalid proxy server token passed. ...","type":"auth_error","param":"None","code":"401"}}`.
 * - `GET /spend/logs/v2?start_date=&end_date=&page=&page_size=&sort_by=startTime&sort_order=asc|desc`:
 *   dates `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS` (UTC, both bounds inclusive, a date-only end is the
 *   end of that day); anything else → 400 `{"error":{"message":"Invalid date format: ..."}}`.
 *   `page_size` ≤ 1000 and ≤ `pageSize`. `total` is capped at `totalCap` (10,000 like v1.93+),
 *   `total_is_capped` then true, and pages past `total_pages` keep serving data until it runs out.
 * - Budgets (§5.4): `POST /team/update {team_id}`, `/key/update {key}`, `/user/update {user_id}` with
 *   `max_budget` (USD number, `null` = no limit) and `budget_duration` (`"30s"`, `"30m"`, `"1h"`,
 *   `"1d"`, `"30d"`, and `"1mo"` unless `acceptMonths` is false); an unknown duration → 400
 *   `{"error":{"message":"Invalid budget_duration",...}}`, a non-number `max_budget` → 400. Only
 *   targets the test registered with `addTarget` exist (as on a proxy, where `/team/new` and
 *   `/key/generate` create them); another → 404. Update answers `{team_id, data: {...}}` (the
 *   doc's observed shape; keys and users alike, keyed by their id field). Each accepted update is
 *   kept in `budgetUpdates` with its raw body, so a test can read the exact `max_budget` lexeme.
 * - Read back: `GET /team/info?team_id=` → `{team_id, team_info: {team_id, spend, max_budget,
 *   budget_duration, budget_reset_at}}`, `GET /key/info?key=` → `{key, info: {...}}` (field names
 *   as the doc infers them; the envelopes are the proxy's own). `spend` is what `addTarget` or
 *   `setSpend` seeded (dollars, lexeme kept).
 * - `failNext(n, …)` scripts the next n calls: `{ status: 429, retryAfter: '1' }`, `{ status: 502,
 *   text: '<html>…' }` (a reverse proxy's page), `{ status: 400, json: { detail: '…' } }` (FastAPI);
 *   `path: '/team/update'` limits it to one route.
 *
 * Amounts: `spend` is float dollars on the wire; seed it as a string ('0.1') and the fake writes that
 * very lexeme. Seeding N days in one line: `fake.seedDays({ from: '2026-09-01', days: 3 })` adds per
 * day, per user × model, one log at 10:00 UTC: team 'team-platform', key hash 'hash-<user>',
 * prompt 1200 (of which 200 cache read), completion 300, spend 0.0081 dollars.
 */
export const LITELLM_FAKE_KEY = 'sk-master-fake-0000';

export type LiteLlmFakeLog = {
  request_id: string;
  /** ISO time, e.g. '2026-09-01T10:00:00.000Z'. */
  startTime: string;
  model: string;
  /** Dollars; a string keeps the lexeme. */
  spend: number | string;
  prompt_tokens: number;
  completion_tokens: number;
  user?: string | null;
  team_id?: string | null;
  api_key?: string;
  model_group?: string;
  status?: 'success' | 'failure';
  metadata?: Record<string, unknown> | string;
};

export type LiteLlmTargetKind = 'team' | 'key' | 'user';

/** One budgeted object on the proxy. Dollars; `maxBudget` null = no limit. */
export type LiteLlmFakeTarget = { maxBudget: Decimal | null; budgetDuration: string | null; budgetResetAt: string | null; spend: Decimal };

export type LiteLlmBudgetUpdate = { kind: LiteLlmTargetKind; id: string; body: string; maxBudget: Decimal | null; budgetDuration: string | null };

export type LiteLlmFake = HttpFake & {
  key: string;
  setKey(key: string): void;
  /** Largest page the fake serves (default 1000). */
  pageSize: number;
  /** Where `total` is capped (default 10,000). */
  totalCap: number;
  logs: LiteLlmFakeLog[];
  addLogs(logs: LiteLlmFakeLog[]): void;
  seedDays(options: { from: string; days: number; users?: string[]; models?: string[] }): { logs: number; spendDollars: Decimal };
  failNext(count: number, failure: Failure): void;
  /** Makes a team, key or user exist (spend in dollars, default 0; no budget). */
  addTarget(kind: LiteLlmTargetKind, id: string, options?: { spend?: string }): void;
  setSpend(kind: LiteLlmTargetKind, id: string, dollars: string): void;
  target(kind: LiteLlmTargetKind, id: string): LiteLlmFakeTarget | undefined;
  /** Accepted budget updates, oldest first. */
  budgetUpdates: LiteLlmBudgetUpdate[];
  /** Whether `budget_duration: "1mo"` is accepted (default true; the doc marks it INFERRED). */
  acceptMonths: boolean;
  /** Back to the start state (no data, no scripted failures, no recorded requests; the key stays). */
  reset(): void;
};

export async function startLiteLlmFake(options: { key?: string } = {}): Promise<LiteLlmFake> {
  const failures = new FailureQueue();
  const byTime = timeIndex((l: LiteLlmFakeLog) => Date.parse(l.startTime));
  const state = { key: options.key ?? LITELLM_FAKE_KEY, pageSize: 1000, totalCap: 10_000, logs: [] as LiteLlmFakeLog[], acceptMonths: true };
  const targets = new Map<string, LiteLlmFakeTarget>();
  const budgetUpdates: LiteLlmBudgetUpdate[] = [];
  const targetKey = (kind: LiteLlmTargetKind, id: string) => `${kind}\u0000${id}`;

  const fake = await startHttpFake((req) => {
    const headerKey = typeof req.headers['x-litellm-api-key'] === 'string' ? req.headers['x-litellm-api-key'].replace(/^Bearer /, '') : '';
    const key = bearerOf(req) || headerKey;
    if (key !== state.key) {
      const shown = key.length > 4 ? `sk-...${key.slice(-4)}` : key;
      return proxyError(401, 'auth_error', `Authentication Error, Invalid proxy server token passed. Received API Key = ${shown}, Unable to find token in cache or \`LiteLLM_VerificationTokenTable\``);
    }
    const failure = failures.take(req);
    if (failure) return failureAnswer(failure, errorBody);
    if (req.method === 'GET' && req.path === '/spend/logs/v2') return spendLogs(req, state, (from, to) => byTime.slice(state.logs, from, to));
    const update = UPDATE_ROUTES.find((r) => r.path === req.path);
    if (req.method === 'POST' && update) return budgetUpdate(req, update, state.acceptMonths, (id) => targets.get(targetKey(update.kind, id)), budgetUpdates);
    const info = INFO_ROUTES.find((r) => r.path === req.path);
    if (req.method === 'GET' && info) return budgetInfo(req, info, (id) => targets.get(targetKey(info.kind, id)));
    return { status: 404, json: { detail: 'Not Found' } };
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
    get totalCap() {
      return state.totalCap;
    },
    set totalCap(cap: number) {
      state.totalCap = cap;
    },
    get logs() {
      return state.logs;
    },
    addLogs(logs) {
      byTime.invalidate();
      state.logs.push(...logs);
    },
    seedDays({ from, days, users = ['dana@example.com', 'eli@example.com'], models = ['claude-sonnet-4-5-20250929', 'gpt-5-mini'] }) {
      byTime.invalidate();
      let spend = new Decimal(0);
      for (let d = 0; d < days; d += 1) {
        const day = addDays(from, d);
        users.forEach((user, u) => {
          models.forEach((model, m) => {
            state.logs.push({
              request_id: `chatcmpl-${day}-${u}-${m}`, startTime: `${day}T10:0${m % 10}:00.000Z`, model, spend: '0.0081',
              prompt_tokens: 1200, completion_tokens: 300, user, team_id: 'team-platform', api_key: `hash-${user}`, status: 'success',
              metadata: { user_api_key_alias: `${user}-laptop`, usage_object: { prompt_tokens: 1200, completion_tokens: 300, cache_read_input_tokens: 200, cache_creation_input_tokens: 0 } },
            });
            spend = spend.plus('0.0081');
          });
        });
      }
      return { logs: days * users.length * models.length, spendDollars: spend };
    },
    failNext(count, failure) {
      failures.push(count, failure);
    },
    addTarget(kind, id, { spend = '0' } = {}) {
      targets.set(targetKey(kind, id), { maxBudget: null, budgetDuration: null, budgetResetAt: null, spend: new Decimal(spend) });
    },
    setSpend(kind, id, dollars) {
      const target = targets.get(targetKey(kind, id));
      if (!target) throw new Error(`no ${kind} ${id} on the fake`);
      target.spend = new Decimal(dollars);
    },
    target(kind, id) {
      return targets.get(targetKey(kind, id));
    },
    budgetUpdates,
    get acceptMonths() {
      return state.acceptMonths;
    },
    set acceptMonths(accept: boolean) {
      state.acceptMonths = accept;
    },
    reset() {
      targets.clear();
      budgetUpdates.length = 0;
      state.acceptMonths = true;
      state.logs.length = 0;
      byTime.invalidate();
      state.pageSize = 1000;
      state.totalCap = 10_000;
      failures.clear();
      fake.requests.length = 0;
    },
  };
}

function proxyError(status: number, type: string, message: string): FakeResponse {
  return { status, json: { error: { message, type, param: 'None', code: String(status) } } };
}

function errorBody(status: number, message?: string): unknown {
  if (status === 429) return { error: { message: message ?? 'Rate limit exceeded for this key. Try again later.', type: 'rate_limit_error', param: 'None', code: '429' } };
  return { error: { message: message ?? `Internal Server Error (${status})`, type: 'internal_server_error', param: 'None', code: String(status) } };
}

const DATE = /^(\d{4}-\d{2}-\d{2})( (\d{2}):(\d{2}):(\d{2}))?$/;

/** A LiteLLM date bound → epoch ms; `end` of a date-only value is the end of that day. */
function boundOf(value: string | null, end: boolean): number | null | undefined {
  if (value === null) return undefined;
  const m = DATE.exec(value);
  if (!m) return null;
  const at = Date.parse(`${m[1]}T${m[2] ? `${m[3]}:${m[4]}:${m[5]}` : '00:00:00'}Z`);
  if (Number.isNaN(at)) return null;
  return end ? at + (m[2] ? 999 : 86_399_999) : at;
}

function spendLogs(req: FakeRequest, state: { pageSize: number; totalCap: number }, logsIn: (from: number, to: number) => LiteLlmFakeLog[]): FakeResponse {
  const start = boundOf(req.query.get('start_date'), false);
  const end = boundOf(req.query.get('end_date'), true);
  if (start === null || end === null) {
    const bad = start === null ? req.query.get('start_date') : req.query.get('end_date');
    return proxyError(400, 'bad_request_error', `Invalid date format: ${bad}. Expected: 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS'`);
  }
  const pageSize = Math.min(Math.max(1, Number(req.query.get('page_size') ?? 50) || 50), 1000, state.pageSize);
  const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
  const desc = req.query.get('sort_order') === 'desc';
  const inRange = logsIn(start ?? -Infinity, end ?? Infinity);
  const matching = desc ? inRange.reverse() : inRange;
  const total = Math.min(matching.length, state.totalCap);
  const data = matching.slice((page - 1) * pageSize, page * pageSize).map((l) => ({
    call_type: 'acompletion', total_tokens: l.prompt_tokens + l.completion_tokens, endTime: l.startTime, custom_llm_provider: 'openai',
    end_user: null, request_tags: [], status: 'success', api_key: '', user: null, team_id: null, metadata: {},
    ...l,
    spend: decOf(l.spend),
  }));
  return exactJson(200, { data, total, page, page_size: pageSize, total_pages: Math.ceil(total / pageSize), total_is_capped: matching.length > state.totalCap });
}

const UPDATE_ROUTES = [
  { path: '/team/update', kind: 'team', idField: 'team_id', noun: 'Team' },
  { path: '/key/update', kind: 'key', idField: 'key', noun: 'Key' },
  { path: '/user/update', kind: 'user', idField: 'user_id', noun: 'User' },
] as const;

const INFO_ROUTES = [
  { path: '/team/info', kind: 'team', idField: 'team_id', holder: 'team_info', noun: 'Team' },
  { path: '/key/info', kind: 'key', idField: 'key', holder: 'info', noun: 'Key' },
] as const;

/** `budget_duration` strings of §5.4: seconds, minutes, hours, days; months only when accepted. */
function durationOk(value: string, acceptMonths: boolean): boolean {
  return /^\d+[smhd]$/.test(value) || (acceptMonths && /^\d+mo$/.test(value));
}

function budgetUpdate(
  req: FakeRequest,
  route: (typeof UPDATE_ROUTES)[number],
  acceptMonths: boolean,
  find: (id: string) => LiteLlmFakeTarget | undefined,
  log: LiteLlmBudgetUpdate[],
): FakeResponse {
  let body: Record<string, unknown>;
  try {
    body = parseJson(req.body) as Record<string, unknown>;
  } catch {
    return { status: 422, json: { detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' }] } };
  }
  const id = body?.[route.idField];
  if (typeof id !== 'string' || id === '') return { status: 422, json: { detail: [{ type: 'missing', loc: ['body', route.idField], msg: 'Field required' }] } };
  const target = find(id);
  if (!target) return proxyError(404, 'not_found', `${route.noun} not found, passed ${route.idField}=${id}`);
  const maxBudget = body['max_budget'];
  const hasMax = 'max_budget' in body;
  if (hasMax && maxBudget !== null && !isDecimal(maxBudget) && typeof maxBudget !== 'number') return proxyError(400, 'bad_request', 'max_budget must be a number or null');
  const duration = body['budget_duration'];
  if (duration !== undefined && duration !== null && (typeof duration !== 'string' || !durationOk(duration, acceptMonths))) return proxyError(400, 'bad_request', 'Invalid budget_duration');
  if (hasMax) target.maxBudget = maxBudget === null ? null : new Decimal(String(maxBudget));
  if (typeof duration === 'string') {
    target.budgetDuration = duration;
    const now = new Date();
    target.budgetResetAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  }
  log.push({ kind: route.kind, id, body: req.body, maxBudget: target.maxBudget, budgetDuration: typeof duration === 'string' ? duration : null });
  return exactJson(200, { [route.idField]: id, data: { [route.idField]: id, ...targetFields(target) } });
}

function budgetInfo(req: FakeRequest, route: (typeof INFO_ROUTES)[number], find: (id: string) => LiteLlmFakeTarget | undefined): FakeResponse {
  const id = req.query.get(route.idField) ?? '';
  const target = id ? find(id) : undefined;
  if (!target) return proxyError(404, 'not_found', `${route.noun} not found, passed ${route.idField}=${id}`);
  return exactJson(200, { [route.idField]: id, [route.holder]: { [route.idField]: id, ...targetFields(target) } });
}

function targetFields(target: LiteLlmFakeTarget) {
  return { max_budget: target.maxBudget, budget_duration: target.budgetDuration, budget_reset_at: target.budgetResetAt, spend: target.spend };
}
