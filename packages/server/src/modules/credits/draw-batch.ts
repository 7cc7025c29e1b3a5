import { sql } from 'kysely';
import { toJsonb } from '../../platform/db/jsonb.js';
import { arrayLiteral as arr } from '../../platform/db/array-literal.js';
import type { Tx } from '../../platform/db/database.js';
import { newId } from '../../platform/ids.js';
import { dec, roundCredits, type Decimal } from '../../platform/money.js';
import { availableInGrants, coveredUsage, planFifoDraw, planPoolDraw, poolStatusAfter, type DrawSource } from './domain.js';
import { usageDrawMetadata, type CreditDrawInput, type CreditReceipt, type ResolvedWeight } from './draw.js';
import type { GrantRow, PoolRow } from './repo.js';

/**
 * Draw-down for many events in one transaction (usage's batch ingestion and hot-pool grouping):
 * setup (lock every pool the events can draw from, in pool-id order, and read links and grants
 * once) → compute (`draw`, in memory, one event at a time in the caller's order, each exactly as
 * `drawCredits` would decide it alone: same sources, same FIFO, same hard-limit rule) → execute
 * (`flush`: one statement writes every ledger row, per-grant draw, grant remainder, pool total and
 * link total). One ledger row per pool an event draws from, numbered in event order.
 */
type CreditDrawTarget = { subscriptionId: string; denomination: string };

type BatchDrawInput = CreditDrawInput & { weight: ResolvedWeight };

export interface CreditDrawer {
  /** One event's draw against the state left by the events before it; null: nothing linked, 'refused': a hard limit. */
  draw(input: BatchDrawInput): CreditReceipt | null | 'refused';
  /** Writes what `draw` planned (nothing if no event drew). */
  flush(): Promise<void>;
}

type LinkState = { poolId: string; subscriptionId: string; drawPriority: number; linkedAt: Date; drawLimit: Decimal | null; totalDrawn: Decimal };
type Entry = { id: string; poolId: string; seq: string; amount: Decimal; before: Decimal; after: Decimal; subscriptionId: string; eventId: string; metadata: string; draws: { grantId: string; amount: Decimal }[] };
/** A pool as the draws of this transaction leave it: parsed once, written back by `flush`. */
type PoolState = { row: PoolRow; balance: Decimal; consumed: Decimal; seq: bigint; grants: GrantState[] };
/** A grant in the shape the FIFO rule takes (`DrawableGrant`), with its row. */
type GrantState = { id: string; remaining: Decimal; expiresAt: Date | null; row: GrantRow };

/**
 * Locks the pools linked to the targets (one statement, pool-id order) and loads their links and live
 * grants. Every amount is parsed once here and kept as a Decimal while the events are decided (ADR
 * 0029: re-parsing each grant's remainder for every event was most of a batch's draw cost).
 */
export async function openCreditDraws(tx: Tx, accountId: string, targets: CreditDrawTarget[], now: Date): Promise<CreditDrawer> {
  const subscriptionIds = [...new Set(targets.map((t) => t.subscriptionId))];
  const denominations = [...new Set(targets.map((t) => t.denomination))];
  const pools = subscriptionIds.length === 0 ? [] : await lockPoolsOf(tx, accountId, subscriptionIds, denominations);
  const poolIds = pools.map((p) => p.id);
  // Read under the pool locks: total_drawn changes only while its pool is locked.
  const [links, grants] = poolIds.length === 0 ? [[], []] : await Promise.all([listLinks(tx, accountId, poolIds, subscriptionIds), listGrants(tx, accountId, poolIds)]);
  const poolById = new Map<string, PoolState>(pools.map((p) => [p.id, { row: p, balance: dec(p.balance), consumed: dec(p.total_consumed), seq: BigInt(p.ledger_seq), grants: [] }]));
  for (const g of grants) poolById.get(g.credit_pool_id)!.grants.push({ id: g.id, remaining: dec(g.remaining), expiresAt: g.expires_at, row: g });
  const linked = new Map<string, LinkState[]>();
  const linksOf = (subscriptionId: string, denomination: string) => {
    const key = `${subscriptionId}|${denomination}`;
    let found = linked.get(key);
    if (!found) {
      found = links
        .filter((l) => l.subscriptionId === subscriptionId && poolById.get(l.poolId)?.row.denomination === denomination)
        .sort((a, b) => a.drawPriority - b.drawPriority || a.linkedAt.getTime() - b.linkedAt.getTime());
      linked.set(key, found);
    }
    return found;
  };
  const metadataOf = renderedOnce((input: BatchDrawInput) => toJsonb(usageDrawMetadata(input, input.weight)));
  const entries: Entry[] = [];
  const touchedGrants = new Set<GrantState>();
  const touchedPools = new Set<PoolState>();

  return {
    draw(input) {
      if (!input.denomination || !input.featureId || !input.subscriptionId) return null;
      const linkedPools = linksOf(input.subscriptionId, input.denomination);
      if (linkedPools.length === 0) return null;
      const weight = input.weight;
      const charge = roundCredits(input.units.times(weight.weight));
      const sources: DrawSource[] = [];
      for (const l of linkedPools) {
        const p = poolById.get(l.poolId)!;
        if (p.row.status !== 'ACTIVE' && p.row.status !== 'DEPLETED') continue;
        sources.push({ poolId: p.row.id, hardLimit: p.row.hard_limit, available: availableInGrants(p.grants, input.now), linkHeadroom: l.drawLimit === null ? null : l.drawLimit.minus(l.totalDrawn) });
      }
      const plan = planPoolDraw(sources, charge);
      if (plan.refused) return 'refused';
      for (const d of plan.draws) {
        const pool = poolById.get(d.poolId)!;
        const fifo = planFifoDraw(pool.grants, d.amount, input.now);
        for (const f of fifo) {
          const grant = pool.grants.find((g) => g.id === f.grantId)!;
          grant.remaining = grant.remaining.minus(f.amount);
          touchedGrants.add(grant);
        }
        const before = pool.balance;
        const after = before.minus(d.amount);
        pool.balance = after;
        pool.consumed = pool.consumed.plus(d.amount);
        pool.seq += 1n;
        pool.row.status = poolStatusAfter(pool.row.status, pool.row.hard_limit, after);
        touchedPools.add(pool);
        const link = linkedPools.find((l) => l.poolId === d.poolId)!;
        link.totalDrawn = link.totalDrawn.plus(d.amount);
        entries.push({ id: newId(), poolId: d.poolId, seq: String(pool.seq), amount: d.amount.neg(), before, after, subscriptionId: input.subscriptionId, eventId: input.eventId, metadata: metadataOf(input), draws: fifo });
      }
      let remainingBalance = dec(0);
      for (const l of linkedPools) remainingBalance = remainingBalance.plus(poolById.get(l.poolId)!.balance);
      return {
        creditsDeducted: plan.covered,
        weightApplied: weight.weight,
        weightId: weight.weightId,
        weightMatch: weight.weightMatch,
        remainingBalance,
        usageCovered: coveredUsage(plan.covered, weight.weight),
      };
    },
    async flush() {
      if (entries.length === 0) return;
      for (const g of touchedGrants) g.row.remaining = g.remaining.toFixed();
      for (const p of touchedPools) Object.assign(p.row, { balance: p.balance.toFixed(), total_consumed: p.consumed.toFixed(), ledger_seq: String(p.seq) });
      await writeEntries(tx, accountId, entries, [...touchedGrants].map((g) => g.row), [...touchedPools].map((p) => p.row), now);
    },
  };
}

/**
 * The ledger metadata of a draw, rendered once per distinct (weight, units, instants): events of one
 * batch mostly share all of them, and the rendering was a tenth of a batch's draw cost.
 */
function renderedOnce(render: (input: BatchDrawInput) => string) {
  const rendered = new Map<string, string>();
  return (input: BatchDrawInput) => {
    const w = input.weight;
    const key = `${w.weightId}|${w.weight.toString()}|${w.weightMatch}|${input.units.toString()}|${input.occurredAt.getTime()}|${input.ingestedAt.getTime()}`;
    let text = rendered.get(key);
    if (text === undefined) {
      text = render(input);
      rendered.set(key, text);
    }
    return text;
  };
}

/** The pools linked to the subscriptions in the denominations, locked in pool-id order (every writer's order). */
async function lockPoolsOf(tx: Tx, accountId: string, subscriptionIds: string[], denominations: string[]) {
  const { rows } = await sql<PoolRow>`
    select p.* from credit_pools p
     where p.account_id = ${accountId} and p.denomination = any(${denominations}::text[])
       and p.id in (select l.credit_pool_id from credit_pool_links l
                     where l.account_id = ${accountId} and l.subscription_id = any(${subscriptionIds}::uuid[]))
     order by p.id
     for update of p`.execute(tx);
  return rows;
}

async function listLinks(tx: Tx, accountId: string, poolIds: string[], subscriptionIds: string[]): Promise<LinkState[]> {
  const { rows } = await sql<{ credit_pool_id: string; subscription_id: string; draw_priority: number; created_at: Date; draw_limit: string | null; total_drawn: string }>`
    select credit_pool_id, subscription_id, draw_priority, created_at, draw_limit, total_drawn from credit_pool_links
     where account_id = ${accountId} and credit_pool_id = any(${poolIds}::uuid[]) and subscription_id = any(${subscriptionIds}::uuid[])`.execute(tx);
  return rows.map((r) => ({
    poolId: r.credit_pool_id,
    subscriptionId: r.subscription_id,
    drawPriority: r.draw_priority,
    linkedAt: r.created_at,
    drawLimit: r.draw_limit === null ? null : dec(r.draw_limit),
    totalDrawn: dec(r.total_drawn),
  }));
}

/** Live grants, oldest first (the FIFO order of repo.listLiveGrants). */
async function listGrants(tx: Tx, accountId: string, poolIds: string[]) {
  const { rows } = await sql<GrantRow>`
    select * from credit_grants
     where account_id = ${accountId} and credit_pool_id = any(${poolIds}::uuid[]) and remaining > 0 and voided_at is null
     order by created_at, seq`.execute(tx);
  return rows;
}

/**
 * Every planned ledger row with its per-grant draws, the grants' final remainders, the pools' final
 * totals and the links' drawn totals, in one statement of array parameters (one statement text
 * whatever the batch size, so it stays one named prepared statement).
 */
async function writeEntries(tx: Tx, accountId: string, entries: Entry[], grants: GrantRow[], pools: PoolRow[], now: Date) {
  const draws = entries.flatMap((e) => e.draws.map((d) => ({ transactionId: e.id, grantId: d.grantId, amount: d.amount.toFixed() })));
  const linkTotals = new Map<string, { poolId: string; subscriptionId: string; amount: Decimal }>();
  for (const e of entries) {
    const k = `${e.poolId}|${e.subscriptionId}`;
    const t = linkTotals.get(k) ?? { poolId: e.poolId, subscriptionId: e.subscriptionId, amount: dec(0) };
    linkTotals.set(k, { ...t, amount: t.amount.plus(e.amount.neg()) });
  }
  const lt = [...linkTotals.values()];
  await sql`
    with t as (
      insert into credit_transactions (id, account_id, credit_pool_id, seq, credit_grant_id, transaction_type, amount, balance_before,
        balance_after, description, reversed_transaction_id, subscription_id, event_id, idempotency_key, request_hash, metadata, created_at)
      select v.id, ${accountId}::uuid, v.pool_id, v.seq, null, 'DEDUCTION', v.amount, v.before, v.after, 'Usage event', null, v.sub_id, v.event_id, null, null, v.meta, ${now}::timestamptz
        from unnest(${arr(entries.map((e) => e.id))}::uuid[], ${arr(entries.map((e) => e.poolId))}::uuid[], ${arr(entries.map((e) => e.seq))}::bigint[],
                    ${arr(entries.map((e) => e.amount.toFixed()))}::numeric[], ${arr(entries.map((e) => e.before.toFixed()))}::numeric[],
                    ${arr(entries.map((e) => e.after.toFixed()))}::numeric[], ${arr(entries.map((e) => e.subscriptionId))}::uuid[],
                    ${arr(entries.map((e) => e.eventId))}::uuid[], ${arr(entries.map((e) => e.metadata))}::jsonb[])
             as v(id, pool_id, seq, amount, before, after, sub_id, event_id, meta)
      returning 1),
    d as (
      insert into credit_transaction_draws (account_id, transaction_id, credit_grant_id, amount)
      select ${accountId}::uuid, v.tid, v.gid, v.amount
        from unnest(${arr(draws.map((d) => d.transactionId))}::uuid[], ${arr(draws.map((d) => d.grantId))}::uuid[], ${arr(draws.map((d) => d.amount))}::numeric[]) as v(tid, gid, amount)),
    g as (
      update credit_grants set remaining = v.remaining
        from unnest(${arr(grants.map((g) => g.id))}::uuid[], ${arr(grants.map((g) => g.remaining))}::numeric[]) as v(id, remaining)
       where credit_grants.account_id = ${accountId} and credit_grants.id = v.id),
    p as (
      update credit_pools set balance = v.balance, total_consumed = v.consumed, ledger_seq = v.seq, status = v.status, modified_at = ${now}::timestamptz
        from unnest(${arr(pools.map((p) => p.id))}::uuid[], ${arr(pools.map((p) => p.balance))}::numeric[], ${arr(pools.map((p) => p.total_consumed))}::numeric[],
                    ${arr(pools.map((p) => p.ledger_seq))}::bigint[], ${arr(pools.map((p) => p.status))}::text[]) as v(id, balance, consumed, seq, status)
       where credit_pools.account_id = ${accountId} and credit_pools.id = v.id),
    l as (
      update credit_pool_links set total_drawn = credit_pool_links.total_drawn + v.amount
        from unnest(${arr(lt.map((x) => x.poolId))}::uuid[], ${arr(lt.map((x) => x.subscriptionId))}::uuid[], ${arr(lt.map((x) => x.amount.toFixed()))}::numeric[]) as v(pool_id, sub_id, amount)
       where credit_pool_links.account_id = ${accountId} and credit_pool_links.credit_pool_id = v.pool_id and credit_pool_links.subscription_id = v.sub_id)
    select count(*) from t`.execute(tx);
}
