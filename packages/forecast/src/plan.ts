/**
 * Credit plan: size a plan from per-metric estimates (methodology 9–10).
 */
import { daysBetween } from './dates.js';
import { divide, divideByInteger, formatDecimal, max, multiply, parseDecimal, sum, type Scaled } from './decimal.js';
import { PlanValidationError, validationFailure } from './errors.js';
import { planTrace } from './plan-trace.js';
import type {
  MetricEstimate,
  PlanAllocationComparison,
  PlanInput,
  PlanMetricCredits,
  PlanResult,
  PlanWarning,
  ScenarioAssumption,
  ScenarioPlan,
} from './types.js';
import { validatePlanInput } from './validate-plan.js';

/**
 * Validates `input` and returns the credit plan for the low, base and high
 * scenarios, compared with `allocation` when one is given. Throws
 * `PlanValidationError` (with every issue found) for invalid input.
 */
export function planCreditUsage(input: unknown): PlanResult {
  const issues = validatePlanInput(input);
  if (issues.length > 0) throw new PlanValidationError(validationFailure(input, issues));
  return computePlan(input as PlanInput);
}

function metricCredits(metric: MetricEstimate, plannedCredits: Scaled): PlanMetricCredits {
  const { key, label, estimatedUnits, creditsPerUnit } = metric;
  // An absent label stays absent (no null, no empty string).
  const head = label === undefined ? { key } : { key, label };
  return { ...head, estimatedUnits, creditsPerUnit, plannedCredits: formatDecimal(plannedCredits) };
}

function computePlan(input: PlanInput): PlanResult {
  const daysInPeriod = daysBetween(input.period.startDate, input.period.endDate);
  const planned = input.metricEstimates.map((metric) =>
    multiply(parseDecimal(metric.estimatedUnits), parseDecimal(metric.creditsPerUnit)),
  );
  const baselinePlannedCredits = sum(planned);
  const baselineAverageDailyBurn = divideByInteger(baselinePlannedCredits, daysInPeriod);
  const metrics = input.metricEstimates.map((metric, i) => metricCredits(metric, planned[i] ?? 0n));
  const scenarios = input.scenarios.map((scenario) =>
    planScenario(scenario, input.metricEstimates, planned, daysInPeriod, input.allocation),
  );
  const figures = {
    daysInPeriod,
    baselinePlannedCredits: formatDecimal(baselinePlannedCredits),
    baselineAverageDailyBurn: formatDecimal(baselineAverageDailyBurn),
    metrics,
    scenarios,
  };
  return {
    schemaVersion: input.schemaVersion,
    methodologyVersion: input.methodologyVersion,
    ...figures,
    warnings: planWarnings(scenarios),
    calculationTrace: planTrace(input, figures),
  };
}

function planScenario(
  scenario: ScenarioAssumption,
  metrics: readonly MetricEstimate[],
  planned: readonly Scaled[],
  daysInPeriod: number,
  allocation: string | undefined,
): ScenarioPlan {
  const multiplier = parseDecimal(scenario.burnMultiplier);
  // Each metric is scaled and rounded on its own, then summed: the contract
  // total is the sum of rounded parts, not the rounded scaled baseline.
  const breakdown = planned.map((credits) => multiply(credits, multiplier));
  const plannedCredits = sum(breakdown);
  return {
    key: scenario.key,
    burnMultiplier: scenario.burnMultiplier,
    plannedCredits: formatDecimal(plannedCredits),
    averageDailyBurn: formatDecimal(divideByInteger(plannedCredits, daysInPeriod)),
    metricBreakdown: metrics.map((metric, i) => ({ key: metric.key, plannedCredits: formatDecimal(breakdown[i] ?? 0n) })),
    comparison: allocation === undefined ? null : compare(plannedCredits, allocation),
  };
}

function compare(plannedCredits: Scaled, allocationText: string): PlanAllocationComparison {
  const allocation = parseDecimal(allocationText);
  return {
    allocation: allocationText,
    utilization: formatDecimal(divide(plannedCredits, allocation)),
    surplus: formatDecimal(max(0n, allocation - plannedCredits)),
    shortfall: formatDecimal(max(0n, plannedCredits - allocation)),
    // Landing exactly on the allocation is still within it.
    status: plannedCredits > allocation ? 'OVER_ALLOCATION' : 'WITHIN_ALLOCATION',
  };
}

function planWarnings(scenarios: readonly ScenarioPlan[]): PlanWarning[] {
  const warnings: PlanWarning[] = [];
  for (const scenario of scenarios) {
    const comparison = scenario.comparison;
    if (comparison?.status === 'OVER_ALLOCATION') {
      warnings.push({
        code: 'OVER_ALLOCATION',
        scenarioKey: scenario.key,
        plannedCredits: scenario.plannedCredits,
        allocation: comparison.allocation,
        shortfall: comparison.shortfall,
      });
    }
  }
  return warnings;
}
