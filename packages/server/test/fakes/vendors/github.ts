import { addDays, bearerOf, exactJson, failureAnswer, FailureQueue, type Failure } from './fake-kit.js';
import { startHttpFake, type FakeRequest, type FakeResponse, type HttpFake } from './http-fake.js';

/**
 * Loopback fake of GitHub's Copilot REST routes (vendor-apis.md §4), for tests only. Point the client
 * (or APP_SPEND_GITHUB_BASE_URL) at `fake.url`; the connection's scope is the organisation
 * (`fake.org`, default 'acme').
 *
 * - Auth: `Authorization: Bearer <key>`; any other token → 401 `{"message":"Bad credentials",
 *   "documentation_url":"https://docs.github.com/rest","status":"401"}`. An `X-GitHub-Api-Version`
 *   other than 2022-11-28 / 2026-03-10 → 400. Another organisation → 404 `{"message":"Not Found",...}`.
 * - `GET /orgs/{org}/copilot/billing/seats?per_page=&page=` (per_page ≤ 100 and ≤ `pageSize`), with
 *   `total_seats` and a `Link` header (`rel="next"`, `rel="last"`).
 * - `GET /orgs/{org}/copilot/metrics/reports/users-1-day?day=YYYY-MM-DD` → `{download_links,
 *   report_day}`, or 204 when the day has no records. The links point at this fake's `/_reports/…`,
 *   serve NDJSON (records split over `linksPerReport` files) and, like signed storage links, refuse a
 *   request that carries an Authorization header (400).
 * - `GET /search/issues?q=&per_page=&page=` (vendor-apis.md §4.5) over `pulls` (merged pull requests
 *   seeded with `addPulls`): `q` must hold `is:pr`; `repo:o/r` qualifiers OR together (a repository
 *   the fake does not know → 422 with GitHub's validation message); `is:merged` and
 *   `merged:A..B` (dates or UTC timestamps, both ends inclusive) filter. Like GitHub it serves only
 *   the first 1,000 results of a query (a page past them → 422) while `total_count` says how many
 *   match. Items carry `number`, `title`, `html_url`, `repository_url`, `user.login`, `state`,
 *   `closed_at` and `pull_request.merged_at`.
 * - `failNext(n, { status: 429, retryAfter: '1' })` scripts the next n calls (any path, links too);
 *   `headers` adds response headers (`x-ratelimit-remaining`, `x-ratelimit-reset`).
 *
 * Seeding N days in one line: `fake.seedDays({ from: '2026-09-01', days: 3 })` adds per day one
 * record per user (default logins 'dana', 'eli') with the §4.3 example numbers: 14 interactions,
 * 22 acceptances, 180 lines added, 12 deleted, and CLI use (2 sessions, 3000 prompt + 500 output
 * tokens). `seedSeats(n)` adds n seats (logins user1…userN).
 */
export const GITHUB_FAKE_KEY = 'ghp_fakeFAKEfake0000000000000000000000';
const API_VERSIONS = new Set(['2022-11-28', '2026-03-10']);
const DOCS = 'https://docs.github.com/rest';

export type CopilotUserRecord = {
  day: string;
  user_id: number;
  user_login: string;
  organization_id?: string;
  user_initiated_interaction_count?: number;
  code_generation_activity_count?: number;
  code_acceptance_activity_count?: number;
  loc_suggested_to_add_sum?: number;
  loc_suggested_to_delete_sum?: number;
  loc_added_sum?: number;
  loc_deleted_sum?: number;
  used_agent?: boolean;
  used_chat?: boolean;
  used_cli?: boolean;
  totals_by_model_feature?: unknown[];
  totals_by_cli?: { session_count: number; request_count: number; prompt_count: number; token_usage: { prompt_tokens_sum: number; output_tokens_sum: number; avg_tokens_per_request: number } };
};

export type CopilotFakeSeat = { login: string; id: number; plan_type: 'business' | 'enterprise'; last_activity_at: string | null };

export type FakePull = { repo: string; number: number; title: string; author: string; mergedAt: string };

export type GithubFake = HttpFake & {
  key: string;
  setKey(key: string): void;
  org: string;
  /** Largest seats page the fake serves (default 100). */
  pageSize: number;
  /** How many NDJSON files one day's report is split into (default 1). */
  linksPerReport: number;
  records: CopilotUserRecord[];
  seats: CopilotFakeSeat[];
  pulls: FakePull[];
  /** Repositories the search knows (adding pulls adds theirs). */
  repos: Set<string>;
  addPulls(pulls: FakePull[]): void;
  /** `count` merged pull requests in `repo`, spread evenly over [from, from + days) UTC, authors cycling over `authors`. */
  seedPulls(options: { repo: string; from: string; days: number; count: number; authors?: string[] }): void;
  addRecords(records: CopilotUserRecord[]): void;
  seedDays(options: { from: string; days: number; users?: string[] }): { records: number };
  seedSeats(count: number): void;
  failNext(count: number, failure: Failure): void;
  /** Back to the start state (no data, no scripted failures, no recorded requests; key and org stay). */
  reset(): void;
};

export async function startGithubFake(options: { key?: string; org?: string } = {}): Promise<GithubFake> {
  const failures = new FailureQueue();
  const state = {
    key: options.key ?? GITHUB_FAKE_KEY,
    org: options.org ?? 'acme',
    pageSize: 100,
    linksPerReport: 1,
    records: [] as CopilotUserRecord[],
    seats: [] as CopilotFakeSeat[],
    pulls: [] as FakePull[],
    repos: new Set<string>(),
  };
  let origin = '';

  const fake = await startHttpFake((req) => {
    const download = /^\/_reports\/users-1-day\/(\d{4}-\d{2}-\d{2})\/(\d+)\.ndjson$/.exec(req.path);
    if (download) {
      if (req.headers['authorization']) {
        return { status: 400, text: '<Error><Code>InvalidAuthenticationInfo</Code></Error>', headers: { 'content-type': 'application/xml' } };
      }
      if (req.query.get('sig') !== 'fake') return { status: 403, text: '<Error><Code>AuthenticationFailed</Code></Error>', headers: { 'content-type': 'application/xml' } };
      const failure = failures.take(req);
      return failure ? failureAnswer(failure, errorBody) : reportFile(state.records, download[1]!, Number(download[2]), state.linksPerReport);
    }
    if (bearerOf(req) !== state.key) return { status: 401, json: { message: 'Bad credentials', documentation_url: DOCS, status: '401' } };
    const version = req.headers['x-github-api-version'];
    if (typeof version === 'string' && !API_VERSIONS.has(version)) {
      return { status: 400, json: { message: `The requested API version '${version}' is not supported.`, documentation_url: DOCS, status: '400' } };
    }
    const failure = failures.take(req);
    if (failure) return failureAnswer(failure, errorBody);
    if (req.method === 'GET' && req.path === '/search/issues') return searchIssues(req, state.pulls, state.repos, origin);
    const route = /^\/orgs\/([^/]+)\/copilot\/(billing\/seats|metrics\/reports\/users-1-day)$/.exec(req.path);
    if (req.method !== 'GET' || !route || decodeURIComponent(route[1]!) !== state.org) return notFound();
    if (route[2] === 'billing/seats') return seats(req, state.seats, state.pageSize, origin);
    return usersReport(req, state.records, state.linksPerReport, origin);
  });
  origin = fake.url;

  return {
    ...fake,
    get key() {
      return state.key;
    },
    setKey(key) {
      state.key = key;
    },
    get org() {
      return state.org;
    },
    get pageSize() {
      return state.pageSize;
    },
    set pageSize(size: number) {
      state.pageSize = size;
    },
    get linksPerReport() {
      return state.linksPerReport;
    },
    set linksPerReport(n: number) {
      state.linksPerReport = n;
    },
    get records() {
      return state.records;
    },
    get seats() {
      return state.seats;
    },
    get pulls() {
      return state.pulls;
    },
    get repos() {
      return state.repos;
    },
    addPulls(pulls) {
      for (const p of pulls) state.repos.add(p.repo);
      state.pulls.push(...pulls);
    },
    seedPulls({ repo, from, days, count, authors = ['dana', 'eli'] }) {
      state.repos.add(repo);
      const start = Date.parse(`${from}T00:00:00Z`);
      const step = (days * 86_400_000) / count;
      const base = state.pulls.filter((p) => p.repo === repo).length;
      for (let i = 0; i < count; i += 1) {
        const at = new Date(start + Math.floor(i * step / 1000) * 1000).toISOString().replace('.000Z', 'Z');
        state.pulls.push({ repo, number: base + i + 1, title: `Change ${base + i + 1}`, author: authors[i % authors.length]!, mergedAt: at });
      }
    },
    addRecords(records) {
      state.records.push(...records);
    },
    seedDays({ from, days, users = ['dana', 'eli'] }) {
      for (let d = 0; d < days; d += 1) {
        const day = addDays(from, d);
        users.forEach((login, u) => {
          state.records.push({
            day, user_id: 583231 + u, user_login: login, organization_id: '9919',
            user_initiated_interaction_count: 14, code_generation_activity_count: 40, code_acceptance_activity_count: 22,
            loc_suggested_to_add_sum: 150, loc_suggested_to_delete_sum: 10, loc_added_sum: 180, loc_deleted_sum: 12,
            used_agent: true, used_chat: true, used_cli: true,
            totals_by_model_feature: [{ model: 'claude-4.5-sonnet', feature: 'chat_panel_agent_mode', user_initiated_interaction_count: 9 }],
            totals_by_cli: { session_count: 2, request_count: 6, prompt_count: 5, token_usage: { prompt_tokens_sum: 3000, output_tokens_sum: 500, avg_tokens_per_request: 583.33 } },
          });
        });
      }
      return { records: days * users.length };
    },
    seedSeats(count) {
      for (let i = 1; i <= count; i += 1) {
        state.seats.push({ login: `user${state.seats.length + 1}`, id: 1000 + state.seats.length, plan_type: 'business', last_activity_at: '2026-09-01T16:20:00Z' });
      }
    },
    failNext(count, failure) {
      failures.push(count, failure);
    },
    reset() {
      state.records.length = 0;
      state.seats.length = 0;
      state.pulls.length = 0;
      state.repos.clear();
      state.pageSize = 100;
      state.linksPerReport = 1;
      failures.clear();
      fake.requests.length = 0;
    },
  };
}

function errorBody(status: number, message?: string): unknown {
  return { message: message ?? (status === 429 ? 'API rate limit exceeded' : 'Server Error'), documentation_url: DOCS, status: String(status) };
}

function notFound(): FakeResponse {
  return { status: 404, json: { message: 'Not Found', documentation_url: DOCS, status: '404' } };
}

function seats(req: FakeRequest, all: CopilotFakeSeat[], maxPageSize: number, origin: string): FakeResponse {
  const perPage = Math.min(Number(req.query.get('per_page') ?? 50) || 50, 100, maxPageSize);
  const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(all.length / perPage));
  const link = (p: number) => `<${origin}${req.path}?per_page=${perPage}&page=${p}>`;
  const links = page < last ? [`${link(page + 1)}; rel="next"`, `${link(last)}; rel="last"`] : [];
  return exactJson(
    200,
    {
      total_seats: all.length,
      seats: all.slice((page - 1) * perPage, page * perPage).map((s) => ({
        created_at: '2026-01-05T10:00:00Z', updated_at: '2026-01-05T10:00:00Z', pending_cancellation_date: null,
        last_activity_at: s.last_activity_at, last_activity_editor: 'vscode/1.103.0/copilot-chat/0.30.0', last_authenticated_at: s.last_activity_at,
        plan_type: s.plan_type, assigning_team: null, assignee: { login: s.login, id: s.id, type: 'User' },
      })),
    },
    links.length ? { link: links.join(', ') } : {},
  );
}

function usersReport(req: FakeRequest, records: CopilotUserRecord[], linksPerReport: number, origin: string): FakeResponse {
  const day = req.query.get('day') ?? '';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) {
    return { status: 422, json: { message: 'Invalid request: day must be YYYY-MM-DD', documentation_url: DOCS, status: '422' } };
  }
  if (!records.some((r) => r.day === day)) return { status: 204 };
  const links = Array.from({ length: linksPerReport }, (_, i) => `${origin}/_reports/users-1-day/${day}/${i}.ndjson?sig=fake`);
  return exactJson(200, { download_links: links, report_day: day });
}

function reportFile(records: CopilotUserRecord[], day: string, part: number, parts: number): FakeResponse {
  const lines = records.filter((r) => r.day === day).filter((_, i) => i % parts === part).map((r) => JSON.stringify(r));
  return { status: 200, text: lines.map((l) => `${l}\n`).join(''), headers: { 'content-type': 'application/x-ndjson' } };
}

const SEARCH_CAP = 1000;

/** `merged:A..B` bounds (inclusive) → [fromMs, toMs]; a date end covers its whole day. */
function mergedBounds(value: string): [number, number] | null {
  const m = /^(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}Z)?)\.\.(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}Z)?)$/.exec(value);
  if (!m) return null;
  const at = (s: string) => Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s);
  const end = m[2]!.length === 10 ? at(m[2]!) + 86_400_000 - 1 : at(m[2]!) + 999;
  return [at(m[1]!), end];
}

function searchIssues(req: FakeRequest, pulls: FakePull[], repos: Set<string>, origin: string): FakeResponse {
  const invalid = (message: string) => ({ status: 422, json: { message: 'Validation Failed', errors: [{ message, resource: 'Search', field: 'q', code: 'invalid' }], documentation_url: DOCS, status: '422' } });
  const terms = (req.query.get('q') ?? '').split(/\s+/).filter(Boolean);
  if (!terms.includes('is:pr')) return invalid('Query must include is:pr or is:issue');
  const wanted = terms.filter((t) => t.startsWith('repo:')).map((t) => t.slice(5));
  if (wanted.some((r) => !repos.has(r))) {
    return invalid('The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.');
  }
  const merged = terms.find((t) => t.startsWith('merged:'));
  const bounds = merged ? mergedBounds(merged.slice(7)) : null;
  if (merged && !bounds) return invalid(`Invalid merged qualifier: ${merged}`);
  const perPage = Math.min(Number(req.query.get('per_page') ?? 30) || 30, 100);
  const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
  if ((page - 1) * perPage >= SEARCH_CAP) return invalid('Only the first 1000 search results are available');
  const matching = pulls
    .filter((p) => wanted.length === 0 || wanted.includes(p.repo))
    .filter((p) => !bounds || (Date.parse(p.mergedAt) >= bounds[0] && Date.parse(p.mergedAt) <= bounds[1]))
    .sort((a, b) => Date.parse(a.mergedAt) - Date.parse(b.mergedAt) || a.repo.localeCompare(b.repo) || a.number - b.number);
  const items = matching.slice(0, SEARCH_CAP).slice((page - 1) * perPage, page * perPage).map((p) => ({
    number: p.number,
    title: p.title,
    html_url: `https://github.com/${p.repo}/pull/${p.number}`,
    repository_url: `${origin}/repos/${p.repo}`,
    state: 'closed',
    user: { login: p.author, id: 583231 },
    created_at: p.mergedAt,
    closed_at: p.mergedAt,
    pull_request: { url: `${origin}/repos/${p.repo}/pulls/${p.number}`, html_url: `https://github.com/${p.repo}/pull/${p.number}`, merged_at: p.mergedAt },
  }));
  return exactJson(200, { total_count: matching.length, incomplete_results: false, items });
}
