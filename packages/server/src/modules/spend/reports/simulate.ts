import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import type { Executor } from '../../../platform/db/database.js';
import type { SpendProvider } from '../tables.js';
import { invalidField } from '../../../platform/errors/app-error.js';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { bookRates, groupTokens, meteredCentsSql } from '../prices/cost.js';
import { currentPrices, rateInForce, type CurrentPrice } from '../prices/service.js';
import { normaliseModelName, resolveModelName, type Rates } from '../prices/seed.js';
import { inReportTransaction, pricedGroups, withResolvedNames } from './usage.js';
import { dayInput, dayOf, usageWindow, type DayWindow } from './window.js';

/**
 * Route simulation (contract §7.9): what the window's tokens of `fromModel` (optionally of one
 * workspace) would have cost at `toModel`'s rates. Advice only: nothing is rerouted, nothing stored.
 *
 * - `fromModel` matches usage whose vendor model name (case-insensitively) or price-book model is
 *   the name given, or the price-book model the name resolves to (so `claude-sonnet-4-5` also takes
 *   `claude-sonnet-4-5-20250929`). It need not be in the book: its unpriced days show in a caveat.
 * - `toModel` must be in the book today with an input and an output rate (else 400
 *   `validation_failed` on `toModel`); it is looked up as the book keys names (the package's
 *   matcher, `anthropic/` or `openai/` prefixes allowed), then as an operator row's own name.
 * - `currentCents` = the metered cents of those tokens (the usage report's pricing; unpriced days
 *   add nothing). `simulatedCents` = every one of those tokens, per token class, at the toModel
 *   rate in force on its day (today's where toModel had no row yet), by the one pricing rule
 *   (prices/cost.ts: batch tier at half, a missing cache rate falling back to toModel's input rate;
 *   a day whose toModel row lacks the input or output rate adds nothing). Both exact (NUMERIC); `deltaCents` =
 *   simulated − current (negative: a saving). `caveats` is never empty.
 */

const name = z.string().trim().min(1, 'must not be empty').max(255);

export const SimulateRequestSchema = z.object({
  from: dayInput.optional().describe('Inclusive; default 30 days before `to`'),
  to: dayInput.optional().describe('Exclusive; default tomorrow (UTC)'),
  fromModel: name.describe('The model whose usage is re-priced: a vendor model name or a price-book model'),
  toModel: name.describe('A model of the price book (GET /api/v1/spend/reports/models) with input and output rates'),
  workspaceId: z.string().trim().min(1).max(255).nullish().describe('Only the usage of this workspace (Anthropic workspace, OpenAI project, LiteLLM team)'),
});
export type SimulateRequest = z.infer<typeof SimulateRequestSchema>;

export const SimulationSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    fromModel: z.string(),
    toModel: z.string(),
    workspaceId: z.string().nullable(),
    uncachedInputTokens: decimalOutput,
    cacheReadTokens: decimalOutput,
    cacheCreationTokens: decimalOutput,
    outputTokens: decimalOutput,
    requests: decimalOutput.describe('0 where the vendor reports no request count'),
    currentCents: decimalOutput.describe('The metered cost of these tokens (unpriced days add nothing)'),
    simulatedCents: decimalOutput.describe('The same tokens at toModel’s rates'),
    deltaCents: decimalOutput.describe('simulated − current; negative is a saving'),
    caveats: z.array(z.string()).min(1).describe('Never empty'),
  })
  .meta({ id: 'SpendSimulation' });

type SimRow = {
  u: string | null;
  cr: string | null;
  cw: string | null;
  o: string | null;
  req: string | null;
  current: string | null;
  simulated: string | null;
  some_unpriced: boolean | null;
  fallback_days: string | null;
  has_batch: boolean | null;
  no_read_rate: boolean | null;
  no_write_rate: boolean | null;
  providers: SpendProvider[] | null;
  unresolved_providers: SpendProvider[] | null;
  unresolved_models: string[] | null;
};

type Target = { provider: SpendProvider; model: string; rates: Rates };

/** The book row `toModel` names today, as the book keys names; 400 when there is none or it has no input/output rate. */
export function findTarget(book: CurrentPrice[], toModel: string): Target {
  const resolved = resolveModelName('LITELLM', toModel);
  const key = normaliseModelName(toModel);
  const row =
    (resolved.matched ? book.find((p) => p.provider === resolved.priceProvider && p.model === resolved.priceModel) : undefined) ??
    book.find((p) => p.model === key);
  if (!row) throw invalidField('toModel', `${toModel} is not in the price book (GET /api/v1/spend/reports/models lists the models it prices)`);
  if (row.rates.input === null || row.rates.output === null) throw invalidField('toModel', `${toModel} has no input or output rate in the price book`);
  return { provider: row.provider, model: row.model, rates: row.rates };
}

const num = (d: Decimal | null) => (d === null ? null : d.toFixed());

async function simulationRow(db: Executor, accountId: string, w: DayWindow, fromModel: string, workspaceId: string | null, target: Target): Promise<SimRow> {
  const key = normaliseModelName(fromModel);
  const resolved = resolveModelName('LITELLM', fromModel).priceModel;
  const today = target.rates;
  const { rows } = await sql<SimRow>`
    with ${pricedGroups(accountId, w, workspaceId === null ? [] : ['workspace_id'])},
    m as (
      select * from p
       where (lower(model) = ${key} or price_model = ${key} or price_model = ${resolved})
         ${workspaceId === null ? sql`` : sql`and workspace_id = ${workspaceId}`}
    ),
    td as (select distinct day, ${target.provider}::text as tp, ${target.model}::text as tm from m),
    tr as (
      select td.day, (x.pri is null) as fallback,
             case when x.pri is null then ${num(today.input)}::numeric else x.ri end as ri,
             case when x.pri is null then ${num(today.output)}::numeric else x.ro end as ro,
             case when x.pri is null then ${num(today.cacheRead)}::numeric else x.rcr end as rcr,
             case when x.pri is null then ${num(today.cacheWrite5m)}::numeric else x.rcw5 end as rcw5,
             case when x.pri is null then ${num(today.cacheWrite1h)}::numeric else x.rcw1 end as rcw1
        from td left join lateral ${rateInForce(accountId, sql.ref('td.tp'), sql.ref('td.tm'), sql.ref('td.day'))} x on true
    ),
    un as (select distinct provider, model from p where not resolved)
    select sum(m.u) as u, sum(m.cr) as cr, sum(m.cw5 + m.cw1) as cw, sum(m.o) as o, sum(m.req) as req,
           sum(case when m.priced then m.metered_raw end) as current,
           sum(case when tr.ri is not null and tr.ro is not null then ${meteredCentsSql(groupTokens('m'), bookRates('tr'), sql.ref('m.batch'))} end) as simulated,
           bool_or(not m.priced) as some_unpriced,
           count(distinct m.day) filter (where tr.fallback) as fallback_days,
           bool_or(m.batch and m.u + m.cr + m.cw5 + m.cw1 + m.o > 0) as has_batch,
           bool_or(m.cr > 0 and tr.rcr is null) as no_read_rate,
           bool_or((m.cw5 > 0 and tr.rcw5 is null) or (m.cw1 > 0 and tr.rcw1 is null)) as no_write_rate,
           array_agg(distinct coalesce(m.price_provider, m.provider)) filter (where m.u + m.cr + m.cw5 + m.cw1 + m.o > 0) as providers,
           (select array_agg(provider order by provider, model) from un) as unresolved_providers,
           (select array_agg(model order by provider, model) from un) as unresolved_models
      from m join tr on tr.day = m.day`.execute(db);
  return rows[0]!;
}

export async function simulateRoute(ctx: AppContext, accountId: string, request: SimulateRequest) {
  const w = usageWindow(dayOf(ctx.clock.now()), request.from, request.to);
  const target = findTarget(await currentPrices(ctx, accountId, dayOf(ctx.clock.now())), request.toModel);
  const workspaceId = request.workspaceId ?? null;
  const row = await withResolvedNames(ctx, accountId, async () => {
    const r = await inReportTransaction(ctx, (tx) => simulationRow(tx, accountId, w, request.fromModel, workspaceId, target));
    return { ...r, unresolved: (r.unresolved_providers ?? []).map((provider, i) => ({ provider, model: r.unresolved_models![i]! })) };
  });
  const currentCents = dec(row.current ?? 0);
  const simulatedCents = dec(row.simulated ?? 0);
  const tokens = {
    uncachedInputTokens: dec(row.u ?? 0),
    cacheReadTokens: dec(row.cr ?? 0),
    cacheCreationTokens: dec(row.cw ?? 0),
    outputTokens: dec(row.o ?? 0),
  };
  return {
    from: w.from,
    to: w.to,
    fromModel: request.fromModel,
    toModel: request.toModel,
    workspaceId,
    ...tokens,
    requests: dec(row.req ?? 0),
    currentCents,
    simulatedCents,
    deltaCents: simulatedCents.minus(currentCents),
    caveats: caveatsOf(request, target, row, Object.values(tokens).every((t) => t.isZero())),
  };
}

/** What the figures leave out: the three general caveats always, then those this window raises. */
function caveatsOf(request: SimulateRequest, target: Target, row: SimRow, noUsage: boolean): string[] {
  const { fromModel, toModel } = request;
  const where = request.workspaceId ? ` in workspace ${request.workspaceId}` : '';
  const out = [
    `Advice only: nothing is rerouted. Moving ${fromModel} traffic to ${toModel} is a change made in your own code or gateway.`,
    `Assumes ${toModel} would use the same number of tokens: tokenizers and answer lengths differ between models, so real usage can be higher or lower.`,
    `Compares price only, not answer quality, latency, context window or tool support; try ${toModel} on your own workload first.`,
  ];
  if (noUsage) {
    out.push(`No usage of ${fromModel}${where} in the window: there is nothing to re-price.`);
    return out;
  }
  const others = (row.providers ?? []).filter((p) => p !== target.provider);
  if (others.length > 0) {
    out.push(`${toModel} is priced as a ${target.provider} model while this usage ran on ${others.join(', ')}: switching vendor needs an account there, and prompt-cache hits may not carry over.`);
  }
  if (row.some_unpriced) {
    out.push(`Part of ${fromModel}'s usage has no price in the price book: currentCents leaves it out while simulatedCents includes it, so deltaCents overstates the difference.`);
  }
  if (row.no_read_rate) out.push(`${toModel} has no cache-read rate in the price book: its cache reads are priced at its input rate.`);
  if (row.no_write_rate) out.push(`${toModel} has no cache-write rate in the price book: its cache writes are priced at its input rate.`);
  const fallbackDays = Number(row.fallback_days ?? 0);
  if (fallbackDays > 0) out.push(`${toModel} had no price on ${fallbackDays} day(s) of the window: its rate in force today was used for them.`);
  if (row.has_batch) out.push(`Batch-tier usage is priced at half of ${toModel}'s rates, assuming ${target.provider} offers it a batch tier.`);
  return out;
}
