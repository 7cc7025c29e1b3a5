import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { SpendActorMetricsTable, SpendProvider, SpendUsageBucketsTable, SpendVendorCostsTable } from '../../platform/db/tables.js';
import type { Decimal } from '../../platform/money.js';
import type { ChunkRows } from './sync-domain.js';
import type { DayWindow } from './vendors/types.js';

/**
 * A chunk's writes: multi-row INSERTs of at most ROWS_PER_STATEMENT rows (PostgreSQL allows
 * 65,535 parameters per statement; a usage row has 17), token counts and cents as exact text.
 */
const ROWS_PER_STATEMENT = 2000;

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

export async function insertChunkRows(db: Executor, owner: Owner, rows: ChunkRows): Promise<void> {
  const base = { account_id: owner.accountId, connection_id: owner.connectionId, provider: owner.provider };
  const usage: Insertable<SpendUsageBucketsTable>[] = rows.usage.map((r) => ({
    ...base,
    day: r.day,
    model: r.model,
    workspace_id: r.workspaceId,
    api_key_id: r.apiKeyId,
    actor: r.actor,
    service_tier: r.serviceTier,
    uncached_input_tokens: r.uncachedInputTokens.toString(),
    cache_read_tokens: r.cacheReadTokens.toString(),
    cache_write_5m_tokens: r.cacheWrite5mTokens.toString(),
    cache_write_1h_tokens: r.cacheWrite1hTokens.toString(),
    output_tokens: r.outputTokens.toString(),
    requests: int(r.requests),
    vendor_cost_cents: num(r.vendorCostCents),
  }));
  const costs: Insertable<SpendVendorCostsTable>[] = rows.costs.map((r) => ({
    ...base,
    day: r.day,
    workspace_id: r.workspaceId,
    model: r.model,
    description: r.description,
    cost_type: r.costType,
    amount_cents: r.amountCents.toFixed(),
  }));
  const actors: Insertable<SpendActorMetricsTable>[] = rows.actors.map((r) => ({
    ...base,
    day: r.day,
    actor: r.actor,
    tool: r.tool,
    model: r.model,
    uncached_input_tokens: int(r.uncachedInputTokens),
    cache_read_tokens: int(r.cacheReadTokens),
    cache_write_tokens: int(r.cacheWriteTokens),
    output_tokens: int(r.outputTokens),
    total_tokens: int(r.totalTokens),
    sessions: int(r.sessions),
    requests: int(r.requests),
    lines_added: int(r.linesAdded),
    lines_removed: int(r.linesRemoved),
    accepted: int(r.accepted),
    rejected: int(r.rejected),
    commits: int(r.commits),
    pull_requests: int(r.pullRequests),
    credits_used: num(r.creditsUsed),
    vendor_cost_cents: num(r.vendorCostCents),
  }));
  for (let i = 0; i < usage.length; i += ROWS_PER_STATEMENT) await db.insertInto('spend_usage_buckets').values(usage.slice(i, i + ROWS_PER_STATEMENT)).execute();
  for (let i = 0; i < costs.length; i += ROWS_PER_STATEMENT) await db.insertInto('spend_vendor_costs').values(costs.slice(i, i + ROWS_PER_STATEMENT)).execute();
  for (let i = 0; i < actors.length; i += ROWS_PER_STATEMENT) await db.insertInto('spend_actor_metrics').values(actors.slice(i, i + ROWS_PER_STATEMENT)).execute();
}
