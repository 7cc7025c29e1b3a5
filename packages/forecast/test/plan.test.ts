import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { PlanValidationError, planCreditUsage } from '../src/index.js';
import { planInput } from './inputs.js';

function issues(input: unknown): string[] {
  try {
    planCreditUsage(input);
  } catch (error) {
    assert.ok(error instanceof PlanValidationError, `unexpected ${String(error)}`);
    assert.equal(error.name, 'PlanValidationError');
    assert.equal(error.message, 'Plan input validation failed');
    return error.toJSON().issues.map((i) => `${i.code} ${i.path} :: ${i.message}`);
  }
  assert.fail('expected a PlanValidationError');
}

describe('plan validation', () => {
  test('missing fields, in declared order', () => {
    assert.deepEqual(
      issues({}),
      ['schemaVersion', 'methodologyVersion', 'period', 'metricEstimates', 'scenarios'].map(
        (name) => `REQUIRED_FIELD input.${name} :: Required`,
      ),
    );
  });

  test('metric shape: empty strings, optional label, typed allocation', () => {
    const input = planInput();
    input.metricEstimates[0].key = '';
    input.metricEstimates[0].label = '';
    input.metricEstimates[1].estimatedUnits = '2.50';
    assert.deepEqual(issues(input), [
      'INVALID_VALUE input.metricEstimates[0].key :: String must contain at least 1 character(s)',
      'INVALID_VALUE input.metricEstimates[0].label :: String must contain at least 1 character(s)',
      'INVALID_DECIMAL input.metricEstimates[1].estimatedUnits :: must be a canonical base-10 decimal string with at most 12 fractional digits',
    ]);
    const nullAllocation = planInput();
    nullAllocation.allocation = null;
    assert.deepEqual(issues(nullAllocation), [
      'INVALID_DECIMAL input.allocation :: Expected string, received null',
    ]);
  });

  test('stage 2 rules in order', () => {
    const input = planInput();
    input.schemaVersion = '1';
    input.period.endDate = input.period.startDate;
    input.metricEstimates = [
      { key: 'a', estimatedUnits: '-1', creditsPerUnit: '1' },
      { key: 'a', estimatedUnits: '1', creditsPerUnit: '-1' },
      { key: 'a', estimatedUnits: '1', creditsPerUnit: '1' },
    ];
    input.allocation = '0';
    input.extensions = { bad: 1 };
    assert.deepEqual(issues(input), [
      'UNSUPPORTED_SCHEMA_VERSION input.schemaVersion :: schemaVersion must equal "1.0"',
      'INVALID_PLAN_PERIOD input.period.endDate :: period.endDate must be later than period.startDate',
      'NEGATIVE_ESTIMATED_UNITS input.metricEstimates[0].estimatedUnits :: estimatedUnits must be non-negative',
      'DUPLICATE_METRIC_KEY input.metricEstimates[1].key :: metricEstimates contains duplicate key a',
      'NEGATIVE_CREDITS_PER_UNIT input.metricEstimates[1].creditsPerUnit :: creditsPerUnit must be non-negative',
      'DUPLICATE_METRIC_KEY input.metricEstimates[2].key :: metricEstimates contains duplicate key a',
      'NON_POSITIVE_ALLOCATION input.allocation :: allocation must be greater than zero when supplied',
      'INVALID_EXTENSION_NAMESPACE input.extensions.bad :: extension keys must use a collision-resistant namespace',
    ]);
  });

  test('empty metric list', () => {
    const input = planInput();
    input.metricEstimates = [];
    assert.deepEqual(issues(input), [
      'EMPTY_METRIC_ESTIMATES input.metricEstimates :: metricEstimates must contain at least one metric estimate',
    ]);
  });
});

describe('plan computation', () => {
  test('worked example B: per-metric rounding, sum of rounded parts', () => {
    const input = planInput();
    input.period = { startDate: '2026-02-01', endDate: '2026-03-01' };
    input.metricEstimates = [{ key: 'm', estimatedUnits: '7', creditsPerUnit: '0.142857142857' }];
    delete input.allocation;
    input.scenarios[0].burnMultiplier = '0.5';
    const result = planCreditUsage(input);
    assert.equal(result.daysInPeriod, 28);
    assert.equal(result.baselinePlannedCredits, '0.999999999999');
    assert.equal(result.baselineAverageDailyBurn, '0.035714285714');
    assert.deepEqual(
      result.scenarios.map((s) => [s.key, s.plannedCredits, s.comparison]),
      [
        ['low', '0.5', null],
        ['base', '0.999999999999', null],
        ['high', '1.249999999999', null],
      ],
    );
    assert.deepEqual(result.warnings, []);
    assert.equal(result.calculationTrace.steps.length, 1 + 3 + 9);
    assert.deepEqual(result.calculationTrace.sourceInputs[4], { path: 'input.allocation', value: null });
  });

  test('labels are echoed only when present; step keys embed metric keys', () => {
    const result = planCreditUsage(planInput());
    assert.deepEqual(result.metrics[0], {
      key: 'api-calls',
      label: 'API calls',
      estimatedUnits: '1000',
      creditsPerUnit: '0.5',
      plannedCredits: '500',
    });
    assert.equal('label' in (result.metrics[1] ?? {}), false);
    assert.equal(result.calculationTrace.steps.length, 2 + 3 + 21);
    assert.equal(result.calculationTrace.steps[0]?.key, 'metrics.api-calls.plannedCredits');
  });

  test('landing exactly on the allocation is within it', () => {
    const input = planInput();
    input.allocation = '600';
    const base = planCreditUsage(input).scenarios[1];
    assert.deepEqual(base?.comparison, {
      allocation: '600',
      utilization: '1',
      surplus: '0',
      shortfall: '0',
      status: 'WITHIN_ALLOCATION',
    });
  });

  test('leap-year period lengths', () => {
    const input = planInput();
    input.period = { startDate: '2028-02-01', endDate: '2028-03-01' };
    assert.equal(planCreditUsage(input).daysInPeriod, 29);
    input.period = { startDate: '2028-01-01', endDate: '2029-01-01' };
    assert.equal(planCreditUsage(input).daysInPeriod, 366);
  });

  test('huge integers stay exact', () => {
    const input = planInput();
    const big = `9${'0'.repeat(200)}`;
    input.metricEstimates = [{ key: 'big', estimatedUnits: big, creditsPerUnit: '0.000000000001' }];
    input.allocation = '1';
    const result = planCreditUsage(input);
    assert.equal(result.baselinePlannedCredits, `9${'0'.repeat(188)}`);
    assert.equal(result.warnings.length, 3);
  });
});
