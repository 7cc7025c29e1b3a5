/**
 * Forecast input validation: stage 1 (shape) then stage 2 (rules between
 * values), methodology 4.1–4.3. Returns every issue, in contract order.
 */
import { datesInRange, isCalendarDate } from './dates.js';
import { checkShape, type ShapeNode } from './shape.js';
import type { ForecastInput, ValidationIssue } from './types.js';
import {
  SCENARIO_SHAPE,
  compareDecimalText,
  extensionIssues,
  issue,
  normalisePath,
  scenarioIssues,
} from './validate-shared.js';

const FORECAST_SHAPE: ShapeNode = {
  kind: 'object',
  fields: [
    { name: 'schemaVersion', node: { kind: 'text' } },
    { name: 'methodologyVersion', node: { kind: 'text' } },
    { name: 'asOf', node: { kind: 'date' } },
    {
      name: 'period',
      node: {
        kind: 'object',
        fields: [
          { name: 'startDate', node: { kind: 'date' } },
          { name: 'endDate', node: { kind: 'date' } },
          { name: 'allocation', node: { kind: 'decimal' } },
          { name: 'lowBalanceThreshold', node: { kind: 'decimal' } },
        ],
      },
    },
    { name: 'lookbackDays', node: { kind: 'integer' } },
    {
      name: 'dailyUsage',
      node: {
        kind: 'array',
        element: {
          kind: 'object',
          fields: [
            { name: 'date', node: { kind: 'date' } },
            { name: 'creditsUsed', node: { kind: 'decimal' } },
          ],
        },
      },
    },
    {
      name: 'balance',
      node: {
        kind: 'object',
        fields: [
          { name: 'current', node: { kind: 'decimal' } },
          {
            name: 'schedule',
            node: {
              kind: 'array',
              element: {
                kind: 'object',
                fields: [
                  { name: 'date', node: { kind: 'date' } },
                  { name: 'creditDelta', node: { kind: 'decimal' } },
                  { name: 'reason', node: { kind: 'text' }, optional: true },
                ],
              },
            },
          },
        ],
      },
    },
    { name: 'scenarios', node: SCENARIO_SHAPE },
    { name: 'extensions', node: { kind: 'record' }, optional: true },
  ],
};

/** All issues for a forecast input; an empty list means it is valid. */
export function validateForecastInput(input: unknown): ValidationIssue[] {
  const shape = checkShape(input, FORECAST_SHAPE);
  if (shape.fatal) return shape.issues;
  // No fatal issue: every field has its declared JSON type (values may still be malformed).
  const rules = forecastRuleIssues(input as ForecastInput);
  return [...shape.issues, ...rules.map((found) => ({ ...found, path: normalisePath(found.path) }))];
}

function forecastRuleIssues(input: ForecastInput): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { period, asOf, dailyUsage } = input;

  if (input.schemaVersion !== '1.0') {
    issues.push(issue('UNSUPPORTED_SCHEMA_VERSION', 'input.schemaVersion', 'schemaVersion must equal "1.0"'));
  }
  if (input.methodologyVersion !== '1.0') {
    issues.push(
      issue('UNSUPPORTED_METHODOLOGY_VERSION', 'input.methodologyVersion', 'methodologyVersion must equal "1.0"'),
    );
  }
  // String order equals calendar order for valid dates; malformed ones are already rejected.
  const validPeriod = period.startDate < asOf && asOf < period.endDate;
  if (!validPeriod) {
    issues.push(
      issue(
        'INVALID_FORECAST_PERIOD',
        'input.asOf',
        'asOf must be later than period.startDate and earlier than period.endDate',
      ),
    );
  }
  if (compareDecimalText(period.allocation, '0') <= 0) {
    issues.push(
      issue('NON_POSITIVE_ALLOCATION', 'input.period.allocation', 'period.allocation must be greater than zero'),
    );
  }
  if (compareDecimalText(period.lowBalanceThreshold, '0') < 0) {
    issues.push(
      issue(
        'NEGATIVE_LOW_BALANCE_THRESHOLD',
        'input.period.lowBalanceThreshold',
        'period.lowBalanceThreshold must be non-negative',
      ),
    );
  }
  dailyUsage.forEach((bucket, index) => {
    if (compareDecimalText(bucket.creditsUsed, '0') < 0) {
      issues.push(
        issue(
          'NEGATIVE_DAILY_USAGE',
          `input.dailyUsage[${index}].creditsUsed`,
          'daily creditsUsed must be non-negative',
        ),
      );
    }
  });
  issues.push(...historyIssues(input, validPeriod));
  if (input.lookbackDays <= 0 || input.lookbackDays > dailyUsage.length) {
    issues.push(
      issue(
        'INVALID_LOOKBACK_DAYS',
        'input.lookbackDays',
        'lookbackDays must be greater than zero and no greater than observed-day count',
      ),
    );
  }
  issues.push(...scenarioIssues(input.scenarios));
  issues.push(...scheduleIssues(input, validPeriod));
  issues.push(...extensionIssues(input.extensions));
  return issues;
}

/** Rows 7–10: duplicates, order, and exact coverage of [startDate, asOf). */
function historyIssues(input: ForecastInput, validPeriod: boolean): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const dates = input.dailyUsage.map((bucket) => bucket.date);

  const seen = new Set<string>();
  const duplicateIndex = dates.findIndex((date) => {
    if (seen.has(date)) return true;
    seen.add(date);
    return false;
  });
  if (duplicateIndex >= 0) {
    issues.push(
      issue(
        'DUPLICATE_DAILY_USAGE_DATE',
        `input.dailyUsage[${duplicateIndex}].date`,
        `dailyUsage contains duplicate date ${dates[duplicateIndex] ?? ''}`,
      ),
    );
  }
  if (dates.some((date, index) => index > 0 && date < (dates[index - 1] ?? ''))) {
    issues.push(issue('UNORDERED_DAILY_HISTORY', 'input.dailyUsage', 'dailyUsage must be ordered by date'));
  }

  // The calendar walk only starts from real dates, so it always terminates.
  const walkable = validPeriod && isCalendarDate(input.period.startDate) && isCalendarDate(input.asOf);
  if (!walkable) return issues;
  const expected = datesInRange(input.period.startDate, input.asOf);
  const supplied = new Set(dates);
  const expectedSet = new Set(expected);
  const missing = expected.filter((date) => !supplied.has(date));
  const extra = dates.filter((date) => !expectedSet.has(date));
  if (missing.length > 0) {
    issues.push(
      issue(
        'INCOMPLETE_DAILY_HISTORY',
        'input.dailyUsage',
        `dailyUsage must contain exactly one bucket for every date in [period.startDate, asOf); missing ${missing.join(', ')}`,
      ),
    );
  }
  if (extra.length > 0) {
    issues.push(
      issue(
        'EXTRA_DAILY_HISTORY',
        'input.dailyUsage',
        `dailyUsage contains dates outside [period.startDate, asOf): ${extra.join(', ')}`,
      ),
    );
  }
  return issues;
}

/** Row 16: range and order of scheduled balance changes, interleaved per entry. */
function scheduleIssues(input: ForecastInput, validPeriod: boolean): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const schedule = input.balance.schedule;
  schedule.forEach((entry, index) => {
    if (validPeriod && (entry.date < input.asOf || entry.date >= input.period.endDate)) {
      issues.push(
        issue(
          'SCHEDULE_DATE_OUT_OF_RANGE',
          `input.balance.schedule[${index}].date`,
          'scheduled balance date must be inside [asOf, period.endDate)',
        ),
      );
    }
    const previous = schedule[index - 1];
    if (previous !== undefined && entry.date < previous.date) {
      issues.push(
        issue('UNORDERED_BALANCE_SCHEDULE', 'input.balance.schedule', 'balance.schedule must be ordered by date'),
      );
    }
  });
  return issues;
}
