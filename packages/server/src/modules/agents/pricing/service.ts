import { createHash } from 'node:crypto';
import type { AppContext } from '../../../platform/context.js';
import type { Executor } from '../../../platform/db/database.js';
import { notFound } from '../../../platform/errors/app-error.js';
import { stringifyJson } from '../../../platform/http/json.js';
import { dec, type DecimalLike } from '../../../platform/money.js';
import { findAccountName } from '../../accounts/index.js';
import { fromStoredRuleValue, listActivePlans, listRulesOfPlans, planCreditAllocations } from '../../catalog/index.js';
import { currentPrices, effectiveWeightTable } from '../../credits/index.js';
import { findAccountSettingsBySlug } from '../../settings/index.js';
import { buildPricingDocument, type PricingPlan } from './domain.js';

export const NO_CATALOG_MESSAGE = 'No catalog at this address';

/**
 * No account has this id. An unknown slug and a closed catalog run the same loads against it, so
 * their 404 does the same database work as an open catalog's lookup and does not tell them apart.
 */
export const NO_ACCOUNT_ID = '00000000-0000-0000-0000-000000000000';

type PublishedPricing = {
  /** The document, serialised by the exact JSON codec (amounts never pass through a JS number). */
  body: string;
  /** Strong validator: a hash of the body. */
  etag: string;
};

/** ACTIVE plans in client order with their enabled rules and credit allocations. */
async function loadPlans(db: Executor, accountId: string): Promise<PricingPlan[]> {
  const plans = await listActivePlans(db, accountId);
  const ids = plans.map((p) => p.id);
  const [rules, allocations] = await Promise.all([listRulesOfPlans(db, accountId, ids), planCreditAllocations.call(db, accountId, ids)]);
  return plans.map((plan) => ({
    id: plan.id,
    key: plan.key,
    name: plan.name,
    priceAmount: dec(plan.price_amount ?? '0'),
    currency: plan.currency,
    intervalMonths: plan.interval_months ?? 1,
    features: rules
      .filter((r) => r.plan_id === plan.id && r.is_enabled)
      .map((r) => ({ key: r.feature_key, priced: fromStoredRuleValue(r.value).pricing !== null })),
    allocations: (allocations.get(plan.id) ?? []).map((a) => ({ denomination: String(a.denomination), creditAmount: dec(a.creditAmount as DecimalLike) })),
  }));
}

/**
 * The published pricing document of the catalog at `slug` (contract §5.2). An unknown slug, a closed
 * catalog, and an open catalog without an ACTIVE plan (the schema needs one) are the same 404.
 */
export async function getPricingDocument(ctx: AppContext, slug: string, baseUrl: string): Promise<PublishedPricing> {
  const now = ctx.clock.now();
  const found = await findAccountSettingsBySlug(ctx.db, slug);
  const settings = found?.publicCatalogEnabled ? found : null;
  const accountId = settings?.accountId ?? NO_ACCOUNT_ID;
  const [accountName, plans, weights, prices] = await Promise.all([
    findAccountName(ctx.db, accountId),
    loadPlans(ctx.db, accountId),
    effectiveWeightTable(ctx.db, accountId, now),
    currentPrices(ctx.db, accountId, now),
  ]);
  const document =
    settings &&
    buildPricingDocument({
      baseUrl,
      slug: settings.slug ?? slug,
      accountName,
      agentSignupEnabled: settings.agentSignupEnabled,
      agentSignupDefaultPlanId: settings.agentSignupDefaultPlanId,
      agentMaxTopupAmount: settings.agentMaxTopupAmount,
      mcpEnabled: ctx.config.mcpEnabled,
      plans,
      weights,
      prices,
    });
  if (!document) throw notFound(NO_CATALOG_MESSAGE);
  const body = stringifyJson(document);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
}

/** If-None-Match against our strong tag (weak comparison, as RFC 9110 asks for this header; `*` matches). */
export function matchesETag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || (t.startsWith('W/') ? t.slice(2) : t) === etag;
  });
}
