import { dec, isDecimal, type Decimal } from '../../platform/money.js';

/**
 * The account's default AI cost rates (`defaultCostConfig`, contract §5.1): the request shape, its
 * checks (the original's messages for negatives), and the stored jsonb read back as exact values.
 */

/** Cost rates: the bounds of the rule value's cost rates (catalog README "Bounds"). */
export const MAX_COST_RATE = 1_000_000;
export const COST_RATE_SCALE = 30;
export const MAX_MODEL_COSTS = 1000;

/** One model's cost rates (per `costUnit`); either may be unset. */
type CostRate = { input: Decimal | null; output: Decimal | null };

/** The account's default AI cost rates, used where an event carries no cost (contract §5.1). */
export type CostConfig = {
  modelCosts: Record<string, CostRate> | null;
  defaultInputCostPerUnit: Decimal | null;
  defaultOutputCostPerUnit: Decimal | null;
  costUnit: string | null;
};

/** A cost config as the request sends it: every value optional (decimals already parsed). */
export type CostConfigInput = {
  modelCosts?: Record<string, { input?: Decimal | null | undefined; output?: Decimal | null | undefined }> | null | undefined;
  defaultInputCostPerUnit?: Decimal | null | undefined;
  defaultOutputCostPerUnit?: Decimal | null | undefined;
  costUnit?: string | null | undefined;
};

/** A cost rate ≥ 0 within the bounds, or the message (negatives in the original's words). */
function checkCostRate(value: Decimal, negative: string, name: string): string | null {
  if (value.lt(0)) return negative;
  if (value.gt(MAX_COST_RATE)) return `${name} must be at most ${MAX_COST_RATE}`;
  if (value.decimalPlaces() > COST_RATE_SCALE) return `${name} allows at most ${COST_RATE_SCALE} decimals`;
  return null;
}

/**
 * The cost config to store: values ≥ 0 and bounded; null when nothing is set (no model rates,
 * no default rate, no unit), which clears it. The config is replaced whole, never merged.
 */
export function normaliseCostConfig(input: CostConfigInput | null): { config: CostConfig | null } | { problem: { field: string; message: string } } {
  if (input === null) return { config: null };
  const field = 'defaultCostConfig';
  const entries = Object.entries(input.modelCosts ?? {});
  if (entries.length > MAX_MODEL_COSTS) return { problem: { field: `${field}.modelCosts`, message: `defaultCostConfig.modelCosts allows at most ${MAX_MODEL_COSTS} models` } };
  const rates: [string, CostRate][] = [];
  for (const [model, rate] of entries) {
    const input_ = rate.input ?? null;
    const output = rate.output ?? null;
    const problem =
      (input_ && checkCostRate(input_, 'Model input cost rates must be non-negative', `defaultCostConfig.modelCosts.${model}.input`)) ||
      (output && checkCostRate(output, 'Model output cost rates must be non-negative', `defaultCostConfig.modelCosts.${model}.output`));
    if (problem) return { problem: { field: `${field}.modelCosts`, message: problem } };
    rates.push([model, { input: input_, output }]);
  }
  const defaultInput = input.defaultInputCostPerUnit ?? null;
  const defaultOutput = input.defaultOutputCostPerUnit ?? null;
  const inputProblem = defaultInput && checkCostRate(defaultInput, 'Default input cost per unit must be non-negative', 'defaultCostConfig.defaultInputCostPerUnit');
  if (inputProblem) return { problem: { field: `${field}.defaultInputCostPerUnit`, message: inputProblem } };
  const outputProblem = defaultOutput && checkCostRate(defaultOutput, 'Default output cost per unit must be non-negative', 'defaultCostConfig.defaultOutputCostPerUnit');
  if (outputProblem) return { problem: { field: `${field}.defaultOutputCostPerUnit`, message: outputProblem } };
  const costUnit = input.costUnit?.trim() || null;
  const config: CostConfig = {
    // fromEntries defines own properties: a model named "__proto__" stays a model.
    modelCosts: rates.length > 0 ? Object.fromEntries(rates) : null,
    defaultInputCostPerUnit: defaultInput,
    defaultOutputCostPerUnit: defaultOutput,
    costUnit,
  };
  const empty = config.modelCosts === null && defaultInput === null && defaultOutput === null && costUnit === null;
  return { config: empty ? null : config };
}

/** The stored cost config as typed values; numbers come back exact (safe integers or Decimals). */
export function toCostConfig(stored: Record<string, unknown> | null | undefined): CostConfig | null {
  if (!stored) return null;
  const decimal = (v: unknown) => (isDecimal(v) || typeof v === 'number' || typeof v === 'string' ? dec(v) : null);
  const models = stored.modelCosts && typeof stored.modelCosts === 'object' ? Object.entries(stored.modelCosts as Record<string, Record<string, unknown> | null>) : [];
  return {
    modelCosts: models.length > 0 ? Object.fromEntries(models.map(([m, r]) => [m, { input: decimal(r?.input), output: decimal(r?.output) }])) : null,
    defaultInputCostPerUnit: decimal(stored.defaultInputCostPerUnit),
    defaultOutputCostPerUnit: decimal(stored.defaultOutputCostPerUnit),
    costUnit: typeof stored.costUnit === 'string' ? stored.costUnit : null,
  };
}
