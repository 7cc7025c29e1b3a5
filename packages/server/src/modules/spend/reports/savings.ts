import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import type { Executor } from '../../../platform/db/database.js';
import type { SpendProvider } from '../tables.js';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';
import { dec } from '../../../platform/money.js';
import { inReportTransaction, pricedGroups, withResolvedNames } from './usage.js';
import { cacheShareOf } from './rounding.js';
import type { DayWindow } from './window.js';
import { SPEND_PROVIDERS } from '../providers.js';

/**
 * The savings report (contract §7.9): what prompt caching saved on the input side, per model.
 *
 * For each usage group of [from, to) (priced as the usage report prices it: the rate in force on
 * its day, batch tier at half):
 * - `inputCostCents` = the input side as billed: uncached × input + cache reads × cache-read rate
 *   + 5m / 1h writes × their rates (a missing cache rate falls back to the input rate, as metered);
 * - `noCacheCostCents` = the same input-side tokens all at the input rate;
 * - `savedCents` = noCache − input, negative when cache writes cost more than the reads saved.
 * Output tokens are shown but priced on neither side (caching does not change them). A group is
 * priced when the usage report prices it and, holding input-side tokens, has an input rate; an
 * unpriced group adds tokens but no cents, and its model is listed in `unpricedModels`.
 * All cents are exact (NUMERIC, fractional); only `cacheShare` rounds (`cacheShareOf`).
 */

type SavingsSetRow = {
  g: number;
  provider: SpendProvider | null;
  model: string | null;
  u: string | null;
  cr: string | null;
  cw: string | null;
  o: string | null;
  input_cost: string | null;
  no_cache: string | null;
  priced: boolean | null;
  cache_known: boolean | null;
  resolved: boolean | null;
};

/** Per model and in total (grouping sets), over the priced groups of the window. */
async function savingsSets(db: Executor, accountId: string, w: DayWindow): Promise<SavingsSetRow[]> {
  const { rows } = await sql<SavingsSetRow>`
    with ${pricedGroups(accountId, w)},
    s as (
      select provider, model, u, cr, cw5 + cw1 as cw, o, cache_known, resolved,
             priced and (u + cr + cw5 + cw1 = 0 or ri is not null) as priced,
             (case when batch then 0.5 else 1 end)
               * (coalesce(u * ri, 0) + coalesce(cr * coalesce(rcr, ri), 0) + coalesce(cw5 * coalesce(rcw5, ri), 0) + coalesce(cw1 * coalesce(rcw1, ri), 0))
               * 0.0001 as input_raw,
             (case when batch then 0.5 else 1 end) * coalesce((u + cr + cw5 + cw1) * ri, 0) * 0.0001 as no_cache_raw
        from p
    )
    select grouping(provider, model) as g, provider, model, sum(u) as u, sum(cr) as cr, sum(cw) as cw, sum(o) as o,
           sum(case when priced then input_raw end) as input_cost, sum(case when priced then no_cache_raw end) as no_cache,
           bool_and(priced) as priced, bool_and(cache_known) as cache_known, bool_and(resolved) as resolved
      from s
     group by grouping sets ((provider, model), ())`.execute(db);
  return rows;
}

export async function savingsReport(ctx: AppContext, accountId: string, w: DayWindow) {
  const { sets } = await withResolvedNames(ctx, accountId, async () => {
    const sets = await inReportTransaction(ctx, (tx) => savingsSets(tx, accountId, w));
    return { sets, unresolved: sets.filter((s) => s.g === 0 && s.resolved === false).map((s) => ({ provider: s.provider!, model: s.model! })) };
  });
  const byModel = sets
    .filter((s) => s.g === 0)
    .sort((a, b) => a.provider!.localeCompare(b.provider!) || a.model!.localeCompare(b.model!))
    .map((s) => toRow(s.provider, s.model, s, true));
  const total = sets.find((s) => s.g !== 0);
  return {
    from: w.from,
    to: w.to,
    totals: toRow(null, null, total, false),
    byModel,
    unpricedModels: [...new Set(byModel.filter((m) => !m.priced).map((m) => m.model!))].sort(),
  };
}

/** A Row; `nullWhenUnpriced`: a model none of whose days is priced shows null cents (totals show 0). */
function toRow(provider: SpendProvider | null, model: string | null, s: SavingsSetRow | undefined, nullWhenUnpriced: boolean) {
  const n = (v: string | null | undefined) => dec(v ?? 0);
  const cents = (v: string | null | undefined) => (v == null ? (nullWhenUnpriced ? null : dec(0)) : dec(v));
  const inputCostCents = cents(s?.input_cost);
  const noCacheCostCents = cents(s?.no_cache);
  return {
    provider,
    model,
    uncachedInputTokens: n(s?.u),
    cacheReadTokens: n(s?.cr),
    cacheCreationTokens: n(s?.cw),
    outputTokens: n(s?.o),
    cacheShare: cacheShareOf(n(s?.u), n(s?.cr), n(s?.cw)),
    inputCostCents,
    noCacheCostCents,
    savedCents: inputCostCents === null || noCacheCostCents === null ? null : noCacheCostCents.minus(inputCostCents),
    priced: s?.priced ?? true,
    cacheRatesKnown: s?.cache_known ?? true,
  };
}

const provider = z.enum(SPEND_PROVIDERS);

const SavingsRowSchema = z
  .object({
    provider: provider.nullable().describe('null in totals'),
    model: z.string().nullable().describe('The vendor’s model name; null in totals'),
    uncachedInputTokens: decimalOutput,
    cacheReadTokens: decimalOutput,
    cacheCreationTokens: decimalOutput.describe('5-minute and 1-hour cache writes'),
    outputTokens: decimalOutput.describe('Shown only: caching does not change output, so neither cost includes it'),
    cacheShare: decimalOutput.describe('cacheRead ÷ (uncached + cacheRead + cacheCreation), in [0, 1], HALF_UP to 4 decimal places; 0 with no input-side tokens'),
    inputCostCents: decimalOutput.nullable().describe('The input side as billed (cache reads and writes at their rates); null when no day of the model is priced'),
    noCacheCostCents: decimalOutput.nullable().describe('The same input-side tokens all at the input rate; null when no day is priced'),
    savedCents: decimalOutput.nullable().describe('noCacheCostCents − inputCostCents; negative when cache writes cost more than the reads saved'),
    priced: z.boolean().describe('false: some day of the model has no rate; its tokens add no cents'),
    cacheRatesKnown: z.boolean().describe('false: a cache rate is missing and the input rate stood in (inputCostCents is then an estimate)'),
  })
  .meta({ id: 'SpendSavingsRow' });

export const SavingsSchema = z
  .object({ from: z.string(), to: z.string(), totals: SavingsRowSchema, byModel: z.array(SavingsRowSchema), unpricedModels: z.array(z.string()) })
  .meta({ id: 'SpendSavingsReport' });
