/**
 * A plan-feature rule `value` (contract §3.3) as the rules editor holds it: every figure as the
 * decimal text typed (or received: the API's decimals arrive as exact strings), and back to the
 * document the API takes. Pure, so the mapping is tested in Node (test/rule-draft.test.ts).
 * Decimal text goes to the API untouched (it reads decimal strings exactly), never through a float.
 */

export const PRICING_MODELS = ['', 'usage', 'graduated'] as const;
export const RESET_MODES = ['reset', 'accumulate'] as const;
export const COST_MODELS = ['', 'simple', 'model_aware'] as const;
export const COST_UNITS = ['', 'CURRENCY', 'TOKENS', 'CREDITS'] as const;

/** One graduated tier; `upTo` empty is the unbounded ("inf") last tier. */
export type TierDraft = { upTo: string; pricePerUnit: string; flatFee: string };
/** One model's costs of a `model_aware` cost. */
export type ModelCostDraft = { model: string; input: string; output: string };

/** Every figure is decimal text as typed; '' means not set (the API's default applies). */
export type RuleDraft = {
  enabled: boolean;
  /** '' = an included feature (no usage pricing). */
  model: (typeof PRICING_MODELS)[number];
  /** The usage unit, the usage price, the per-period limit ('' or 0 = unlimited). */
  unit: string; pricePerUnit: string; maxUsage: string;
  resetMode: (typeof RESET_MODES)[number];
  tiers: TierDraft[];
  costModel: (typeof COST_MODELS)[number];
  /** A simple cost per unit; a model-aware cost's default input and output costs. */
  costPerUnit: string; inputCost: string; outputCost: string;
  costUnit: (typeof COST_UNITS)[number];
  modelCosts: ModelCostDraft[];
  creditModelId: string;
};

export const BLANK_TIER: TierDraft = { upTo: '', pricePerUnit: '', flatFee: '' };
export const BLANK_MODEL_COST: ModelCostDraft = { model: '', input: '', output: '' };

export const BLANK_RULE: RuleDraft = {
  enabled: true,
  model: 'usage',
  unit: 'units',
  pricePerUnit: '',
  maxUsage: '',
  resetMode: 'reset',
  tiers: [{ ...BLANK_TIER }],
  costModel: '',
  costPerUnit: '',
  inputCost: '',
  outputCost: '',
  costUnit: '',
  modelCosts: [],
  creditModelId: '',
};

type Doc = Record<string, unknown>;
/** A stored rule as the API returns it (decimals as exact text or numbers). */
export type StoredRule = { enabled: boolean; value: Doc; creditModelId?: string | null };

const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
const doc = (v: unknown): Doc => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Doc) : {});
const oneOf = <T extends string>(allowed: readonly T[], v: unknown, fallback: T): T => (allowed.includes(v as T) ? (v as T) : fallback);

/** The editor's draft of a stored rule. */
export function draftOf(rule: StoredRule): RuleDraft {
  const pricing = doc(rule.value.pricing);
  const cost = doc(rule.value.cost);
  const tiers = Array.isArray(pricing.tiers) ? pricing.tiers.map(doc) : [];
  return {
    enabled: rule.enabled,
    model: oneOf(PRICING_MODELS, pricing.model, ''),
    unit: text(pricing.usage_unit_type) || BLANK_RULE.unit,
    pricePerUnit: text(pricing.price_per_unit),
    maxUsage: text(pricing.max_usage),
    resetMode: oneOf(RESET_MODES, pricing.reset_mode, 'reset'),
    tiers: tiers.length ? tiers.map((t) => ({ upTo: t.up_to === 'inf' ? '' : text(t.up_to), pricePerUnit: text(t.price_per_unit), flatFee: text(t.flat_fee) })) : [{ ...BLANK_TIER }],
    costModel: oneOf(COST_MODELS, cost.model, ''),
    costPerUnit: text(cost.cost_per_unit),
    inputCost: text(cost.default_input_cost_per_unit),
    outputCost: text(cost.default_output_cost_per_unit),
    costUnit: oneOf(COST_UNITS, cost.cost_unit, ''),
    modelCosts: Object.entries(doc(cost.model_costs)).map(([model, c]) => ({ model, input: text(doc(c).input), output: text(doc(c).output) })),
    creditModelId: rule.creditModelId ?? '',
  };
}

/** Puts `v` under `key` when it was typed (an empty box sends nothing, the API's default applies). */
function put(target: Doc, key: string, v: string) {
  if (v.trim() !== '') target[key] = v.trim();
}

function pricingOf(d: RuleDraft): Doc | undefined {
  if (d.model === '') return undefined;
  const p: Doc = { model: d.model, usage_unit_type: d.unit.trim(), reset_mode: d.resetMode };
  if (d.model === 'usage') put(p, 'price_per_unit', d.pricePerUnit);
  else
    p.tiers = d.tiers.map((t) => {
      const tier: Doc = { up_to: t.upTo.trim() === '' ? 'inf' : t.upTo.trim() };
      put(tier, 'price_per_unit', t.pricePerUnit);
      put(tier, 'flat_fee', t.flatFee);
      return tier;
    });
  put(p, 'max_usage', d.maxUsage);
  return p;
}

function costOf(d: RuleDraft): Doc | undefined {
  if (d.costModel === '') return undefined;
  const c: Doc = { model: d.costModel };
  if (d.costModel === 'simple') put(c, 'cost_per_unit', d.costPerUnit);
  else {
    put(c, 'default_input_cost_per_unit', d.inputCost);
    put(c, 'default_output_cost_per_unit', d.outputCost);
    const named = d.modelCosts.filter((m) => m.model.trim() !== '');
    if (named.length) c.model_costs = Object.fromEntries(named.map((m) => [m.model.trim(), { input: m.input.trim(), output: m.output.trim() }]));
  }
  if (d.costUnit) c.cost_unit = d.costUnit;
  return c;
}

/** The rule `value` the API takes: `{}` for an included feature; pricing and cost as drafted. */
export function valueOf(d: RuleDraft): Doc {
  const pricing = pricingOf(d);
  const cost = costOf(d);
  return { ...(pricing ? { pricing } : {}), ...(cost ? { cost } : {}) };
}
