import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';
import { dec } from '../../../platform/money.js';
import { findFeature } from '../../catalog/index.js';
import { sumFeatureEventTotals, type FeatureEventTotals } from '../../usage/index.js';
import { allocate } from '../allocation/service.js';
import { countOutcomes } from './outcomes.js';
import { unitReportSchema } from './report-route.js';
import { perOutcomeCents } from './rounding.js';
import type { DayWindow } from './window.js';
import { listUnits } from '../units/repo.js';

/**
 * Feature P&L (contract §7.9): each PROJECT unit linked to a monetization feature, its build cost
 * (the allocation's `totalCents`: metered spend with descendants, no person estimates) against the
 * feature's revenue and serving cost from usage events over [from 00:00Z, to 00:00Z).
 *
 * - `revenueCents` / `serveCostCents` = Σ revenueAmount / Σ costAmount × 100 of the feature's
 *   CLIENT_TRACKED and ENTITLEMENT_CHECKED events (usage module, summed in SQL; a missing cost is 0).
 *   Event amounts are in the account's currency and spend cents are USD: the contract's formula
 *   adds them as they are.
 * - `serveMarginCents` = revenue − serve cost; `netCents` = serve margin − build;
 *   `buildPerOutcomeCents` = build ÷ the project's outcomes (with descendants; `perOutcomeCents`),
 *   null with none. Every other figure is exact.
 * - PROJECT units without a feature are listed by name in `unlinkedProjects` and left out.
 * - Totals count each cent once: build = Σ ownCents over the union of the linked projects' subtrees
 *   (a linked project inside another is not added twice); revenue and serve cost once per feature
 *   (two projects linked to one feature share it). Without such overlaps they are the rows' sums.
 */

const HUNDRED = dec(100);
const startOf = (day: string) => new Date(`${day}T00:00:00Z`);

export async function pnlReport(ctx: AppContext, accountId: string, w: DayWindow) {
  const allocation = await allocate(ctx, accountId, w);
  const featureOf = new Map((await listUnits(ctx.db, accountId)).map((u) => [u.id, u.feature_id]));
  const parentOf = new Map(allocation.rows.map((r) => [r.unitId, r.parentId]));
  const projects = allocation.rows.filter((r) => r.type === 'PROJECT');
  const linked = projects.filter((r) => featureOf.get(r.unitId) != null).map((r) => ({ ...r, featureId: featureOf.get(r.unitId)! }));
  const featureIds = [...new Set(linked.map((r) => r.featureId))];

  const { perUnit } = await countOutcomes(ctx.db, accountId, w, parentOf);
  const events = await sumFeatureEventTotals(ctx, accountId, featureIds, startOf(w.from), startOf(w.to));
  const features = new Map(
    (await Promise.all(featureIds.map((id) => findFeature(ctx.db, accountId, id)))).filter((f) => f !== undefined).map((f) => [f.id, f]),
  );

  const money = (t: FeatureEventTotals | undefined) => ({ revenue: (t?.revenueAmount ?? dec(0)).times(HUNDRED), cost: (t?.costAmount ?? dec(0)).times(HUNDRED) });
  const rows = linked.map((r) => {
    const { revenue, cost } = money(events.get(r.featureId));
    const outcomes = perUnit.get(r.unitId)?.outcomes ?? 0;
    const margin = revenue.minus(cost);
    return {
      unitId: r.unitId,
      name: r.name,
      featureId: r.featureId,
      featureKey: features.get(r.featureId)?.key ?? null,
      featureName: features.get(r.featureId)?.name ?? null,
      buildCents: r.totalCents,
      outcomes,
      revenueCents: revenue,
      serveCostCents: cost,
      serveMarginCents: margin,
      netCents: margin.minus(r.totalCents),
      buildPerOutcomeCents: perOutcomeCents(r.totalCents, outcomes),
    };
  });

  const linkedIds = new Set(linked.map((r) => r.unitId));
  const totalBuildCents = allocation.rows.filter((r) => underLinked(r.unitId, parentOf, linkedIds)).reduce((sum, r) => sum.plus(r.ownCents), dec(0));
  let totalRevenueCents = dec(0);
  let totalServeCostCents = dec(0);
  for (const id of featureIds) {
    const { revenue, cost } = money(events.get(id));
    totalRevenueCents = totalRevenueCents.plus(revenue);
    totalServeCostCents = totalServeCostCents.plus(cost);
  }
  return {
    from: w.from,
    to: w.to,
    rows,
    unlinkedProjects: projects.filter((r) => featureOf.get(r.unitId) == null).map((r) => r.name),
    totalBuildCents,
    totalRevenueCents,
    totalServeCostCents,
    totalNetCents: totalRevenueCents.minus(totalServeCostCents).minus(totalBuildCents),
  };
}

/** True when the unit or one of its ancestors is a linked project. */
function underLinked(unitId: string, parentOf: Map<string, string | null>, linked: Set<string>): boolean {
  const seen = new Set<string>();
  for (let id: string | null | undefined = unitId; id != null && !seen.has(id); id = parentOf.get(id)) {
    if (linked.has(id)) return true;
    seen.add(id);
  }
  return false;
}

export const PnlSchema = unitReportSchema(
  {
    featureId: z.uuid(),
    featureKey: z.string().nullable().describe('null only if the feature was deleted while the report ran'),
    featureName: z.string().nullable(),
    buildCents: decimalOutput.describe('The allocation’s totalCents of the project (metered, with descendants)'),
    outcomes: z.number().int().describe('Outcomes of the window attributed to the project or a descendant'),
    revenueCents: decimalOutput.describe('Σ revenueAmount × 100 of the feature’s CLIENT_TRACKED and ENTITLEMENT_CHECKED events in the window'),
    serveCostCents: decimalOutput.describe('Σ costAmount × 100 of the same events'),
    serveMarginCents: decimalOutput.describe('revenueCents − serveCostCents'),
    netCents: decimalOutput.describe('serveMarginCents − buildCents'),
    buildPerOutcomeCents: decimalOutput.nullable().describe('buildCents ÷ outcomes, HALF_UP to 4 decimal places; null with no outcomes'),
  },
  {
    unlinkedProjects: z.array(z.string()).describe('Names of PROJECT units with no feature; left out of the totals'),
    totalBuildCents: decimalOutput.describe('Each cent once: a linked project nested in another is not added twice'),
    totalRevenueCents: decimalOutput.describe('Once per linked feature'),
    totalServeCostCents: decimalOutput.describe('Once per linked feature'),
    totalNetCents: decimalOutput.describe('totalRevenueCents − totalServeCostCents − totalBuildCents'),
  },
).meta({ id: 'SpendPnlReport' });
