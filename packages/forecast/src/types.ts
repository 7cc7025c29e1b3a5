/**
 * Public input and output types (schema and methodology version "1.0").
 *
 * Credit values are strings on purpose: callers keep full precision end to
 * end, and nothing in between is tempted to turn them into binary floats.
 */

/** Canonical base-10 decimal string, e.g. "12.5" (at most 12 fractional digits). */
export type DecimalString = string;
/** Calendar date, YYYY-MM-DD. */
export type IsoDate = string;

export type ScenarioKey = 'low' | 'base' | 'high';

export interface ScenarioAssumption {
  key: ScenarioKey;
  burnMultiplier: DecimalString;
}

/** Namespaced, opaque JSON values; never read by the calculations. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type NamespacedExtensions = Record<string, JsonValue>;

// ---------------------------------------------------------------- forecast

export interface DailyUsage {
  date: IsoDate;
  creditsUsed: DecimalString;
}

export interface ScheduledBalanceDelta {
  date: IsoDate;
  creditDelta: DecimalString;
  reason?: string;
}

export interface ForecastInput {
  schemaVersion: string;
  methodologyVersion: string;
  asOf: IsoDate;
  period: {
    startDate: IsoDate;
    endDate: IsoDate;
    allocation: DecimalString;
    lowBalanceThreshold: DecimalString;
  };
  lookbackDays: number;
  dailyUsage: DailyUsage[];
  balance: {
    current: DecimalString;
    schedule: ScheduledBalanceDelta[];
  };
  scenarios: ScenarioAssumption[];
  extensions?: NamespacedExtensions;
}

export interface ObservedPoint {
  date: IsoDate;
  creditsUsed: DecimalString;
  cumulativeCreditsUsed: DecimalString;
}

export interface ProjectedPoint {
  date: IsoDate;
  startBalance: DecimalString;
  balanceDelta: DecimalString;
  creditsUsed: DecimalString;
  endingBalance: DecimalString;
}

export type ForecastStatus = 'ON_TRACK' | 'LOW_BALANCE_PROJECTED' | 'DEPLETION_PROJECTED';

export interface ScenarioForecast {
  key: ScenarioKey;
  dailyBurn: DecimalString;
  projectedCreditsUsed: DecimalString;
  projectedPeriodConsumption: DecimalString;
  utilization: DecimalString;
  endingBalance: DecimalString;
  depletionDate: IsoDate | null;
  shortfall: DecimalString;
  status: ForecastStatus;
  points: ProjectedPoint[];
}

export interface DepletionWarning {
  code: 'DEPLETION_PROJECTED';
  scenarioKey: ScenarioKey;
  depletionDate: IsoDate;
  shortfall: DecimalString;
}

export interface LowBalanceWarning {
  code: 'LOW_BALANCE_PROJECTED';
  scenarioKey: ScenarioKey;
  endingBalance: DecimalString;
  threshold: DecimalString;
}

export type ForecastWarning = DepletionWarning | LowBalanceWarning;

export interface SourceInputTrace {
  path: string;
  value: JsonValue;
}

export interface CalculationStep {
  key: string;
  formula: string;
  operands: Record<string, JsonValue>;
  result: JsonValue;
}

export interface CalculationTrace {
  sourceInputs: SourceInputTrace[];
  steps: CalculationStep[];
}

export interface ForecastResult {
  schemaVersion: string;
  methodologyVersion: string;
  asOf: IsoDate;
  daysRemaining: number;
  creditsUsedToDate: DecimalString;
  baselineDailyBurn: DecimalString;
  observedPoints: ObservedPoint[];
  scenarios: ScenarioForecast[];
  warnings: ForecastWarning[];
  calculationTrace: CalculationTrace;
}

// ---------------------------------------------------------------- plan

export interface MetricEstimate {
  key: string;
  label?: string;
  estimatedUnits: DecimalString;
  creditsPerUnit: DecimalString;
}

export interface PlanInput {
  schemaVersion: string;
  methodologyVersion: string;
  period: { startDate: IsoDate; endDate: IsoDate };
  metricEstimates: MetricEstimate[];
  allocation?: DecimalString;
  scenarios: ScenarioAssumption[];
  extensions?: NamespacedExtensions;
}

export interface PlanMetricCredits {
  key: string;
  label?: string;
  estimatedUnits: DecimalString;
  creditsPerUnit: DecimalString;
  plannedCredits: DecimalString;
}

export type AllocationStatus = 'WITHIN_ALLOCATION' | 'OVER_ALLOCATION';

export interface PlanAllocationComparison {
  allocation: DecimalString;
  utilization: DecimalString;
  surplus: DecimalString;
  shortfall: DecimalString;
  status: AllocationStatus;
}

export interface ScenarioPlan {
  key: ScenarioKey;
  burnMultiplier: DecimalString;
  plannedCredits: DecimalString;
  averageDailyBurn: DecimalString;
  metricBreakdown: { key: string; plannedCredits: DecimalString }[];
  comparison: PlanAllocationComparison | null;
}

export interface PlanWarning {
  code: 'OVER_ALLOCATION';
  scenarioKey: ScenarioKey;
  plannedCredits: DecimalString;
  allocation: DecimalString;
  shortfall: DecimalString;
}

export interface PlanResult {
  schemaVersion: string;
  methodologyVersion: string;
  daysInPeriod: number;
  baselinePlannedCredits: DecimalString;
  baselineAverageDailyBurn: DecimalString;
  metrics: PlanMetricCredits[];
  scenarios: ScenarioPlan[];
  warnings: PlanWarning[];
  calculationTrace: CalculationTrace;
}

// ---------------------------------------------------------------- errors

export interface ValidationIssue {
  code: string;
  path: string;
  message: string;
}

/** The failure envelope returned by `toJSON()` of both validation errors. */
export interface ValidationFailure {
  schemaVersion: string | null;
  methodologyVersion: string | null;
  code: 'INVALID_INPUT';
  issues: ValidationIssue[];
}
