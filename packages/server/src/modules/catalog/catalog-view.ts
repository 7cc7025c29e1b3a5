import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/errors/app-error.js';
import { toPage, type PageQuery } from '../../platform/http/pagination.js';
import { planCreditAllocations } from './extensions.js';
import * as repo from './repo.js';
import { fromStoredRuleValue, type Pricing } from './rule-value.js';
import { toFeature, toPlan } from './service.js';

/** How a rule's pricing appears in the public catalog (camelCase, as the contract's client view). */
function toPricingView(pricing: Pricing | null) {
  if (!pricing) return { pricingType: 'included' as const, pricing: null };
  return {
    pricingType: pricing.model === 'graduated' ? ('graduated' as const) : ('usage_based' as const),
    pricing: {
      model: pricing.model,
      pricePerUnit: pricing.pricePerUnit,
      unitLabel: pricing.usageUnitType,
      maxUsage: pricing.maxUsage,
      resetMode: pricing.resetMode,
      tiers: pricing.tiers?.map((t) => ({ upTo: t.upTo, pricePerUnit: t.pricePerUnit, flatFee: t.flatFee })) ?? null,
    },
  };
}

export function listAllPlans(ctx: AppContext, accountId: string) {
  return repo.listPlans(ctx.db, accountId);
}

export async function listActiveCatalog(ctx: AppContext, accountId: string, page: PageQuery) {
  const [plans, total] = await Promise.all([
    repo.listPlans(ctx.db, accountId, { status: 'ACTIVE', limit: page.limit, offset: page.offset }),
    repo.countPlans(ctx.db, accountId, 'ACTIVE'),
  ]);
  return toPage(await toCatalogItems(ctx, accountId, plans), total, page);
}

/** Every ACTIVE plan with its features, unpaged (the MCP `listPlans` tool). */
export async function listActiveCatalogItems(ctx: AppContext, accountId: string) {
  return toCatalogItems(ctx, accountId, await repo.listPlans(ctx.db, accountId, { status: 'ACTIVE' }));
}

async function toCatalogItems(ctx: AppContext, accountId: string, plans: repo.PlanRow[]) {
  const [rules, allocations] = await Promise.all([
    repo.listRulesOfPlans(ctx.db, accountId, plans.map((p) => p.id)),
    planCreditAllocations.call(ctx.db, accountId, plans.map((p) => p.id)),
  ]);
  return plans.map((plan) => {
    const { status: _s, createdAt: _c, modifiedAt: _m, ...planView } = toPlan(plan);
    return {
      plan: planView,
      features: rules
        .filter((r) => r.plan_id === plan.id && r.is_enabled)
        .map((r) => ({
          id: r.feature_id,
          name: r.feature_name,
          key: r.feature_key,
          description: r.feature_description,
          ...toPricingView(fromStoredRuleValue(r.value).pricing),
        })),
      creditAllocations: allocations.get(plan.id) ?? [],
    };
  });
}

export async function listFeaturePage(ctx: AppContext, accountId: string, page: PageQuery) {
  const [rows, total] = await Promise.all([repo.listFeatures(ctx.db, accountId, page), repo.countFeatures(ctx.db, accountId)]);
  return toPage(rows.map(toFeature), total, page);
}

export async function getFeatureByKey(ctx: AppContext, accountId: string, key: string) {
  const row = await repo.findFeatureByKey(ctx.db, accountId, key);
  if (!row) throw notFound(`Feature not found: ${key}`);
  return toFeature(row);
}

export function listAllFeatures(ctx: AppContext, accountId: string) {
  return repo.listFeatures(ctx.db, accountId);
}
