import { invalid } from '../../../platform/errors/app-error.js';
import { dec } from '../../../platform/money.js';
import type { ActorMetricRow, CostRow, DayWindow, UsageRow, VendorPull } from '../vendors/types.js';

/**
 * The sync's pure rules (contract §7.2): the window `[from, to)` of days, its chunks, and what a
 * chunk writes (rows inside the chunk only, rows of the same key summed).
 */

const DAY_MS = 86_400_000;
/** A sync asks for at most this many days (a year and a day: a leap year's worth of history). */
export const MAX_SYNC_DAYS = 366;
/** Default window length when `from` is not given. */
export const DEFAULT_SYNC_DAYS = 30;

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** True for a real calendar day written YYYY-MM-DD (2026-02-30 is not one). */
export function isDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}

export function utcDayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * The window a sync asks for: `to` defaults to tomorrow (UTC, so today is included), `from` to
 * `to` − 30 days. Refuses unreadable days, `from` ≥ `to`, and windows over MAX_SYNC_DAYS.
 */
export function syncWindowOf(query: { from?: string | undefined; to?: string | undefined }, now: Date): DayWindow {
  for (const name of ['from', 'to'] as const) {
    const value = query[name];
    if (value !== undefined && !isDay(value)) throw invalid(`Invalid value for parameter: ${name} (expected a date YYYY-MM-DD)`);
  }
  const to = query.to ?? addDays(utcDayOf(now), 1);
  const from = query.from ?? addDays(to, -DEFAULT_SYNC_DAYS);
  if (from >= to) throw invalid(`from (${from}) must be before to (${to}): the window is [from, to)`);
  const days = daysBetween(from, to);
  if (days > MAX_SYNC_DAYS) throw invalid(`A sync window is at most ${MAX_SYNC_DAYS} days; [${from}, ${to}) has ${days}: sync it in parts`);
  return { from, to };
}

/** The window cut into consecutive chunks of at most `chunkDays` days, oldest first. */
export function chunksOf(window: DayWindow, chunkDays: number): DayWindow[] {
  const chunks: DayWindow[] = [];
  for (let from = window.from; from < window.to; from = addDays(from, chunkDays)) {
    const end = addDays(from, chunkDays);
    chunks.push({ from, to: end < window.to ? end : window.to });
  }
  return chunks;
}

export type ChunkRows = { usage: UsageRow[]; costs: CostRow[]; actors: ActorMetricRow[]; outside: number };

const inside = (day: string, w: DayWindow) => day >= w.from && day < w.to;

/**
 * What a chunk writes: the vendor's rows whose day lies in the chunk (others are counted in
 * `outside` and dropped: a chunk replaces exactly its own window), usage and actor rows of the same
 * key summed into one.
 */
export function chunkRowsOf(pull: VendorPull, chunk: DayWindow): ChunkRows {
  const usage = pull.usage.filter((r) => inside(r.day, chunk));
  const costs = pull.costs.filter((r) => inside(r.day, chunk));
  const actors = pull.actors.filter((r) => inside(r.day, chunk));
  const outside = pull.usage.length - usage.length + pull.costs.length - costs.length + pull.actors.length - actors.length;
  return { usage: mergeUsageRows(usage), costs, actors: mergeActorRows(actors), outside };
}

export function rowCountOf(rows: { usage: unknown[]; costs: unknown[]; actors: unknown[] }): number {
  return rows.usage.length + rows.costs.length + rows.actors.length;
}

/** null + null = null (not reported); a reported value plus an unreported one is the reported one. */
function addNullable<T extends bigint | ReturnType<typeof dec>>(a: T | null, b: T | null): T | null {
  if (a === null) return b;
  if (b === null) return a;
  return (typeof a === 'bigint' ? (a as bigint) + (b as bigint) : (a as ReturnType<typeof dec>).plus(b as ReturnType<typeof dec>)) as T;
}

/**
 * The row a key's sums go into: a copy made on the key's first duplicate (most keys have none, so
 * a 100k-row pull is not copied), never the vendor's own row.
 */
function summed<T extends object>(byKey: Map<string, T>, key: string, first: T, copies: Set<T>): T {
  if (copies.has(first)) return first;
  const copy = { ...first };
  copies.add(copy);
  byKey.set(key, copy);
  return copy;
}

export function mergeUsageRows(rows: UsageRow[]): UsageRow[] {
  const byKey = new Map<string, UsageRow>();
  const copies = new Set<UsageRow>();
  for (const r of rows) {
    const key = `${r.day}\u0000${r.model}\u0000${r.workspaceId}\u0000${r.apiKeyId}\u0000${r.actor}\u0000${r.serviceTier}`;
    const first = byKey.get(key);
    if (!first) {
      byKey.set(key, r);
      continue;
    }
    const seen = summed(byKey, key, first, copies);
    seen.uncachedInputTokens += r.uncachedInputTokens;
    seen.cacheReadTokens += r.cacheReadTokens;
    seen.cacheWrite5mTokens += r.cacheWrite5mTokens;
    seen.cacheWrite1hTokens += r.cacheWrite1hTokens;
    seen.outputTokens += r.outputTokens;
    seen.requests = addNullable(seen.requests, r.requests);
    seen.vendorCostCents = addNullable(seen.vendorCostCents, r.vendorCostCents);
  }
  return [...byKey.values()];
}

const ACTOR_SUMS = [
  'uncachedInputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens', 'totalTokens', 'sessions', 'requests',
  'linesAdded', 'linesRemoved', 'accepted', 'rejected', 'commits', 'pullRequests', 'creditsUsed', 'vendorCostCents',
] as const;

export function mergeActorRows(rows: ActorMetricRow[]): ActorMetricRow[] {
  const byKey = new Map<string, ActorMetricRow>();
  const copies = new Set<ActorMetricRow>();
  for (const r of rows) {
    const key = `${r.day}\u0000${r.actor}\u0000${r.tool}\u0000${r.model}`;
    const first = byKey.get(key);
    if (!first) {
      byKey.set(key, r);
      continue;
    }
    const seen = summed(byKey, key, first, copies);
    const target = seen as unknown as Record<string, bigint | ReturnType<typeof dec> | null>;
    for (const field of ACTOR_SUMS) target[field] = addNullable(seen[field], r[field]);
  }
  return [...byKey.values()];
}

/** The message a connection carries when a chunk came back empty where rows were stored. */
export function zeroRowMessage(protectedChunks: { chunk: DayWindow; stored: number }[]): string {
  const parts = protectedChunks.map(({ chunk, stored }) => `[${chunk.from}, ${chunk.to}) (${stored} rows stored)`);
  return `The vendor returned no rows for ${parts.join(', ')}; the stored rows were kept (a vendor outage must not erase history). Sync again once the vendor reports usage.`;
}
