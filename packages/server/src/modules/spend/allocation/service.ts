import { sql } from 'kysely';
import type { AppContext } from '../../../platform/context.js';
import type { Tx } from '../../../platform/db/database.js';
import type { SpendProvider, SpendUnitType } from '../tables.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { bookRates, groupTokens, meteredCentsSql, pricedSql } from '../prices/cost.js';
import type { VendorModel } from '../prices/service.js';
import { actorRows, inReportTransaction, rates, withResolvedNames } from '../reports/usage.js';
import type { DayWindow } from '../reports/window.js';
import * as units from '../units/repo.js';

/**
 * The allocation report (contract §7.9) and the per-unit spend budgets and alerts read.
 *
 * Each usage bucket of [from, to) is priced (the price book's rate in force on its day, as the
 * usage report prices it) and goes to the first attribution rule that matches it — same provider,
 * and the rule's value equal to the bucket's workspace, API key or actor — lowest priority number
 * first, then the oldest; else it is unattributed. Rules on PERSON units are skipped while person
 * level is off. Pricing and matching run in SQL over (provider, workspace, key, actor) groups, so a
 * million buckets come back as one row per unit.
 *
 * Exactness: every amount is an exact NUMERIC sum of exact products (no rounding anywhere), so
 * Σ ownCents + unattributedCents = totalMeteredCents holds exactly; cents leave as decimal numbers
 * with their fractional part.
 *
 * Person estimates: the coding-assistant per-person rows (spend_actor_metrics) of an actor whose
 * e-mail or GitHub login is a PERSON unit's, priced from their tokens (else the vendor's estimate),
 * while person level is on. Cursor's per-person rows are left out: the same events are already
 * usage buckets (with the person as actor), so counting them again would double them.
 * `totalCents` and `personEstimateCents` both include descendants; `spendCents` is their sum.
 */
export type AllocationRow = {
  unitId: string;
  name: string;
  type: SpendUnitType;
  parentId: string | null;
  ownCents: Decimal;
  totalCents: Decimal;
  personEstimateCents: Decimal;
  spendCents: Decimal;
};

export type Allocation = {
  from: string;
  to: string;
  rows: AllocationRow[];
  unattributedCents: Decimal;
  totalMeteredCents: Decimal;
  personLevelEnabled: boolean;
};

type OwnRow = { kind: 'unit' | 'unresolved'; unit_id: string | null; cents: string | null; provider: SpendProvider | null; model: string | null };

export async function allocate(ctx: AppContext, accountId: string, w: DayWindow): Promise<Allocation> {
  const personLevel = await units.personLevelEnabled(ctx.db, accountId);
  const { own, estimates } = await withResolvedNames(ctx, accountId, () =>
    inReportTransaction(ctx, (tx) => ownAndEstimates(tx, ctx.database.kind === 'postgres', accountId, w, personLevel)),
  );

  const unitRows = await units.listUnits(ctx.db, accountId);
  const ownOf = new Map<string | null, Decimal>(own.map((r) => [r.unit_id, dec(r.cents ?? 0)]));
  const estimateOf = personEstimates(unitRows, estimates);
  const children = new Map<string | null, units.UnitRow[]>();
  for (const u of unitRows) children.set(u.parent_id, [...(children.get(u.parent_id) ?? []), u]);

  const totals = new Map<string, { total: Decimal; estimate: Decimal }>();
  const rollUp = (unit: units.UnitRow, path: Set<string>): { total: Decimal; estimate: Decimal } => {
    const known = totals.get(unit.id);
    if (known) return known;
    let total = ownOf.get(unit.id) ?? dec(0);
    let estimate = estimateOf.get(unit.id) ?? dec(0);
    path.add(unit.id);
    for (const child of children.get(unit.id) ?? []) {
      if (path.has(child.id)) continue; // never stored (tree edits are loop-checked), but never loop
      const sub = rollUp(child, path);
      total = total.plus(sub.total);
      estimate = estimate.plus(sub.estimate);
    }
    path.delete(unit.id);
    const result = { total, estimate };
    totals.set(unit.id, result);
    return result;
  };

  const rows = unitRows.map((u) => {
    const { total, estimate } = rollUp(u, new Set());
    return {
      unitId: u.id,
      name: u.name,
      type: u.type,
      parentId: u.parent_id,
      ownCents: ownOf.get(u.id) ?? dec(0),
      totalCents: total,
      personEstimateCents: estimate,
      spendCents: total.plus(estimate),
    };
  });
  const totalMeteredCents = own.reduce((sum, r) => sum.plus(dec(r.cents ?? 0)), dec(0));
  return { from: w.from, to: w.to, rows, unattributedCents: ownOf.get(null) ?? dec(0), totalMeteredCents, personLevelEnabled: personLevel };
}

/** The allocation of each of several windows (an evaluation's, a digest's), computed concurrently. */
export async function allocateWindows<K extends string>(ctx: AppContext, accountId: string, windows: Record<K, DayWindow>): Promise<Record<K, Allocation>> {
  const keys = Object.keys(windows) as K[];
  const allocations = await Promise.all(keys.map((k) => allocate(ctx, accountId, windows[k])));
  return Object.fromEntries(keys.map((k, i) => [k, allocations[i]!])) as Record<K, Allocation>;
}

/**
 * Metered cents per unit (null: unattributed) in SQL, the per-person rows for estimates, and names
 * not yet resolved.
 *
 * One pass over the window's buckets, joined to the rates of their (provider, model, day) keys and
 * summed per (provider, workspace, key, actor) cell: where the book prices every token class (an
 * input and an output rate; cache classes fall back to input) a bucket is priced on its own, and
 * the sum of its exact products equals the usage report's product of summed tokens. The other keys
 * (no book row, or a row lacking the input or output rate) keep the usage report's per-group rule
 * — a (provider, model, day, batch) group of the cell is priced or not as a whole — so they stay
 * grouped by model, day and batch until priced. No per-bucket-sized intermediate is built.
 */
async function ownAndEstimates(tx: Tx, postgres: boolean, accountId: string, w: DayWindow, personLevel: boolean) {
  const { rows } = await withHashPlans(tx, postgres, () => ownCentsStatement(accountId, w, personLevel).execute(tx));
  const actors = personLevel ? await actorRows(tx, accountId, w) : [];
  const unresolved: VendorModel[] = [
    ...rows.filter((r) => r.kind === 'unresolved').map((r) => ({ provider: r.provider!, model: r.model! })),
    ...actors.filter((r) => !r.resolved && r.model !== '').map((r) => ({ provider: r.provider, model: r.model })),
  ];
  return { own: rows.filter((r) => r.kind === 'unit'), estimates: actors, unresolved };
}

/**
 * PostgreSQL estimates the bucket ⋈ rates join (a CTE) at a thousandth of its rows, so it plans a
 * sort of every bucket for merge joins and a group aggregate (5–30 s over a million buckets, with
 * re-scans). The join and the aggregates are hash-shaped (6,000 keys, a few thousand cells): this
 * statement is planned without merge joins and sorts, then the settings are restored.
 */
async function withHashPlans<T>(tx: Tx, postgres: boolean, run: () => Promise<T>): Promise<T> {
  if (!postgres) return run();
  await sql`set local enable_mergejoin = off`.execute(tx);
  await sql`set local enable_sort = off`.execute(tx);
  const result = await run();
  await sql`set local enable_mergejoin = on`.execute(tx);
  await sql`set local enable_sort = on`.execute(tx);
  return result;
}

/** The statement of `ownAndEstimates` (exported for the bench's EXPLAIN). */
export function ownCentsStatement(accountId: string, w: DayWindow, personLevel: boolean) {
  // Keys whose buckets need no per-group check: a book row with an input and an output rate (exact,
  // see above), or no book row at all (nothing is metered, whatever the tokens). The rest stays
  // grouped by (model, day, batch) for the usage report's rule.
  const perBucket = sql`(r.pri is null or (r.ri is not null and r.ro is not null))`;
  return sql<OwnRow>`
    with k as (
      select distinct provider, model, day from spend_usage_buckets
       where account_id = ${accountId} and day >= ${w.from}::date and day < ${w.to}::date
    ),
    -- Materialized: the LATERAL rate lookups run once per key, never once per bucket. rc numbers the
    -- distinct rate rows (a model's rate is the same most days), so summed tokens can be priced once
    -- per (cell, rate row, batch) instead of once per bucket.
    r as materialized (
      select rk.*, dense_rank() over (order by rk.pri, rk.ri, rk.ro, rk.rcr, rk.rcw5, rk.rcw1) as rc
        from (${rates(accountId, sql`select provider, model, day from k`)}) rk
    ),
    x as materialized (
      select b.provider, b.workspace_id, b.api_key_id, b.actor,
             case when ${perBucket} then null else b.model end as model,
             case when ${perBucket} then null else b.day end as day,
             (b.service_tier = 'batch') as batch,
             case when ${perBucket} then r.rc end as rc,
             sum(b.uncached_input_tokens) as u, sum(b.cache_read_tokens) as cr, sum(b.cache_write_5m_tokens) as cw5,
             sum(b.cache_write_1h_tokens) as cw1, sum(b.output_tokens) as o
        from spend_usage_buckets b
        join r on r.provider = b.provider and r.model = b.model and r.day = b.day
       where b.account_id = ${accountId} and b.day >= ${w.from}::date and b.day < ${w.to}::date
       group by 1, 2, 3, 4, 5, 6, 7, 8
    ),
    d as (
      select provider, workspace_id, api_key_id, actor, sum(m) as m from (
        select x.provider, x.workspace_id, x.api_key_id, x.actor,
               case when r.pri is not null then ${meteredCentsSql(groupTokens('x'), bookRates('r'), sql.ref('x.batch'))} end as m
          from x join (select distinct rc, pri, ri, ro, rcr, rcw5, rcw1 from r) r on r.rc = x.rc
         where x.model is null
        union all
        select x.provider, x.workspace_id, x.api_key_id, x.actor,
               case when ${pricedSql(groupTokens('x'), bookRates('r'), sql.ref('r.pri'))}
                    then ${meteredCentsSql(groupTokens('x'), bookRates('r'), sql.ref('x.batch'))} end
          from x join r on r.provider = x.provider and r.model = x.model and r.day = x.day
         where x.model is not null
      ) priced
       group by provider, workspace_id, api_key_id, actor
    ),
    -- The rules each cell matches: one equality probe per match kind (spend_rules_match_idx), so the
    -- cost grows with cells + rules, never cells × rules; then the first by priority, then creation.
    hit as (
      select distinct on (m.provider, m.workspace_id, m.api_key_id, m.actor) m.spend_unit_id, m.m
        from (
          select d.*, ru.spend_unit_id, ru.priority, ru.created_seq
            from d join spend_rules ru on ru.account_id = ${accountId} and ru.provider = d.provider and ru.match_kind = 'WORKSPACE_ID' and ru.match_value = d.workspace_id
          union all
          select d.*, ru.spend_unit_id, ru.priority, ru.created_seq
            from d join spend_rules ru on ru.account_id = ${accountId} and ru.provider = d.provider and ru.match_kind = 'API_KEY_ID' and ru.match_value = d.api_key_id
          union all
          select d.*, ru.spend_unit_id, ru.priority, ru.created_seq
            from d join spend_rules ru on ru.account_id = ${accountId} and ru.provider = d.provider and ru.match_kind = 'ACTOR' and ru.match_value = d.actor
        ) m
        join spend_units u on u.account_id = ${accountId} and u.id = m.spend_unit_id
       where u.type <> 'PERSON' or ${personLevel}
       order by m.provider, m.workspace_id, m.api_key_id, m.actor, m.priority, m.created_seq
    )
    select 'unit' as kind, spend_unit_id::text as unit_id, sum(m) as cents, null::text as provider, null::text as model from hit group by spend_unit_id
    union all
    -- Unattributed: the rest of the window, exactly (NUMERIC), so Σ own + unattributed = total.
    select 'unit', null, (select sum(m) from d) - coalesce((select sum(m) from hit), 0), null, null
    union all
    select distinct 'unresolved', null::text, null::numeric, provider, model from r where not resolved`;
}

/** Per PERSON unit: the priced per-person assistant rows of the actor its e-mail or GitHub login names. */
function personEstimates(unitRows: units.UnitRow[], actors: Awaited<ReturnType<typeof actorRows>>): Map<string, Decimal> {
  const personOf = new Map<string, string>();
  for (const u of unitRows) {
    if (u.type !== 'PERSON') continue;
    for (const handle of [u.email, u.github_login]) if (handle) personOf.set(handle.toLowerCase(), u.id);
  }
  const out = new Map<string, Decimal>();
  for (const a of actors) {
    if (a.provider === 'CURSOR') continue;
    const unitId = personOf.get(a.actor.toLowerCase());
    const cents = a.metered ?? a.vc;
    if (!unitId || cents === null) continue;
    out.set(unitId, (out.get(unitId) ?? dec(0)).plus(dec(cents)));
  }
  return out;
}
