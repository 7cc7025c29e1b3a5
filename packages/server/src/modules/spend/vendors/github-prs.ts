import { GITHUB, githubApiHeaders } from './copilot.js';
import { retryAfterMs, vendorHttp } from './http.js';
import { VendorError, type DayWindow, type VendorClientOptions } from './types.js';
import { epochMsOfDay, messageText, textOf } from './units.js';

/**
 * Merged pull requests of a set of repositories, for outcome sources (vendor-apis.md §4.5):
 * `GET /search/issues?q=is:pr is:merged repo:o/r … merged:<from>..<to>`, 100 per page.
 *
 * - The search API answers at most 1,000 results per query: a range whose `total_count` exceeds it
 *   is split in two (by whole days while it spans more than one, then by seconds) and each half
 *   searched on its own, so every merge is reached whatever the volume.
 * - Repositories are searched in groups of REPOS_PER_QUERY (`repo:` qualifiers OR together).
 * - Rate limits: a 403 or 429 with Retry-After, or with `x-ratelimit-remaining: 0` and
 *   `x-ratelimit-reset` within MAX_RATE_LIMIT_WAIT_MS, is waited out and retried (bounded by the
 *   client's retries); a longer wait is a refusal carrying GitHub's message.
 * - `incomplete_results: true` (GitHub's search timed out) asks the same page once more, then takes
 *   what came: a re-pull upserts, and the hourly job re-reads recent days.
 */
export const SEARCH_RESULT_CAP = 1000;
export const SEARCH_PAGE_SIZE = 100;
export const REPOS_PER_QUERY = 20;
export const MAX_RATE_LIMIT_WAIT_MS = 65_000;
const DAY_MS = 86_400_000;

export type MergedPull = {
  /** `owner/repo#number`. */
  externalId: string;
  title: string | null;
  url: string | null;
  authorLogin: string | null;
  mergedAt: Date;
};

export type GithubPrClient = {
  /** One search per repository group, one result: refuses a bad token or a repository it cannot see. */
  probe(repos: readonly string[]): Promise<void>;
  /** Every pull request of the repositories merged in the window [from, to) (UTC days). */
  mergedPulls(repos: readonly string[], window: DayWindow): Promise<MergedPull[]>;
};

type SearchPage = { total_count?: unknown; incomplete_results?: unknown; items?: unknown };

export function createGithubPrClient(options: Omit<VendorClientOptions, 'scope'>): GithubPrClient {
  const api = vendorHttp(
    { ...options, scope: null },
    {
      vendor: GITHUB,
      authHeaders: githubApiHeaders(options.adminKey),
      messageOf: searchMessageOf,
      retryDelayMs: githubRateLimitDelayMs,
    },
  );

  async function search(q: string, page: number, perPage: number): Promise<{ total: number; items: unknown[] }> {
    for (let attempt = 0; ; attempt += 1) {
      const body = (await api.request<SearchPage>({ path: '/search/issues', query: { q, per_page: perPage, page, sort: 'created', order: 'asc' } })) ?? {};
      if (body.incomplete_results === true && attempt === 0) continue;
      const total = typeof body.total_count === 'number' && Number.isSafeInteger(body.total_count) ? body.total_count : 0;
      return { total, items: Array.isArray(body.items) ? body.items : [] };
    }
  }

  async function pullRange(repoTerms: string, fromMs: number, toMs: number, found: Map<string, MergedPull>): Promise<void> {
    const q = `is:pr is:merged ${repoTerms} merged:${mergedQualifier(fromMs, toMs)}`;
    const first = await search(q, 1, SEARCH_PAGE_SIZE);
    if (first.total > SEARCH_RESULT_CAP && toMs - fromMs > 1000) {
      const mid = splitPoint(fromMs, toMs);
      await pullRange(repoTerms, fromMs, mid, found);
      await pullRange(repoTerms, mid, toMs, found);
      return;
    }
    const wanted = Math.min(first.total, SEARCH_RESULT_CAP);
    let items = first.items;
    let seen = items.length;
    for (let page = 1; ; page += 1) {
      for (const item of items) {
        const pull = toMergedPull(item);
        if (pull && pull.mergedAt.getTime() >= fromMs && pull.mergedAt.getTime() < toMs) found.set(pull.externalId, pull);
      }
      if (items.length === 0 || seen >= wanted || page * SEARCH_PAGE_SIZE >= SEARCH_RESULT_CAP) return;
      items = (await search(q, page + 1, SEARCH_PAGE_SIZE)).items;
      seen += items.length;
    }
  }

  return {
    async probe(repos) {
      for (const group of groupsOf(repos)) await search(`is:pr is:merged ${group}`, 1, 1);
    },
    async mergedPulls(repos, window) {
      const found = new Map<string, MergedPull>();
      for (const group of groupsOf(repos)) await pullRange(group, epochMsOfDay(window.from), epochMsOfDay(window.to), found);
      return [...found.values()].sort((a, b) => a.mergedAt.getTime() - b.mergedAt.getTime() || a.externalId.localeCompare(b.externalId));
    },
  };
}

function groupsOf(repos: readonly string[]): string[] {
  if (repos.length === 0) throw new VendorError('A GITHUB source needs at least one owner/repo in its scope');
  const groups: string[] = [];
  for (let i = 0; i < repos.length; i += REPOS_PER_QUERY) groups.push(repos.slice(i, i + REPOS_PER_QUERY).map((r) => `repo:${r}`).join(' '));
  return groups;
}

/** `merged:` takes inclusive bounds: whole days as dates, anything finer as UTC timestamps. */
export function mergedQualifier(fromMs: number, toMs: number): string {
  if (fromMs % DAY_MS === 0 && toMs % DAY_MS === 0) return `${isoDay(fromMs)}..${isoDay(toMs - DAY_MS)}`;
  return `${isoSecond(fromMs)}..${isoSecond(toMs - 1000)}`;
}

/** Where a range over the result cap is split: a day boundary while it spans days, else its middle second. */
export function splitPoint(fromMs: number, toMs: number): number {
  const days = Math.floor((toMs - fromMs) / DAY_MS);
  if (days >= 2 && fromMs % DAY_MS === 0) return fromMs + Math.floor(days / 2) * DAY_MS;
  return fromMs + Math.max(1000, Math.floor((toMs - fromMs) / 2000) * 1000);
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const isoSecond = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** A search item → a merged pull request; null when it is not one (no merge time, no repository). */
export function toMergedPull(value: unknown): MergedPull | null {
  if (!value || typeof value !== 'object') return null;
  const item = value as { number?: unknown; title?: unknown; html_url?: unknown; repository_url?: unknown; closed_at?: unknown; user?: { login?: unknown } | null; pull_request?: { merged_at?: unknown } | null };
  const repo = /\/repos\/([^/]+\/[^/]+)\/?$/.exec(textOf(item.repository_url))?.[1];
  const number = typeof item.number === 'number' && Number.isSafeInteger(item.number) ? item.number : null;
  const when = textOf(item.pull_request?.merged_at) || textOf(item.closed_at);
  const mergedAt = when ? new Date(when) : null;
  if (!repo || number === null || !mergedAt || Number.isNaN(mergedAt.getTime())) return null;
  const orNull = (v: unknown) => textOf(v) || null;
  return { externalId: `${decodeURIComponent(repo)}#${number}`, title: orNull(item.title), url: orNull(item.html_url), authorLogin: orNull(item.user?.login), mergedAt };
}

/** GitHub's error body, with the first validation error's text (422 names the repository problem). */
export function searchMessageOf(_status: number, body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as { message?: unknown; errors?: unknown };
  const message = messageText(b.message);
  const first = Array.isArray(b.errors) ? messageText((b.errors[0] as { message?: unknown } | undefined)?.message) : null;
  if (message && first) return `${message}: ${first}`;
  return message ?? first;
}

/** GitHub's rate-limit answers (403 or 429): Retry-After, else the reset time of a spent limit. */
export function githubRateLimitDelayMs(status: number, headers: Headers, now: number = Date.now()): number | null {
  if (status !== 403 && status !== 429) return null;
  const retryAfter = retryAfterMs(headers.get('retry-after'), now);
  if (retryAfter !== null) return retryAfter;
  if (headers.get('x-ratelimit-remaining') !== '0') return null;
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (!Number.isFinite(reset)) return null;
  const wait = Math.max(0, reset * 1000 - now);
  return wait <= MAX_RATE_LIMIT_WAIT_MS ? wait : null;
}
