import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { SpendProvider } from '../tables.js';
import type { Decimal } from '../../../platform/money.js';
import type { ChunkRows } from './domain.js';
import type { ActorMetricRow, CostRow, DayWindow, UsageRow } from '../vendors/types.js';

/** Rows per INSERT statement (bounds one statement's array parameters). Token counts and cents go as exact text. */
const ROWS_PER_STATEMENT = 10_000;

type Owner = { accountId: string; connectionId: string; provider: SpendProvider };

const int = (v: bigint | null) => (v === null ? null : v.toString());
const num = (v: Decimal | null) => (v === null ? null : v.toFixed());

/** Rows the connection holds in the window, across usage buckets, vendor costs and actor metrics. */
export async function countStoredRows(db: Executor, owner: Owner, window: DayWindow): Promise<number> {
  const where = sql`account_id = ${owner.accountId} and connection_id = ${owner.connectionId} and day >= ${window.from} and day < ${window.to}`;
  const result = await sql<{ n: string }>`
    select (select count(*) from spend_usage_buckets where ${where})
         + (select count(*) from spend_vendor_costs where ${where})
         + (select count(*) from spend_actor_metrics where ${where}) as n`.execute(db);
  return Number(result.rows[0]!.n);
}

/**
 * Inserts a chunk's rows: one `INSERT … SELECT FROM unnest(<one array per column>)` per table and
 * ROWS_PER_STATEMENT rows, so a statement's parameters stay one per column however many rows it
 * carries (PostgreSQL parses and plans it once; PGlite alike).
 */
export async function insertChunkRows(db: Executor, owner: Owner, rows: ChunkRows): Promise<void> {
  for (let i = 0; i < rows.usage.length; i += ROWS_PER_STATEMENT) await insertUsage(db, owner, rows.usage.slice(i, i + ROWS_PER_STATEMENT));
  for (let i = 0; i < rows.costs.length; i += ROWS_PER_STATEMENT) await insertCosts(db, owner, rows.costs.slice(i, i + ROWS_PER_STATEMENT));
  for (let i = 0; i < rows.actors.length; i += ROWS_PER_STATEMENT) await insertActors(db, owner, rows.actors.slice(i, i + ROWS_PER_STATEMENT));
}

/**
 * Column arrays of `rows` as PostgreSQL array literals, one per named field. Sent as one text
 * parameter each and cast in SQL (`($1::text)::bigint[]`): building the literal here is several
 * times cheaper than the driver's generic array encoding, and both drivers take a text parameter.
 * Text is always quoted with `\` and `"` escaped; numbers and days need no quoting.
 */
function columns<R, K extends string>(rows: R[], pick: Record<K, (r: R) => string | null>, quoted: readonly NoInfer<K>[]): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const key of Object.keys(pick) as K[]) {
    const quote = quoted.includes(key);
    const parts = new Array<string>(rows.length);
    for (let i = 0; i < rows.length; i += 1) {
      const value = pick[key](rows[i]!);
      parts[i] = value === null ? 'NULL' : quote ? `"${value.replace(/[\\"]/g, '\\$&')}"` : value;
    }
    out[key] = `{${parts.join(',')}}`;
  }
  return out;
}

/** An array-literal parameter cast to `type`[] (see `columns`). */
const arr = (literal: string, type: 'text' | 'date' | 'bigint' | 'numeric') => sql`(${literal}::text)::${sql.raw(type)}[]`;

async function insertUsage(db: Executor, o: Owner, rows: UsageRow[]): Promise<void> {
  const c = columns(rows, {
    day: (r) => r.day, model: (r) => r.model, workspace: (r) => r.workspaceId, apiKey: (r) => r.apiKeyId, actor: (r) => r.actor, tier: (r) => r.serviceTier,
    uncached: (r) => r.uncachedInputTokens.toString(), cacheRead: (r) => r.cacheReadTokens.toString(), write5m: (r) => r.cacheWrite5mTokens.toString(),
    write1h: (r) => r.cacheWrite1hTokens.toString(), output: (r) => r.outputTokens.toString(), requests: (r) => int(r.requests), cost: (r) => num(r.vendorCostCents),
  }, ['model', 'workspace', 'apiKey', 'actor', 'tier']);
  await sql`
    insert into spend_usage_buckets (account_id, connection_id, provider, day, model, workspace_id, api_key_id, actor, service_tier,
      uncached_input_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, output_tokens, requests, vendor_cost_cents)
    select ${o.accountId}::uuid, ${o.connectionId}::uuid, ${o.provider}, u.*
    from unnest(${arr(c.day, 'date')}, ${arr(c.model, 'text')}, ${arr(c.workspace, 'text')}, ${arr(c.apiKey, 'text')}, ${arr(c.actor, 'text')}, ${arr(c.tier, 'text')},
      ${arr(c.uncached, 'bigint')}, ${arr(c.cacheRead, 'bigint')}, ${arr(c.write5m, 'bigint')}, ${arr(c.write1h, 'bigint')}, ${arr(c.output, 'bigint')},
      ${arr(c.requests, 'bigint')}, ${arr(c.cost, 'numeric')}) as u`.execute(db);
}

async function insertCosts(db: Executor, o: Owner, rows: CostRow[]): Promise<void> {
  const c = columns(rows, {
    day: (r) => r.day, workspace: (r) => r.workspaceId, model: (r) => r.model, description: (r) => r.description, costType: (r) => r.costType, amount: (r) => r.amountCents.toFixed(),
  }, ['workspace', 'model', 'description', 'costType']);
  await sql`
    insert into spend_vendor_costs (account_id, connection_id, provider, day, workspace_id, model, description, cost_type, amount_cents)
    select ${o.accountId}::uuid, ${o.connectionId}::uuid, ${o.provider}, u.*
    from unnest(${arr(c.day, 'date')}, ${arr(c.workspace, 'text')}, ${arr(c.model, 'text')}, ${arr(c.description, 'text')}, ${arr(c.costType, 'text')}, ${arr(c.amount, 'numeric')}) as u`.execute(db);
}

async function insertActors(db: Executor, o: Owner, rows: ActorMetricRow[]): Promise<void> {
  const c = columns(rows, {
    day: (r) => r.day, actor: (r) => r.actor, tool: (r) => r.tool, model: (r) => r.model,
    uncached: (r) => int(r.uncachedInputTokens), cacheRead: (r) => int(r.cacheReadTokens), cacheWrite: (r) => int(r.cacheWriteTokens), output: (r) => int(r.outputTokens),
    total: (r) => int(r.totalTokens), sessions: (r) => int(r.sessions), requests: (r) => int(r.requests), added: (r) => int(r.linesAdded), removed: (r) => int(r.linesRemoved),
    accepted: (r) => int(r.accepted), rejected: (r) => int(r.rejected), commits: (r) => int(r.commits), prs: (r) => int(r.pullRequests),
    credits: (r) => num(r.creditsUsed), cost: (r) => num(r.vendorCostCents),
  }, ['actor', 'tool', 'model']);
  await sql`
    insert into spend_actor_metrics (account_id, connection_id, provider, day, actor, tool, model, uncached_input_tokens, cache_read_tokens,
      cache_write_tokens, output_tokens, total_tokens, sessions, requests, lines_added, lines_removed, accepted, rejected, commits,
      pull_requests, credits_used, vendor_cost_cents)
    select ${o.accountId}::uuid, ${o.connectionId}::uuid, ${o.provider}, u.*
    from unnest(${arr(c.day, 'date')}, ${arr(c.actor, 'text')}, ${arr(c.tool, 'text')}, ${arr(c.model, 'text')}, ${arr(c.uncached, 'bigint')}, ${arr(c.cacheRead, 'bigint')},
      ${arr(c.cacheWrite, 'bigint')}, ${arr(c.output, 'bigint')}, ${arr(c.total, 'bigint')}, ${arr(c.sessions, 'bigint')}, ${arr(c.requests, 'bigint')}, ${arr(c.added, 'bigint')},
      ${arr(c.removed, 'bigint')}, ${arr(c.accepted, 'bigint')}, ${arr(c.rejected, 'bigint')}, ${arr(c.commits, 'bigint')}, ${arr(c.prs, 'bigint')}, ${arr(c.credits, 'numeric')},
      ${arr(c.cost, 'numeric')}) as u`.execute(db);
}
