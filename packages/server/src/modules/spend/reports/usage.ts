import { sql, type RawBuilder } from 'kysely';
import type { AppContext } from '../../../platform/context.js';
import type { Executor, Tx } from '../../../platform/db/database.js';
import type { SpendProvider } from '../tables.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { bookRates, cacheRatesKnownSql, groupTokens, meteredCentsSql, pricedSql } from '../prices/cost.js';
import { currentPrices, ensurePriceSeed, rateInForce, resolveModelNames, type CurrentPrice, type VendorModel } from '../prices/service.js';
import { addDays, dayOf, type DayWindow } from './window.js';

/**
 * Usage and reconcile reports (contract §7.9), computed in SQL: the buckets of the window are
 * summed per (provider, model, day, batch) — a few thousand groups however many rows — and only
 * those groups are priced, with the rate in force on their day. Nothing loads bucket rows.
 *
 * Metered cents follow the one pricing rule (prices/cost.ts: Σ tokens × rate × 0.0001, exact
 * NUMERIC; a missing cache rate falls back to the input rate and the row says cacheRatesKnown:
 * false; batch tier at half).
 * A group whose tokens have no rate is unpriced: it adds nothing to metered and is listed.
 */

const int = (v: string | null) => dec(v ?? 0);
const decOrNull = (v: string | null) => (v === null ? null : dec(v));

/** Bucket columns a caller may keep in the groups besides (provider, model, day, batch). */
export type BucketDimension = 'workspace_id' | 'api_key_id' | 'actor';

/**
 * CTEs `g` (usage groups of [from, to), optionally split by bucket `dimensions`), `r` (their rates)
 * and `p` (priced groups, with the rates in force: `ri`, `ro`, `rcr`, `rcw5`, `rcw1`, USD per
 * million). `resolved` is false where the vendor name has no stored match yet (the caller resolves
 * and runs again).
 */
export function pricedGroups(accountId: string, w: DayWindow, dimensions: readonly BucketDimension[] = []): RawBuilder<unknown> {
  const extra = sql.raw(dimensions.map((d) => `, ${d}`).join(''));
  return sql`
    g as (
      select provider, model, day, (service_tier = 'batch') as batch${extra},
             sum(uncached_input_tokens) as u, sum(cache_read_tokens) as cr, sum(cache_write_5m_tokens) as cw5,
             sum(cache_write_1h_tokens) as cw1, sum(output_tokens) as o, sum(requests) as req, sum(vendor_cost_cents) as vc
        from spend_usage_buckets
       where account_id = ${accountId} and day >= ${w.from}::date and day < ${w.to}::date
       group by provider, model, day, (service_tier = 'batch')${extra}
    ),
    -- Materialised: the rate lookups run once per (provider, model, day), never once per group.
    r as materialized (${rates(accountId, sql`select distinct provider, model, day from g`)}),
    p as (
      select g.*, r.resolved, r.price_provider, r.price_model, r.ri, r.ro, r.rcr, r.rcw5, r.rcw1,
             ${pricedSql(groupTokens('g'), bookRates('r'), sql.ref('r.pri'))} as priced,
             ${cacheRatesKnownSql(groupTokens('g'), bookRates('r'))} as cache_known,
             ${meteredCentsSql(groupTokens('g'), bookRates('r'), sql.ref('g.batch'))} as metered_raw
        from g join r on r.provider = g.provider and r.model = g.model and r.day = g.day
    )`;
}

/**
 * The rate in force for each (provider, model, day) of `keys`, through the stored name match.
 */
export function rates(accountId: string, keys: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    select k.provider, k.model, k.day, (mm.vendor_model is not null) as resolved, mm.price_provider, mm.price_model,
           x.pri, x.ri, x.ro, x.rcr, x.rcw5, x.rcw1
      from (${keys}) k
      left join spend_model_matches mm on mm.account_id = ${accountId} and mm.provider = k.provider and mm.vendor_model = k.model
      left join lateral ${rateInForce(accountId, sql.ref('mm.price_provider'), sql.ref('mm.price_model'), sql.ref('k.day'))} x on true`;
}

/**
 * Runs a report; if it met vendor model names without a stored match, resolves them with the
 * package's matcher and runs it once more (a name is resolved once per account, then stored).
 */
export async function withResolvedNames<T extends { unresolved: VendorModel[] }>(ctx: AppContext, accountId: string, run: () => Promise<T>): Promise<T> {
  await ensurePriceSeed(ctx);
  const first = await run();
  if (first.unresolved.length === 0) return first;
  await resolveModelNames(ctx, accountId, first.unresolved);
  return run();
}

/**
 * A report's statements, in one read transaction. On PostgreSQL the window's group aggregate needs
 * more than the default 4 MB work_mem to hash in memory (it sorts on disk otherwise: 3× slower),
 * and JIT compilation costs more than it saves on a sub-second statement; both set for this
 * transaction only.
 */
export function inReportTransaction<T>(ctx: AppContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return withTransaction(ctx.db, async (tx) => {
    if (ctx.database.kind === 'postgres') {
      await sql`set local work_mem = '32MB'`.execute(tx);
      await sql`set local jit = off`.execute(tx);
    }
    return fn(tx);
  });
}

// Usage report

type UsageSetRow = {
  g_model: number;
  g_day: number;
  provider: SpendProvider | null;
  model: string | null;
  day: string | null;
  u: string | null;
  cr: string | null;
  cw: string | null;
  o: string | null;
  req: string | null;
  vc: string | null;
  metered: string | null;
  priced: boolean | null;
  cache_known: boolean | null;
  resolved: boolean | null;
  price_model: string | null;
};

export type ActorRow = {
  provider: SpendProvider;
  actor: string;
  tool: string;
  model: string;
  total_tokens: string | null;
  sessions: string | null;
  requests: string | null;
  lines_added: string | null;
  lines_removed: string | null;
  accepted: string | null;
  rejected: string | null;
  commits: string | null;
  pull_requests: string | null;
  credits_used: string | null;
  vc: string | null;
  metered: string | null;
  resolved: boolean;
};

export type UsageReport = Awaited<ReturnType<typeof usageReport>>;

export async function usageReport(ctx: AppContext, accountId: string, w: DayWindow) {
  const result = await withResolvedNames(ctx, accountId, async () => {
    const { sets, actors } = await inReportTransaction(ctx, async (tx) => ({ sets: await usageSets(tx, accountId, w), actors: await actorRows(tx, accountId, w) }));
    const unresolved = [
      ...sets.filter((s) => s.g_model === 0 && s.resolved === false).map((s) => ({ provider: s.provider!, model: s.model! })),
      ...actors.filter((a) => !a.resolved && a.model !== '').map((a) => ({ provider: a.provider, model: a.model })),
    ];
    return { sets, actors, unresolved };
  });
  const { sets, actors } = result;
  const total = sets.find((s) => s.g_model !== 0 && s.g_day !== 0);
  const byModel = sets
    .filter((s) => s.g_model === 0 && s.model !== null)
    .sort((a, b) => a.provider!.localeCompare(b.provider!) || a.model!.localeCompare(b.model!))
    .map((s) => ({
      provider: s.provider!,
      model: s.model!,
      pricedAs: s.price_model,
      uncachedInputTokens: int(s.u),
      cacheReadTokens: int(s.cr),
      cacheCreationTokens: int(s.cw),
      outputTokens: int(s.o),
      requests: decOrNull(s.req),
      meteredCostCents: decOrNull(s.metered),
      vendorCostCents: decOrNull(s.vc),
      priced: s.priced ?? true,
      cacheRatesKnown: s.cache_known ?? true,
    }));
  const byDay = sets
    .filter((s) => s.g_day === 0)
    .sort((a, b) => a.day!.localeCompare(b.day!))
    .map((s) => ({
      date: s.day!,
      totalTokens: int(s.u).plus(int(s.cr)).plus(int(s.cw)).plus(int(s.o)),
      meteredCostCents: int(s.metered),
      vendorCostCents: int(s.vc),
    }));
  return {
    from: w.from,
    to: w.to,
    totals: {
      uncachedInputTokens: int(total?.u ?? null),
      cacheReadTokens: int(total?.cr ?? null),
      cacheCreationTokens: int(total?.cw ?? null),
      outputTokens: int(total?.o ?? null),
      requests: int(total?.req ?? null),
      vendorCostCents: int(total?.vc ?? null),
      meteredCostCents: int(total?.metered ?? null),
    },
    byModel,
    byDay,
    byActor: actors.length === 0 ? [] : mergeActors(actors),
    unpricedModels: [...new Set(byModel.filter((m) => !m.priced).map((m) => m.model))].sort(),
  };
}

/** Totals, per model and per day in one pass (grouping sets) over the priced groups and the vendor's cost lines. */
async function usageSets(db: Executor, accountId: string, w: DayWindow): Promise<UsageSetRow[]> {
  return (await usageSetsQuery(accountId, w).execute(db)).rows;
}

/** The statement of `usageSets` (exported for EXPLAIN in performance work). */
export function usageSetsQuery(accountId: string, w: DayWindow) {
  return sql<UsageSetRow>`
    with ${pricedGroups(accountId, w)},
    c as (
      select provider, model, day, sum(amount_cents) as vc
        from spend_vendor_costs
       where account_id = ${accountId} and day >= ${w.from}::date and day < ${w.to}::date
       group by provider, model, day
    ),
    usage_rows as (
      select provider, model, day, u, cr, cw5 + cw1 as cw, o, req, vc,
             case when priced then metered_raw end as metered, priced, cache_known, resolved, price_model
        from p
      union all
      select provider, model, day, 0, 0, 0, 0, null, vc, null, null, null, null, null
        from c
    )
    select grouping(provider, model) as g_model, grouping(day) as g_day, provider, model, day,
           sum(u) as u, sum(cr) as cr, sum(cw) as cw, sum(o) as o, sum(req) as req, sum(vc) as vc, sum(metered) as metered,
           bool_and(priced) as priced, bool_and(cache_known) as cache_known, bool_and(resolved) as resolved, max(price_model) as price_model
      from usage_rows
     group by grouping sets ((provider, model), (day), ())`;
}

/** A per-person row's token classes: its one cache-write class is priced at the 5-minute rate. */
const actorTokens = { uncachedInput: sql.ref('am.u'), cacheRead: sql.ref('am.cr'), cacheWrite5m: sql.ref('am.cw'), output: sql.ref('am.o') };

/**
 * Coding-assistant per-person rows (spend_actor_metrics), per (provider, actor, tool, model): the
 * metered estimate prices their token classes like buckets (their one cache-write class at the
 * 5-minute rate). They are never part of the totals.
 */
export async function actorRows(db: Executor, accountId: string, w: DayWindow): Promise<ActorRow[]> {
  const { rows } = await sql<ActorRow>`
    with am as (
      select provider, actor, tool, model, day,
             sum(coalesce(uncached_input_tokens, 0)) as u, sum(coalesce(cache_read_tokens, 0)) as cr,
             sum(coalesce(cache_write_tokens, 0)) as cw, sum(coalesce(output_tokens, 0)) as o,
             bool_or(uncached_input_tokens is not null or cache_read_tokens is not null or cache_write_tokens is not null or output_tokens is not null) as has_classes,
             sum(coalesce(total_tokens, coalesce(uncached_input_tokens, 0) + coalesce(cache_read_tokens, 0) + coalesce(cache_write_tokens, 0) + coalesce(output_tokens, 0))) as total_tokens,
             sum(sessions) as sessions, sum(requests) as requests, sum(lines_added) as lines_added, sum(lines_removed) as lines_removed,
             sum(accepted) as accepted, sum(rejected) as rejected, sum(commits) as commits, sum(pull_requests) as pull_requests,
             sum(credits_used) as credits_used, sum(vendor_cost_cents) as vc
        from spend_actor_metrics
       where account_id = ${accountId} and day >= ${w.from}::date and day < ${w.to}::date
       group by provider, actor, tool, model, day
    ),
    r as (${rates(accountId, sql`select distinct provider, model, day from am where model <> ''`)}),
    priced as (
      select am.*, coalesce(r.resolved, true) as resolved,
             case when am.has_classes and ${pricedSql(actorTokens, bookRates('r'), sql.ref('r.pri'))}
                  then ${meteredCentsSql(actorTokens, bookRates('r'))} end as metered
        from am left join r on r.provider = am.provider and r.model = am.model and r.day = am.day
    )
    select provider, actor, tool, model, sum(total_tokens) as total_tokens, sum(sessions) as sessions, sum(requests) as requests,
           sum(lines_added) as lines_added, sum(lines_removed) as lines_removed, sum(accepted) as accepted, sum(rejected) as rejected,
           sum(commits) as commits, sum(pull_requests) as pull_requests, sum(credits_used) as credits_used, sum(vc) as vc,
           sum(metered) as metered, bool_and(resolved) as resolved
      from priced
     group by provider, actor, tool, model
     order by provider, actor, tool, model`.execute(db);
  return rows;
}

const addNullable = (a: Decimal | null, b: string | null) => (b === null ? a : (a ?? dec(0)).plus(dec(b)));

/** One byActor row per (provider, actor, tool): the per-model rows summed (nulls stay null: not reported). */
function mergeActors(rows: ActorRow[]) {
  const out = new Map<string, ReturnType<typeof emptyActor>>();
  for (const r of rows) {
    const key = `${r.provider}\u0000${r.actor}\u0000${r.tool}`;
    const a = out.get(key) ?? emptyActor(r);
    a.totalTokens = a.totalTokens.plus(int(r.total_tokens));
    a.sessions = addNullable(a.sessions, r.sessions);
    a.vendorCostCents = addNullable(a.vendorCostCents, r.vc);
    a.meteredCostCents = addNullable(a.meteredCostCents, r.metered);
    a.requests = addNullable(a.requests, r.requests);
    a.linesAdded = addNullable(a.linesAdded, r.lines_added);
    a.linesRemoved = addNullable(a.linesRemoved, r.lines_removed);
    a.accepted = addNullable(a.accepted, r.accepted);
    a.rejected = addNullable(a.rejected, r.rejected);
    a.commits = addNullable(a.commits, r.commits);
    a.pullRequests = addNullable(a.pullRequests, r.pull_requests);
    a.creditsUsed = addNullable(a.creditsUsed, r.credits_used);
    out.set(key, a);
  }
  return [...out.values()];
}

function emptyActor(r: ActorRow) {
  return {
    provider: r.provider,
    actor: r.actor,
    totalTokens: dec(0),
    sessions: null as Decimal | null,
    vendorCostCents: null as Decimal | null,
    meteredCostCents: null as Decimal | null,
    requests: null as Decimal | null,
    linesAdded: null as Decimal | null,
    linesRemoved: null as Decimal | null,
    accepted: null as Decimal | null,
    rejected: null as Decimal | null,
    commits: null as Decimal | null,
    pullRequests: null as Decimal | null,
    creditsUsed: null as Decimal | null,
    tool: r.tool === '' ? null : r.tool,
  };
}

// Reconcile report

type ReconcileRow = {
  provider: SpendProvider;
  metered: string | null;
  estimate: boolean | null;
  vendor: string | null;
  invoiced: string | null;
  invoice_count: string | null;
  unresolved: string[] | null;
};

/**
 * Per provider over [from, to] inclusive: metered (price book), vendor-reported (cost lines plus
 * per-row vendor costs) and invoiced (imported invoices whose whole period sits inside the window).
 */
export async function reconcileReport(ctx: AppContext, accountId: string, w: DayWindow) {
  const end = addDays(w.to, 1);
  const { rows } = await withResolvedNames(ctx, accountId, async () => {
    const { rows } = await inReportTransaction(ctx, (tx) => sql<ReconcileRow>`
      with ${pricedGroups(accountId, { from: w.from, to: end })},
      m as (
        select provider, sum(case when priced then metered_raw end) as metered, bool_or(not priced or not cache_known) as estimate,
               sum(vc) as row_vc, array_agg(distinct model) filter (where not resolved) as unresolved
          from p group by provider
      ),
      c as (
        select provider, sum(amount_cents) as vc
          from spend_vendor_costs
         where account_id = ${accountId} and day >= ${w.from}::date and day < ${end}::date
         group by provider
      ),
      i as (
        select provider, sum(total_cents) as invoiced, count(*) as invoice_count
          from spend_invoices
         where account_id = ${accountId} and period_start >= ${w.from}::date and period_end <= ${w.to}::date
         group by provider
      )
      select provider, m.metered, m.estimate, (coalesce(m.row_vc, 0) + coalesce(c.vc, 0)) as vendor, i.invoiced, i.invoice_count, m.unresolved
        from m full join c using (provider) full join i using (provider)
       order by provider`.execute(tx));
    return { rows, unresolved: rows.flatMap((r) => (r.unresolved ?? []).map((model) => ({ provider: r.provider, model }))) };
  });
  return {
    from: w.from,
    to: w.to,
    rows: rows.map((r) => {
      const metered = int(r.metered);
      const vendor = int(r.vendor);
      const invoiceCount = Number(r.invoice_count ?? 0);
      const invoiced = int(r.invoiced);
      return {
        provider: r.provider,
        meteredCents: metered,
        meteredIsEstimate: r.estimate ?? false,
        vendorReportedCents: vendor,
        invoicedCents: invoiced,
        invoiceCount,
        meteredVsVendorCents: metered.minus(vendor),
        vendorVsInvoiceCents: invoiceCount === 0 ? null : vendor.minus(invoiced),
      };
    }),
  };
}

// Models report

/** The price book as in force today: one row per model, the account's row where one is in force. */
export async function modelsReport(ctx: AppContext, accountId: string): Promise<CurrentPrice[]> {
  return currentPrices(ctx, accountId, dayOf(ctx.clock.now()));
}
