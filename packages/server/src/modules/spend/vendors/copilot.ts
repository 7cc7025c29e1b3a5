import { vendorHttp, type VendorHttp } from './http.js';
import { VendorError, type ActorMetricRow, type DayWindow, type VendorClient, type VendorClientOptions } from './types.js';
import { countOrNull, daysOf, messageText, parseExact, sumNullable, textOf } from './units.js';

/**
 * COPILOT client (vendor-apis.md §4): GitHub REST with `Authorization: Bearer`, the JSON media type
 * and an API version; `scope` is the organisation. Per-person daily metrics come from the usage
 * metrics reports (§4.3; the legacy /copilot/metrics route is gone): one `users-1-day` call per day
 * answers signed download links, each an NDJSON file of one record per user. Those links live on
 * a reports host and are fetched without the GitHub token (it must not leave api.github.com).
 *
 * Records → one ActorMetricRow per (day, user login), tool 'copilot', model '': requests = user-
 * initiated interactions, accepted = acceptance activities, lines added / removed, and the CLI's
 * sessions and tokens where the CLI was used. No dollar figure: Copilot is billed per seat.
 * A day with no report (204, or 404 for a day GitHub has no report for) gives no rows.
 *
 * Probe: the seats list, one seat (§4.4), which needs the token to reach the organisation's Copilot.
 */
export const COPILOT_TOOL = 'copilot';
export const GITHUB_API_VERSION = '2026-03-10';
/** The vendor label of GitHub's API (errors, metrics), for Copilot and the outcome sources' pull-request search. */
export const GITHUB = 'GitHub';
const VENDOR = GITHUB;

/** GitHub's REST API headers (vendor-apis.md §4): the token as bearer, GitHub's JSON media type and the API version. */
export function githubApiHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'x-github-api-version': GITHUB_API_VERSION };
}
const SEATS_PAGE_SIZE = 100;
const MAX_PAGES = 1000;

export type CopilotSeat = {
  login: string;
  planType: string | null;
  lastActivityAt: string | null;
  pendingCancellationDate: string | null;
};

export type CopilotClient = VendorClient & {
  /** Every seat of the organisation, all pages (§4.4). */
  listSeats(): Promise<CopilotSeat[]>;
};

export function createCopilotClient(options: VendorClientOptions): CopilotClient {
  const api = vendorHttp(options, {
    vendor: VENDOR,
    authHeaders: githubApiHeaders(options.adminKey),
    messageOf: githubMessageOf,
  });
  // Signed report links: same timeout, retries and outbound guard, but no GitHub credentials.
  const reports = vendorHttp(options, { vendor: `${VENDOR} reports`, authHeaders: { accept: 'application/x-ndjson, */*' }, messageOf: githubMessageOf });

  function orgPath(): string {
    const org = options.scope?.trim() ?? '';
    if (!org) throw new VendorError('COPILOT needs the GitHub organisation as its scope');
    return `/orgs/${encodeURIComponent(org)}`;
  }

  async function seatsPage(page: number, perPage: number): Promise<{ total: number | null; seats: unknown[] }> {
    const body = (await api.exact({ path: `${orgPath()}/copilot/billing/seats`, query: { per_page: perPage, page } })) as
      | { total_seats?: unknown; seats?: unknown }
      | null;
    const total = countOrNull(body?.total_seats, VENDOR, 'total_seats');
    return { total: total === null ? null : Number(total), seats: Array.isArray(body?.seats) ? body.seats : [] };
  }

  return {
    provider: 'COPILOT',
    async probe() {
      await seatsPage(1, 1);
    },
    async pull(window) {
      const rows = new Map<string, ActorMetricRow>();
      for (const day of daysOf(window)) {
        for (const record of await userRecordsOf(api, reports, orgPath(), day)) {
          const row = toActorRow(record, day, window);
          if (!row) continue;
          const key = `${row.day}\u0000${row.actor}`;
          const seen = rows.get(key);
          rows.set(key, seen ? mergeRows(seen, row) : row);
        }
      }
      return { usage: [], costs: [], actors: [...rows.values()] };
    },
    async listSeats() {
      const seats: CopilotSeat[] = [];
      // Page numbers (the pages GitHub's Link header names) until total_seats are read, or, without
      // a total, until a short page; an empty page always ends it.
      for (let page = 1; page <= MAX_PAGES; page += 1) {
        const { total, seats: batch } = await seatsPage(page, SEATS_PAGE_SIZE);
        for (const s of batch as Array<Record<string, unknown>>) seats.push(toSeat(s));
        const more = total !== null ? seats.length < total : batch.length >= SEATS_PAGE_SIZE;
        if (batch.length === 0 || !more) break;
      }
      return seats;
    },
  };
}

/** GitHub's error body: `{message, documentation_url, status?}`. */
export function githubMessageOf(_status: number, body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  return messageText((body as { message?: unknown }).message);
}

async function userRecordsOf(api: VendorHttp, reports: VendorHttp, org: string, day: string): Promise<unknown[]> {
  let answer: { download_links?: unknown } | null;
  try {
    answer = (await api.exact({ path: `${org}/copilot/metrics/reports/users-1-day`, query: { day } })) as typeof answer;
  } catch (err) {
    if (err instanceof VendorError && err.status === 404) return [];
    throw err;
  }
  const links = Array.isArray(answer?.download_links) ? answer.download_links.filter((l): l is string => typeof l === 'string') : [];
  const records: unknown[] = [];
  for (const link of links) {
    const text = await reports.text({ path: '', absoluteUrl: link });
    for (const line of text.split('\n')) {
      if (line.trim() !== '') records.push(parseExact(`${VENDOR} reports`, line));
    }
  }
  return records;
}

type UserRecord = {
  day?: unknown;
  user_id?: unknown;
  user_login?: unknown;
  user_initiated_interaction_count?: unknown;
  code_acceptance_activity_count?: unknown;
  loc_added_sum?: unknown;
  loc_deleted_sum?: unknown;
  totals_by_cli?: { session_count?: unknown; token_usage?: { prompt_tokens_sum?: unknown; output_tokens_sum?: unknown } | null } | null;
};

function toActorRow(value: unknown, askedDay: string, window: DayWindow): ActorMetricRow | null {
  if (!value || typeof value !== 'object') return null;
  const r = value as UserRecord;
  const day = typeof r.day === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(r.day) ? r.day : askedDay;
  if (day < window.from || day >= window.to) return null;
  const actor = textOf(r.user_login) || (r.user_id === undefined || r.user_id === null ? '' : String(r.user_id));
  if (!actor) return null;
  const cli = r.totals_by_cli ?? null;
  const prompt = countOrNull(cli?.token_usage?.prompt_tokens_sum, VENDOR, 'prompt_tokens_sum');
  const output = countOrNull(cli?.token_usage?.output_tokens_sum, VENDOR, 'output_tokens_sum');
  return {
    day, actor, tool: COPILOT_TOOL, model: '',
    // The CLI reports prompt tokens without saying how many were cached: no uncached split.
    uncachedInputTokens: null, cacheReadTokens: null, cacheWriteTokens: null,
    outputTokens: output,
    totalTokens: sumNullable(prompt, output),
    sessions: countOrNull(cli?.session_count, VENDOR, 'session_count'),
    requests: countOrNull(r.user_initiated_interaction_count, VENDOR, 'user_initiated_interaction_count'),
    linesAdded: countOrNull(r.loc_added_sum, VENDOR, 'loc_added_sum'),
    linesRemoved: countOrNull(r.loc_deleted_sum, VENDOR, 'loc_deleted_sum'),
    accepted: countOrNull(r.code_acceptance_activity_count, VENDOR, 'code_acceptance_activity_count'),
    rejected: null, commits: null, pullRequests: null, creditsUsed: null, vendorCostCents: null,
  };
}

function mergeRows(a: ActorMetricRow, b: ActorMetricRow): ActorMetricRow {
  return {
    ...a,
    outputTokens: sumNullable(a.outputTokens, b.outputTokens),
    totalTokens: sumNullable(a.totalTokens, b.totalTokens),
    sessions: sumNullable(a.sessions, b.sessions),
    requests: sumNullable(a.requests, b.requests),
    linesAdded: sumNullable(a.linesAdded, b.linesAdded),
    linesRemoved: sumNullable(a.linesRemoved, b.linesRemoved),
    accepted: sumNullable(a.accepted, b.accepted),
  };
}

function toSeat(s: Record<string, unknown>): CopilotSeat {
  const assignee = (s.assignee ?? {}) as { login?: unknown };
  const orNull = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    login: textOf(assignee.login),
    planType: orNull(s.plan_type),
    lastActivityAt: orNull(s.last_activity_at),
    pendingCancellationDate: orNull(s.pending_cancellation_date),
  };
}
