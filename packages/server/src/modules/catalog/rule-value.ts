import { invalid } from '../../platform/errors/app-error.js';
import { Decimal, dec, isDecimal, roundCredits } from '../../platform/money.js';

/**
 * Plan-feature rule `value` documents (contract §3.3): parsing, the two stored/returned JSON forms,
 * and the pure pricing and cost formulas. The document is snake_case on the wire (original) while
 * the domain type is camelCase; decimals never pass through a JS number.
 */

export const PRICING_MODELS = ['usage', 'graduated'] as const;
type PricingModel = (typeof PRICING_MODELS)[number];
export const RESET_MODES = ['reset', 'accumulate'] as const;
type ResetMode = (typeof RESET_MODES)[number];
export const COST_MODELS = ['simple', 'model_aware'] as const;
export const COST_UNITS = ['TOKENS', 'CREDITS', 'CURRENCY'] as const;
type CostUnit = (typeof COST_UNITS)[number];

/** One graduated tier; `upTo` null is the unbounded ("inf") last tier. */
export type Tier = { upTo: Decimal | null; pricePerUnit: Decimal; flatFee: Decimal | null };
/** Normalised `value.pricing`; `maxUsage` null = unlimited (0 is stored as null). */
export type Pricing = {
  model: PricingModel; usageUnitType: string; pricePerUnit: Decimal | null;
  maxUsage: Decimal | null; resetMode: ResetMode; tiers: Tier[] | null;
};
/** Normalised `value.cost` (optional COGS). */
export type Cost =
  | { model: 'simple'; costPerUnit: Decimal; costUnit: CostUnit | null }
  | {
      model: 'model_aware'; defaultInputCostPerUnit: Decimal; defaultOutputCostPerUnit: Decimal | null;
      costUnit: CostUnit | null; modelCosts: Record<string, { input: Decimal; output: Decimal }>;
    };
/** A whole rule value; both null = an included (boolean) feature. */
export type RuleValue = { pricing: Pricing | null; cost: Cost | null };

type Doc = Record<string, unknown>;
const LEGACY_PRICING_KEYS = ['model', 'usage_unit_type', 'price_per_unit', 'max_usage', 'reset_mode', 'tiers'];
const LEGACY_COST_KEYS = ['cost_per_unit', 'cost_unit', 'default_input_cost_per_unit', 'default_output_cost_per_unit', 'model_costs'];
// Exponent form is allowed because a JS number such as 1e21 stringifies that way.
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * Bounds of rule values (README "Bounds"): a price, fee or cost per unit is at most 1,000,000, so
 * one event (≤ 1e9 units) prices at ≤ 1e15, exact in Decimal (invoice lines are unconstrained NUMERIC sums); usage
 * thresholds (`max_usage`, `up_to`) are at most 1e15; at most 30 decimal places (per-token costs
 * are tiny; units × rate then stays within Decimal's 60 digits); at most 100 tiers.
 */
export const RULE_BOUNDS = { maxRate: dec(1_000_000), maxUnits: dec('1000000000000000'), maxScale: 30, maxTiers: 100 } as const;
const UNIT_KEYS = new Set(['max_usage', 'up_to']);

const isDoc = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v) && !isDecimal(v);
const isAbsent = (v: unknown) => v === undefined || v === null;

function fail(field: string, message: string, detail?: string): never {
  throw invalid(message, { detail, fields: [{ field, message }] });
}

/** Reads a non-negative decimal; `label` is the name used in messages (e.g. `tiers[0].flat_fee`). */
function readDecimal(doc: Doc, key: string, base: string, label = key): Decimal | null {
  const raw = doc[key];
  if (isAbsent(raw)) return null;
  const field = `${base}.${label}`;
  let value: Decimal | null = null;
  if (isDecimal(raw)) value = dec(raw);
  else if (typeof raw === 'number' && Number.isFinite(raw)) value = dec(raw);
  else if (typeof raw === 'string' && DECIMAL_TEXT.test(raw.trim())) value = dec(raw.trim());
  if (value === null || !value.isFinite()) return fail(field, `${label} must be a number`);
  if (value.isNegative() && !value.isZero()) return fail(field, `${label} cannot be negative`);
  const max = UNIT_KEYS.has(key) ? RULE_BOUNDS.maxUnits : RULE_BOUNDS.maxRate;
  if (value.gt(max)) return fail(field, `${label} exceeds maximum ${max.toFixed()}`);
  if (value.decimalPlaces() > RULE_BOUNDS.maxScale) return fail(field, `${label} allows at most ${RULE_BOUNDS.maxScale} decimals`);
  return value.isZero() ? dec(0) : value; // drop the sign of -0
}

function requireDecimal(doc: Doc, key: string, base: string, label = key): Decimal {
  return readDecimal(doc, key, base, label) ?? fail(`${base}.${label}`, `${label} is required`);
}

function readEnum<T extends string>(raw: unknown, allowed: readonly T[]): T | undefined {
  return typeof raw === 'string' && (allowed as readonly string[]).includes(raw) ? (raw as T) : undefined;
}

function parseTiers(raw: unknown, base: string): Tier[] {
  const field = `${base}.tiers`;
  if (isAbsent(raw) || (Array.isArray(raw) && raw.length === 0)) {
    return fail(field, 'Tiers are required for graduated pricing model');
  }
  if (!Array.isArray(raw)) return fail(field, 'tiers must be an array');
  if (raw.length > RULE_BOUNDS.maxTiers) return fail(field, `at most ${RULE_BOUNDS.maxTiers} tiers are allowed`);
  const tiers = raw.map((item: unknown, i): Tier => {
    const label = `tiers[${i}]`;
    if (!isDoc(item)) return fail(`${base}.${label}`, `${label} must be an object`);
    const upTo = item.up_to === 'inf' ? null : requireDecimal(item, 'up_to', base, `${label}.up_to`);
    return {
      upTo,
      pricePerUnit: requireDecimal(item, 'price_per_unit', base, `${label}.price_per_unit`),
      flatFee: readDecimal(item, 'flat_fee', base, `${label}.flat_fee`),
    };
  });
  // The tier formula walks tiers in order, so overlapping or unordered bounds would be meaningless.
  tiers.forEach((tier, i) => {
    const prev = tiers[i - 1];
    if (prev && (prev.upTo === null || (tier.upTo !== null && tier.upTo.lte(prev.upTo)))) {
      fail(field, 'Tiers must have ascending up_to values and only the last tier may be "inf"');
    }
  });
  return tiers;
}

function parsePricing(raw: unknown): Pricing | null {
  const base = 'value.pricing';
  if (isAbsent(raw)) return null;
  if (!isDoc(raw)) return fail(base, 'pricing must be an object');
  const model = readEnum(raw.model, PRICING_MODELS);
  if (!model) {
    return fail(`${base}.model`, 'Invalid pricing model configuration', `Supported pricing models: ${PRICING_MODELS.join(', ')}`);
  }
  const unitType = raw.usage_unit_type;
  if (isAbsent(unitType) || (typeof unitType === 'string' && unitType.trim() === '')) {
    return fail(`${base}.usage_unit_type`, 'usage_unit_type is required');
  }
  if (typeof unitType !== 'string') return fail(`${base}.usage_unit_type`, 'usage_unit_type must be a string');
  if (unitType.length > 255) return fail(`${base}.usage_unit_type`, 'usage_unit_type allows at most 255 characters');
  const pricePerUnit = model === 'usage' ? requireDecimal(raw, 'price_per_unit', base) : readDecimal(raw, 'price_per_unit', base);
  const maxUsage = readDecimal(raw, 'max_usage', base);
  const resetMode = isAbsent(raw.reset_mode) ? 'reset' : readEnum(raw.reset_mode, RESET_MODES);
  if (!resetMode) {
    return fail(`${base}.reset_mode`, 'Invalid reset_mode', `Supported reset modes: ${RESET_MODES.join(', ')}`);
  }
  return {
    model,
    usageUnitType: unitType,
    pricePerUnit,
    maxUsage: maxUsage?.isZero() ? null : maxUsage, // the contract treats 0 as "unlimited"
    resetMode,
    tiers: model === 'graduated' ? parseTiers(raw.tiers, base) : null,
  };
}

function parseCost(raw: unknown): Cost | null {
  const base = 'value.cost';
  if (isAbsent(raw)) return null;
  if (!isDoc(raw)) return fail(base, 'cost must be an object');
  const model = readEnum(raw.model, COST_MODELS);
  if (!model) return fail(`${base}.model`, 'Invalid cost model configuration', `Supported cost models: ${COST_MODELS.join(', ')}`);
  const costUnit = isAbsent(raw.cost_unit) ? null : readEnum(raw.cost_unit, COST_UNITS);
  if (costUnit === undefined) return fail(`${base}.cost_unit`, 'Invalid cost_unit', `Supported cost units: ${COST_UNITS.join(', ')}`);
  if (model === 'simple') return { model, costPerUnit: requireDecimal(raw, 'cost_per_unit', base), costUnit };
  const modelCosts: Record<string, { input: Decimal; output: Decimal }> = {};
  if (!isAbsent(raw.model_costs)) {
    if (!isDoc(raw.model_costs)) return fail(`${base}.model_costs`, 'model_costs must be an object');
    for (const [name, entry] of Object.entries(raw.model_costs)) {
      const label = `model_costs.${name}`;
      if (!isDoc(entry)) return fail(`${base}.${label}`, `${label} must be an object`);
      modelCosts[name] = {
        input: requireDecimal(entry, 'input', base, `${label}.input`),
        output: requireDecimal(entry, 'output', base, `${label}.output`),
      };
    }
  }
  return {
    model,
    defaultInputCostPerUnit: requireDecimal(raw, 'default_input_cost_per_unit', base),
    defaultOutputCostPerUnit: readDecimal(raw, 'default_output_cost_per_unit', base),
    costUnit,
    modelCosts,
  };
}

const pick = (doc: Doc, keys: string[]): Doc => Object.fromEntries(keys.filter((k) => doc[k] !== undefined).map((k) => [k, doc[k]]));

/**
 * Parses and validates a rule request's `value` (numbers as JS number, Decimal or numeric string).
 * Accepts the legacy flat form (`{ model, price_per_unit, cost_model, … }`). Throws `invalid(...)`
 * with the contract's messages; field paths always name the nested form (`value.pricing.<name>`,
 * `value.cost.<name>`), which is what gets stored.
 */
export function parseRuleValue(input: unknown): RuleValue {
  if (isAbsent(input)) return { pricing: null, cost: null };
  if (!isDoc(input)) return fail('value', 'value must be an object');
  if ('pricing' in input || 'cost' in input) return { pricing: parsePricing(input.pricing), cost: parseCost(input.cost) };
  const hasPricing = LEGACY_PRICING_KEYS.some((k) => input[k] !== undefined);
  return {
    pricing: hasPricing ? parsePricing(pick(input, LEGACY_PRICING_KEYS)) : null,
    cost: isAbsent(input.cost_model) ? null : parseCost({ ...pick(input, LEGACY_COST_KEYS), model: input.cost_model }),
  };
}

type Encode = (value: Decimal) => unknown;

function encode(value: RuleValue, enc: Encode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Absent optional fields are omitted rather than written as null, matching the contract's example.
  const put = (doc: Doc, key: string, v: Decimal | string | null) => {
    if (v !== null) doc[key] = typeof v === 'string' ? v : enc(v);
  };
  const { pricing, cost } = value;
  if (pricing) {
    const p: Doc = { model: pricing.model, usage_unit_type: pricing.usageUnitType };
    put(p, 'price_per_unit', pricing.pricePerUnit);
    put(p, 'max_usage', pricing.maxUsage);
    p.reset_mode = pricing.resetMode;
    if (pricing.tiers) {
      p.tiers = pricing.tiers.map((tier) => {
        const t: Doc = { up_to: tier.upTo === null ? 'inf' : enc(tier.upTo), price_per_unit: enc(tier.pricePerUnit) };
        put(t, 'flat_fee', tier.flatFee);
        return t;
      });
    }
    out.pricing = p;
  }
  if (cost) {
    const c: Doc = { model: cost.model };
    if (cost.model === 'simple') {
      put(c, 'cost_per_unit', cost.costPerUnit);
    } else {
      put(c, 'default_input_cost_per_unit', cost.defaultInputCostPerUnit);
      put(c, 'default_output_cost_per_unit', cost.defaultOutputCostPerUnit);
    }
    put(c, 'cost_unit', cost.costUnit);
    if (cost.model === 'model_aware' && Object.keys(cost.modelCosts).length > 0) {
      c.model_costs = Object.fromEntries(
        Object.entries(cost.modelCosts).map(([name, mc]) => [name, { input: enc(mc.input), output: enc(mc.output) }]),
      );
    }
    out.cost = c;
  }
  return out;
}

/** The API response form: nested snake_case, decimals as `Decimal` (the JSON codec writes numbers). */
export function toRuleValueJson(value: RuleValue): Record<string, unknown> {
  return encode(value, (d) => d);
}

/** The jsonb column form: same shape, decimals as plain-notation strings so no digit is lost. */
export function toStoredRuleValue(value: RuleValue): Record<string, unknown> {
  return encode(value, (d) => d.toFixed());
}

/** Reads a stored jsonb value back. A row that fails validation is corrupt data (a 500), not a 400. */
export function fromStoredRuleValue(json: unknown): RuleValue {
  try {
    return parseRuleValue(json);
  } catch (err) {
    throw new Error(`Stored rule value is invalid: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/**
 * Graduated tier cost of a cumulative total, unrounded so callers can subtract two totals
 * (accumulate mode) before rounding once. Each tier reached adds its flat fee; units past the last
 * bounded tier are priced at that tier's rate, as there is no further tier to take them.
 */
export function computeGraduatedCost(tiers: Tier[], totalUnits: Decimal): Decimal {
  let total = dec(0);
  let lower = dec(0);
  for (const tier of tiers) {
    if (totalUnits.lte(lower)) return total;
    const upper = tier.upTo === null ? totalUnits : Decimal.min(tier.upTo, totalUnits);
    if (upper.gt(lower)) total = total.plus(upper.minus(lower).times(tier.pricePerUnit)).plus(tier.flatFee ?? 0);
    if (tier.upTo === null) return total;
    lower = tier.upTo;
  }
  const last = tiers.at(-1);
  return last && totalUnits.gt(lower) ? total.plus(totalUnits.minus(lower).times(last.pricePerUnit)) : total;
}

/**
 * Revenue of one event's units, 6 dp HALF_UP. For graduated pricing this applies the tier formula
 * to the event's units alone, an approximation kept for the event record only: invoice lines
 * re-price the period total with computeGraduatedCost (§6.2).
 */
export function computeUsageRevenue(pricing: Pricing, units: Decimal): Decimal {
  const raw = pricing.model === 'graduated' ? computeGraduatedCost(pricing.tiers ?? [], units) : units.times(pricing.pricePerUnit ?? 0);
  return roundCredits(raw);
}

/** Event cost (COGS) from the rule's cost model, 6 dp HALF_UP; null when the rule has no cost. */
export function computeCost(
  cost: Cost | null,
  units: Decimal,
  tokens: { model?: string; inputTokens?: number; outputTokens?: number },
): Decimal | null {
  if (!cost) return null;
  if (cost.model === 'simple') return roundCredits(units.times(cost.costPerUnit));
  // Own-property lookup so a model named e.g. "constructor" cannot hit Object.prototype.
  const own = tokens.model !== undefined && Object.hasOwn(cost.modelCosts, tokens.model) ? cost.modelCosts[tokens.model] : undefined;
  const input = dec(tokens.inputTokens ?? 0).times(own?.input ?? cost.defaultInputCostPerUnit);
  const output = dec(tokens.outputTokens ?? 0).times(own?.output ?? cost.defaultOutputCostPerUnit ?? 0);
  return roundCredits(input.plus(output));
}
