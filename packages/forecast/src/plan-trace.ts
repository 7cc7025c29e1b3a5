/**
 * The plan's calculation trace (methodology section 11). Formula strings and
 * step keys are contract data; keep them literal.
 */
import type {
  CalculationStep,
  CalculationTrace,
  JsonValue,
  PlanInput,
  PlanResult,
  ScenarioPlan,
  SourceInputTrace,
} from './types.js';

// Trace order is base first, then low and high (contract order, not output order).
const TRACE_SCENARIO_ORDER = ['base', 'low', 'high'] as const;

function step(key: string, formula: string, operands: Record<string, JsonValue>, result: JsonValue): CalculationStep {
  return { key, formula, operands, result };
}

function sourceInputs(input: PlanInput): SourceInputTrace[] {
  const multiplier = (index: number): string | null => input.scenarios[index]?.burnMultiplier ?? null;
  return [
    { path: 'input.schemaVersion', value: input.schemaVersion },
    { path: 'input.methodologyVersion', value: input.methodologyVersion },
    { path: 'input.period.startDate', value: input.period.startDate },
    { path: 'input.period.endDate', value: input.period.endDate },
    { path: 'input.allocation', value: input.allocation ?? null },
    {
      path: 'input.metricEstimates',
      value: input.metricEstimates.map(({ key, label, estimatedUnits, creditsPerUnit }): JsonValue =>
        label === undefined
          ? { key, estimatedUnits, creditsPerUnit }
          : { key, label, estimatedUnits, creditsPerUnit },
      ),
    },
    { path: 'input.scenarios[0].burnMultiplier', value: multiplier(0) },
    { path: 'input.scenarios[1].burnMultiplier', value: multiplier(1) },
    { path: 'input.scenarios[2].burnMultiplier', value: multiplier(2) },
  ];
}

function scenarioSteps(scenario: ScenarioPlan, metricPlanned: () => string[], daysInPeriod: number): CalculationStep[] {
  const k = scenario.key;
  const breakdown = (): string[] => scenario.metricBreakdown.map((entry) => entry.plannedCredits);
  const steps = [
    step(
      `${k}.metricBreakdown`,
      'metricPlannedCredits * burnMultiplier',
      { burnMultiplier: scenario.burnMultiplier, metricPlannedCredits: metricPlanned() },
      breakdown(),
    ),
    step(
      `${k}.plannedCredits`,
      'sum(metricBreakdown[*].plannedCredits)',
      { breakdownPlannedCredits: breakdown() },
      scenario.plannedCredits,
    ),
    step(
      `${k}.averageDailyBurn`,
      'plannedCredits / daysInPeriod',
      { plannedCredits: scenario.plannedCredits, daysInPeriod },
      scenario.averageDailyBurn,
    ),
  ];
  const comparison = scenario.comparison;
  if (comparison === null) return steps;
  const operands = (): Record<string, JsonValue> => ({
    plannedCredits: scenario.plannedCredits,
    allocation: comparison.allocation,
  });
  steps.push(
    step(`${k}.utilization`, 'plannedCredits / allocation', operands(), comparison.utilization),
    step(`${k}.surplus`, 'max(0, allocation - plannedCredits)', operands(), comparison.surplus),
    step(`${k}.shortfall`, 'max(0, plannedCredits - allocation)', operands(), comparison.shortfall),
    step(`${k}.status`, 'status_from_planned_credits_and_allocation', operands(), comparison.status),
  );
  return steps;
}

/** The figures the trace reports; everything else it reads from the input. */
export type PlanFigures = Pick<
  PlanResult,
  'daysInPeriod' | 'baselinePlannedCredits' | 'baselineAverageDailyBurn' | 'metrics' | 'scenarios'
>;

export function planTrace(input: PlanInput, figures: PlanFigures): CalculationTrace {
  const { metrics, daysInPeriod } = figures;
  const metricPlanned = (): string[] => metrics.map((metric) => metric.plannedCredits);
  const steps: CalculationStep[] = metrics.map((metric) =>
    step(
      `metrics.${metric.key}.plannedCredits`,
      'estimatedUnits * creditsPerUnit',
      { estimatedUnits: metric.estimatedUnits, creditsPerUnit: metric.creditsPerUnit },
      metric.plannedCredits,
    ),
  );
  steps.push(
    step(
      'baselinePlannedCredits',
      'sum(metrics[*].plannedCredits)',
      { metricPlannedCredits: metricPlanned() },
      figures.baselinePlannedCredits,
    ),
    step(
      'daysInPeriod',
      'calendar_days_in_[period.startDate,period.endDate)',
      { periodStartDate: input.period.startDate, periodEndDate: input.period.endDate },
      daysInPeriod,
    ),
    step(
      'baselineAverageDailyBurn',
      'baselinePlannedCredits / daysInPeriod',
      { baselinePlannedCredits: figures.baselinePlannedCredits, daysInPeriod },
      figures.baselineAverageDailyBurn,
    ),
  );
  for (const key of TRACE_SCENARIO_ORDER) {
    const scenario = figures.scenarios.find((candidate) => candidate.key === key);
    if (scenario !== undefined) steps.push(...scenarioSteps(scenario, metricPlanned, daysInPeriod));
  }
  return { sourceInputs: sourceInputs(input), steps };
}
