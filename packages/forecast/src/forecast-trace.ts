/**
 * The forecast's calculation trace (methodology section 8): which inputs were
 * read and every named intermediate, so a reader can re-derive each figure.
 * Formula strings and step keys are contract data; keep them literal.
 */
import { formatDecimal } from './decimal.js';
import type { ForecastBasis } from './forecast.js';
import type {
  CalculationStep,
  CalculationTrace,
  ForecastInput,
  JsonValue,
  ObservedPoint,
  ScenarioAssumption,
  ScenarioForecast,
  SourceInputTrace,
} from './types.js';

// Trace order is base first, then low and high (contract order, not output order).
const TRACE_SCENARIO_ORDER = ['base', 'low', 'high'] as const;

function step(key: string, formula: string, operands: Record<string, JsonValue>, result: JsonValue): CalculationStep {
  return { key, formula, operands, result };
}

function sourceInputs(input: ForecastInput): SourceInputTrace[] {
  const multiplier = (index: number): string | null => input.scenarios[index]?.burnMultiplier ?? null;
  return [
    { path: 'input.asOf', value: input.asOf },
    { path: 'input.period.startDate', value: input.period.startDate },
    { path: 'input.period.endDate', value: input.period.endDate },
    { path: 'input.period.allocation', value: input.period.allocation },
    { path: 'input.period.lowBalanceThreshold', value: input.period.lowBalanceThreshold },
    { path: 'input.lookbackDays', value: input.lookbackDays },
    { path: 'input.balance.current', value: input.balance.current },
    { path: 'input.scenarios[1].burnMultiplier', value: multiplier(1) },
    { path: 'input.schemaVersion', value: input.schemaVersion },
    { path: 'input.methodologyVersion', value: input.methodologyVersion },
    {
      path: 'input.dailyUsage',
      value: input.dailyUsage.map(({ date, creditsUsed }) => ({ date, creditsUsed })),
    },
    {
      path: 'input.balance.schedule',
      value: input.balance.schedule.map(({ date, creditDelta, reason }): JsonValue =>
        reason === undefined ? { date, creditDelta } : { date, creditDelta, reason },
      ),
    },
    { path: 'input.scenarios[0].burnMultiplier', value: multiplier(0) },
    { path: 'input.scenarios[2].burnMultiplier', value: multiplier(2) },
  ];
}

function commonSteps(input: ForecastInput, basis: ForecastBasis, observed: readonly ObservedPoint[]): CalculationStep[] {
  const dailyCreditsUsed = (): string[] => input.dailyUsage.map((bucket) => bucket.creditsUsed);
  const lookback = input.dailyUsage.slice(input.dailyUsage.length - input.lookbackDays);
  return [
    step(
      'observedCumulativeCreditsUsed',
      'cumulative[n] = cumulative[n - 1] + creditsUsed[n]',
      { dailyCreditsUsed: dailyCreditsUsed() },
      observed.map((point) => point.cumulativeCreditsUsed),
    ),
    step(
      'creditsUsedToDate',
      'sum(dailyUsage[*].creditsUsed)',
      { dailyCreditsUsed: dailyCreditsUsed() },
      formatDecimal(basis.creditsUsedToDate),
    ),
    step(
      'baselineDailyBurn',
      'sum(lookbackCreditsUsed) / lookbackDays',
      { lookbackCreditsUsed: lookback.map((bucket) => bucket.creditsUsed), lookbackDays: input.lookbackDays },
      formatDecimal(basis.baselineDailyBurn),
    ),
    step(
      'daysRemaining',
      'calendar_days_in_[asOf,period.endDate)',
      { asOf: input.asOf, periodEndDate: input.period.endDate },
      basis.daysRemaining,
    ),
  ];
}

function scenarioSteps(
  input: ForecastInput,
  basis: ForecastBasis,
  assumption: ScenarioAssumption,
  scenario: ScenarioForecast,
): CalculationStep[] {
  const k = scenario.key;
  const endingBalances = (): string[] => scenario.points.map((point) => point.endingBalance);
  return [
    step(
      `${k}.dailyBurn`,
      'baselineDailyBurn * burnMultiplier',
      { baselineDailyBurn: formatDecimal(basis.baselineDailyBurn), burnMultiplier: assumption.burnMultiplier },
      scenario.dailyBurn,
    ),
    step(
      `${k}.projectedCreditsUsed`,
      'dailyBurn * daysRemaining',
      { dailyBurn: scenario.dailyBurn, daysRemaining: basis.daysRemaining },
      scenario.projectedCreditsUsed,
    ),
    step(
      `${k}.projectedPeriodConsumption`,
      'creditsUsedToDate + projectedCreditsUsed',
      {
        creditsUsedToDate: formatDecimal(basis.creditsUsedToDate),
        projectedCreditsUsed: scenario.projectedCreditsUsed,
      },
      scenario.projectedPeriodConsumption,
    ),
    step(
      `${k}.utilization`,
      'projectedPeriodConsumption / periodAllocation',
      { projectedPeriodConsumption: scenario.projectedPeriodConsumption, periodAllocation: input.period.allocation },
      scenario.utilization,
    ),
    step(
      `${k}.points`,
      'endingBalance = startBalance + balanceDelta - creditsUsed',
      {
        initialBalance: input.balance.current,
        dailyBurn: scenario.dailyBurn,
        scheduledDeltas: input.balance.schedule.map(({ date, creditDelta }) => ({ date, creditDelta })),
      },
      // Copies, so mutating the trace cannot change the scenario's own points.
      scenario.points.map((point) => ({ ...point })),
    ),
    step(
      `${k}.depletionDate`,
      'first date where endingBalance <= 0',
      { endingBalances: endingBalances() },
      scenario.depletionDate,
    ),
    step(`${k}.shortfall`, 'max(0, -endingBalance)', { endingBalance: scenario.endingBalance }, scenario.shortfall),
    step(
      `${k}.status`,
      'status_from_depletion_date_ending_balance_and_threshold',
      {
        depletionDate: scenario.depletionDate,
        endingBalance: scenario.endingBalance,
        lowBalanceThreshold: input.period.lowBalanceThreshold,
      },
      scenario.status,
    ),
    step(
      `${k}.endingBalance`,
      'last projected point endingBalance',
      { endingBalances: endingBalances() },
      scenario.endingBalance,
    ),
  ];
}

export function forecastTrace(
  input: ForecastInput,
  basis: ForecastBasis,
  observed: readonly ObservedPoint[],
  scenarios: readonly ScenarioForecast[],
): CalculationTrace {
  const steps = commonSteps(input, basis, observed);
  for (const key of TRACE_SCENARIO_ORDER) {
    const index = scenarios.findIndex((scenario) => scenario.key === key);
    const scenario = scenarios[index];
    const assumption = input.scenarios[index];
    if (scenario !== undefined && assumption !== undefined) {
      steps.push(...scenarioSteps(input, basis, assumption, scenario));
    }
  }
  return { sourceInputs: sourceInputs(input), steps };
}
