/**
 * Credit burndown forecast (methodology sections 5–7).
 */
import { datesInRange } from './dates.js';
import {
  divide,
  divideByInteger,
  formatDecimal,
  max,
  multiply,
  multiplyByInteger,
  parseDecimal,
  sum,
  type Scaled,
} from './decimal.js';
import { ForecastValidationError, validationFailure } from './errors.js';
import { forecastTrace } from './forecast-trace.js';
import type {
  ForecastInput,
  ForecastResult,
  ForecastStatus,
  ForecastWarning,
  ObservedPoint,
  ProjectedPoint,
  ScenarioAssumption,
  ScenarioForecast,
} from './types.js';
import { validateForecastInput } from './validate-forecast.js';

/** Values computed once per forecast, shared by every scenario. */
export interface ForecastBasis {
  readonly creditsUsedToDate: Scaled;
  readonly baselineDailyBurn: Scaled;
  readonly daysRemaining: number;
  readonly allocation: Scaled;
  readonly threshold: Scaled;
  readonly initialBalance: Scaled;
  /** The dates of [asOf, endDate), in order. */
  readonly forecastDates: readonly string[];
  /** Net scheduled change per date; several entries on one date add up. */
  readonly deltasByDate: ReadonlyMap<string, Scaled>;
}

/**
 * Validates `input` and returns the burndown forecast for the low, base and
 * high scenarios. Throws `ForecastValidationError` (with every issue found)
 * for invalid input; never returns a partial result.
 */
export function forecastCreditUsage(input: unknown): ForecastResult {
  const issues = validateForecastInput(input);
  if (issues.length > 0) throw new ForecastValidationError(validationFailure(input, issues));
  return computeForecast(input as ForecastInput);
}

function computeForecast(input: ForecastInput): ForecastResult {
  const { observedPoints, creditsUsedToDate } = observe(input);
  const lookback = input.dailyUsage.slice(input.dailyUsage.length - input.lookbackDays);
  const forecastDates = datesInRange(input.asOf, input.period.endDate);
  const deltasByDate = new Map<string, Scaled>();
  for (const entry of input.balance.schedule) {
    deltasByDate.set(entry.date, (deltasByDate.get(entry.date) ?? 0n) + parseDecimal(entry.creditDelta));
  }
  const basis: ForecastBasis = {
    creditsUsedToDate,
    baselineDailyBurn: divideByInteger(sum(lookback.map((b) => parseDecimal(b.creditsUsed))), input.lookbackDays),
    daysRemaining: forecastDates.length,
    allocation: parseDecimal(input.period.allocation),
    threshold: parseDecimal(input.period.lowBalanceThreshold),
    initialBalance: parseDecimal(input.balance.current),
    forecastDates,
    deltasByDate,
  };
  const scenarios = input.scenarios.map((scenario) => projectScenario(scenario, basis));
  return {
    schemaVersion: input.schemaVersion,
    methodologyVersion: input.methodologyVersion,
    asOf: input.asOf,
    daysRemaining: basis.daysRemaining,
    creditsUsedToDate: formatDecimal(creditsUsedToDate),
    baselineDailyBurn: formatDecimal(basis.baselineDailyBurn),
    observedPoints,
    scenarios,
    warnings: forecastWarnings(scenarios, input.period.lowBalanceThreshold),
    calculationTrace: forecastTrace(input, basis, observedPoints, scenarios),
  };
}

function observe(input: ForecastInput): { observedPoints: ObservedPoint[]; creditsUsedToDate: Scaled } {
  let cumulative = 0n;
  const observedPoints = input.dailyUsage.map(({ date, creditsUsed }) => {
    cumulative += parseDecimal(creditsUsed);
    return { date, creditsUsed, cumulativeCreditsUsed: formatDecimal(cumulative) };
  });
  return { observedPoints, creditsUsedToDate: cumulative };
}

function projectScenario(scenario: ScenarioAssumption, basis: ForecastBasis): ScenarioForecast {
  const dailyBurn = multiply(basis.baselineDailyBurn, parseDecimal(scenario.burnMultiplier));
  const projectedCreditsUsed = multiplyByInteger(dailyBurn, basis.daysRemaining);
  const projectedPeriodConsumption = basis.creditsUsedToDate + projectedCreditsUsed;
  const burnText = formatDecimal(dailyBurn);

  const points: ProjectedPoint[] = [];
  let balance = basis.initialBalance;
  let depletionDate: string | null = null;
  for (const date of basis.forecastDates) {
    const delta = basis.deltasByDate.get(date) ?? 0n;
    const endingBalance = balance + delta - dailyBurn;
    points.push({
      date,
      startBalance: formatDecimal(balance),
      balanceDelta: formatDecimal(delta),
      creditsUsed: burnText,
      endingBalance: formatDecimal(endingBalance),
    });
    // The first depletion sticks: a later top-up does not clear it.
    if (depletionDate === null && endingBalance <= 0n) depletionDate = date;
    balance = endingBalance;
  }

  return {
    key: scenario.key,
    dailyBurn: burnText,
    projectedCreditsUsed: formatDecimal(projectedCreditsUsed),
    projectedPeriodConsumption: formatDecimal(projectedPeriodConsumption),
    utilization: formatDecimal(divide(projectedPeriodConsumption, basis.allocation)),
    endingBalance: formatDecimal(balance),
    depletionDate,
    // Only the final balance counts: a scenario that recovers has no shortfall.
    shortfall: formatDecimal(max(0n, -balance)),
    status: forecastStatus(depletionDate, balance, basis.threshold),
    points,
  };
}

function forecastStatus(depletionDate: string | null, endingBalance: Scaled, threshold: Scaled): ForecastStatus {
  if (depletionDate !== null) return 'DEPLETION_PROJECTED';
  if (endingBalance <= threshold) return 'LOW_BALANCE_PROJECTED';
  return 'ON_TRACK';
}

/** Warnings deliberately ignore status: a depleted-then-restored scenario can get both. */
function forecastWarnings(scenarios: readonly ScenarioForecast[], threshold: string): ForecastWarning[] {
  const thresholdValue = parseDecimal(threshold);
  const warnings: ForecastWarning[] = [];
  for (const scenario of scenarios) {
    if (scenario.depletionDate !== null) {
      warnings.push({
        code: 'DEPLETION_PROJECTED',
        scenarioKey: scenario.key,
        depletionDate: scenario.depletionDate,
        shortfall: scenario.shortfall,
      });
    }
    const endingBalance = parseDecimal(scenario.endingBalance);
    if (endingBalance > 0n && endingBalance <= thresholdValue) {
      warnings.push({
        code: 'LOW_BALANCE_PROJECTED',
        scenarioKey: scenario.key,
        endingBalance: scenario.endingBalance,
        threshold,
      });
    }
  }
  return warnings;
}
