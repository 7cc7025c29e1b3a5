import type { Decimal } from '../../../platform/money.js';

/**
 * The public pricing document (contract §5.2), built from loaded data without I/O. Keys are written
 * in the contract's order (JSON keeps insertion order); amounts stay `Decimal` so the exact JSON
 * codec renders them as number lexemes.
 */
export const PRICING_SCHEMA_URL = 'https://raw.githubusercontent.com/katrinalaszlo/agent-serve/main/schema/pricing.schema.json';

/** An ACTIVE plan as the document needs it: its enabled rules and its credit allocations. */
export type PricingPlan = {
  id: string;
  key: string;
  name: string | null;
  priceAmount: Decimal;
  currency: string;
  intervalMonths: number;
  /** Enabled rules in rule order; `priced` = the rule's pricing type is not `included`. */
  features: { key: string; priced: boolean }[];
  allocations: { denomination: string; creditAmount: Decimal }[];
};

export type PricingInput = {
  /** Public origin, no trailing slash (APP_PUBLIC_BASE_URL, else the request's own origin). */
  baseUrl: string;
  slug: string;
  accountName: string | null;
  agentSignupEnabled: boolean;
  agentSignupDefaultPlanId: string | null;
  agentMaxTopupAmount: Decimal | null;
  mcpEnabled: boolean;
  /** ACTIVE plans in client catalog order. */
  plans: PricingPlan[];
  /** Weights in effect now, one per (feature, model) chain. */
  weights: { featureKey: string; model: string | null; creditsPerUnit: Decimal }[];
  /** Prices in effect now, one per denomination, ordered by denomination. */
  prices: { denomination: string; pricePerCredit: Decimal; currency: string }[];
};

type PricingDocumentPlan = {
  id: string;
  name: string;
  price: { amount: Decimal; currency: string; per: 'month' | 'year' };
  features?: string[];
  included_usage?: Record<string, Decimal>;
  trial?: { days: number; requires_payment_method: boolean; api_provisioning_url: string };
};

export type PricingDocument = {
  $schema: string;
  product: { name: string; vendor: string; category: 'saas'; url: string };
  revenue_model: { type: 'credit' | 'usage' | 'flat'; billing_frequency: ('monthly' | 'annual')[]; agent_onboarding: boolean };
  plans: PricingDocumentPlan[];
  credits?: {
    currency_name?: string;
    weight_table: Record<string, Decimal>;
    price_book: { denomination: string; price_per_credit: Decimal; currency: string }[];
  };
  governance: { per_key_limits: true; budget_controls: boolean; spend_alerts: false; burndown_api: true };
  integration: { api_docs_url: string; openapi_spec_url: string; mcp_server: boolean; auth_methods: ['api-key'] };
};

const ANNUAL_MONTHS = 12;

/** A plan agents may sign up to: free (signup never moves money). ACTIVE is the caller's filter. */
export const isFreePlan = (plan: { priceAmount: Decimal }) => plan.priceAmount.isZero();

/** The public signup URL of a catalog. */
const signupUrl = (baseUrl: string, slug: string) => `${baseUrl}/public/v1/catalog/${encodeURIComponent(slug)}/signup`;

/**
 * The plan signup would give: the default plan while signup is enabled, if it is among the ACTIVE
 * plans and free (the same conditions the signup route checks, so the advertised trial URL works).
 */
export function signupPlanOf<P extends { id: string; priceAmount: Decimal }>(input: { agentSignupEnabled: boolean; agentSignupDefaultPlanId: string | null; plans: P[] }): P | null {
  if (!input.agentSignupEnabled || !input.agentSignupDefaultPlanId) return null;
  const plan = input.plans.find((p) => p.id === input.agentSignupDefaultPlanId);
  return plan && isFreePlan(plan) ? plan : null;
}

function revenueType(plans: PricingPlan[]): PricingDocument['revenue_model']['type'] {
  if (plans.some((p) => p.allocations.length > 0)) return 'credit';
  if (plans.some((p) => p.features.some((f) => f.priced))) return 'usage';
  return 'flat';
}

/** `annual` for 12-month plans, `monthly` for the rest, first appearance in plan order, no duplicates. */
function billingFrequencies(plans: PricingPlan[]): PricingDocument['revenue_model']['billing_frequency'] {
  const seen = new Set(plans.map((p) => (p.intervalMonths === ANNUAL_MONTHS ? ('annual' as const) : ('monthly' as const))));
  return seen.size === 0 ? ['monthly'] : [...seen];
}

/** denomination → credits per period; two allocations of one denomination add up. */
function includedUsage(plan: PricingPlan): Record<string, Decimal> | undefined {
  if (plan.allocations.length === 0) return undefined;
  const byDenomination: Record<string, Decimal> = Object.create(null);
  // By denomination: a stable key order keeps the body (and its ETag) the same from one read to the next.
  for (const a of [...plan.allocations].sort((x, y) => (x.denomination < y.denomination ? -1 : x.denomination > y.denomination ? 1 : 0))) {
    const sofar = byDenomination[a.denomination];
    byDenomination[a.denomination] = sofar ? sofar.plus(a.creditAmount) : a.creditAmount;
  }
  return byDenomination;
}

function toDocumentPlan(plan: PricingPlan, trialUrl: string | null): PricingDocumentPlan {
  const features = [...new Set(plan.features.map((f) => f.key))];
  const included = includedUsage(plan);
  return {
    id: plan.key,
    name: plan.name ?? plan.key,
    price: { amount: plan.priceAmount, currency: plan.currency, per: plan.intervalMonths === ANNUAL_MONTHS ? 'year' : 'month' },
    ...(features.length > 0 ? { features } : {}),
    ...(included ? { included_usage: included } : {}),
    ...(trialUrl ? { trial: { days: 0, requires_payment_method: false, api_provisioning_url: trialUrl } } : {}),
  };
}

/**
 * `credits` only when there is something to say: plan allocations, weights or prices. The currency
 * name is the first current price's denomination, else the first allocated one (omitted when neither).
 */
function credits(input: PricingInput): PricingDocument['credits'] | undefined {
  const allocated = input.plans.flatMap((p) => p.allocations.map((a) => a.denomination));
  if (allocated.length === 0 && input.weights.length === 0 && input.prices.length === 0) return undefined;
  const currencyName = input.prices[0]?.denomination ?? allocated[0];
  // Null prototype: keys are operator-chosen (a feature key `__proto__` must stay a plain key).
  const weightTable: Record<string, Decimal> = Object.create(null);
  for (const w of input.weights) weightTable[w.model === null ? w.featureKey : `${w.featureKey}:${w.model}`] = w.creditsPerUnit;
  return {
    ...(currencyName === undefined ? {} : { currency_name: currencyName }),
    weight_table: weightTable,
    price_book: input.prices.map((p) => ({ denomination: p.denomination, price_per_credit: p.pricePerCredit, currency: p.currency })),
  };
}

/**
 * The document, or null when the catalog has no ACTIVE plan: the schema requires at least one plan,
 * and an invalid document is never published (the route answers its 404 instead).
 */
export function buildPricingDocument(input: PricingInput): PricingDocument | null {
  if (input.plans.length === 0) return null;
  const name = input.accountName?.trim() || input.slug;
  const signupPlan = signupPlanOf(input);
  const trialUrl = signupUrl(input.baseUrl, input.slug);
  const creditSection = credits(input);
  return {
    $schema: PRICING_SCHEMA_URL,
    product: { name, vendor: name, category: 'saas', url: input.baseUrl },
    revenue_model: { type: revenueType(input.plans), billing_frequency: billingFrequencies(input.plans), agent_onboarding: input.agentSignupEnabled },
    plans: input.plans.map((p) => toDocumentPlan(p, p === signupPlan ? trialUrl : null)),
    ...(creditSection ? { credits: creditSection } : {}),
    // Key budgets exist (api-contract-agent-v2.md §2.7, supersedes base §5.2's false).
    governance: { per_key_limits: true, budget_controls: input.agentMaxTopupAmount !== null, spend_alerts: false, burndown_api: true },
    integration: {
      api_docs_url: `${input.baseUrl}/swagger-ui.html`,
      openapi_spec_url: `${input.baseUrl}/v3/api-docs`,
      mcp_server: input.mcpEnabled,
      auth_methods: ['api-key'],
    },
  };
}
