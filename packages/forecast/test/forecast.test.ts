import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { forecastCreditUsage } from '../src/index.js';
import { deepFreeze } from './helpers.js';
import { forecastInput } from './inputs.js';

describe('forecast computation', () => {
  test('worked example A', () => {
    const result = forecastCreditUsage(deepFreeze(forecastInput()));
    assert.deepEqual(Object.keys(result), [
      'schemaVersion',
      'methodologyVersion',
      'asOf',
      'daysRemaining',
      'creditsUsedToDate',
      'baselineDailyBurn',
      'observedPoints',
      'scenarios',
      'warnings',
      'calculationTrace',
    ]);
    assert.equal(result.creditsUsedToDate, '60');
    assert.equal(result.baselineDailyBurn, '25');
    assert.equal(result.daysRemaining, 4);
    const [low, base] = result.scenarios;
    assert.deepEqual(Object.keys(base ?? {}), [
      'key',
      'dailyBurn',
      'projectedCreditsUsed',
      'projectedPeriodConsumption',
      'utilization',
      'endingBalance',
      'depletionDate',
      'shortfall',
      'status',
      'points',
    ]);
    assert.deepEqual(
      base?.points.map((p) => p.endingBalance),
      ['175', '150', '125', '100'],
    );
    assert.equal(base?.utilization, '0.5');
    assert.equal(low?.dailyBurn, '12.5');
    assert.equal(low?.endingBalance, '150');
    assert.equal(low?.utilization, '0.34375');
    assert.deepEqual(result.warnings, []);

    const steps = result.calculationTrace.steps;
    assert.equal(steps.length, 31);
    assert.deepEqual(
      steps.slice(4, 13).map((s) => s.key),
      [
        'base.dailyBurn',
        'base.projectedCreditsUsed',
        'base.projectedPeriodConsumption',
        'base.utilization',
        'base.points',
        'base.depletionDate',
        'base.shortfall',
        'base.status',
        'base.endingBalance',
      ],
    );
    assert.deepEqual(
      steps.slice(13).map((s) => s.key.split('.')[0]),
      [...Array(9).fill('low'), ...Array(9).fill('high')],
    );
    assert.deepEqual(steps[30], {
      key: 'high.endingBalance',
      formula: 'last projected point endingBalance',
      operands: { endingBalances: ['162.5', '125', '87.5', '50'] },
      result: '50',
    });
    assert.deepEqual(
      result.calculationTrace.sourceInputs.map((s) => s.path),
      [
        'input.asOf',
        'input.period.startDate',
        'input.period.endDate',
        'input.period.allocation',
        'input.period.lowBalanceThreshold',
        'input.lookbackDays',
        'input.balance.current',
        'input.scenarios[1].burnMultiplier',
        'input.schemaVersion',
        'input.methodologyVersion',
        'input.dailyUsage',
        'input.balance.schedule',
        'input.scenarios[0].burnMultiplier',
        'input.scenarios[2].burnMultiplier',
      ],
    );
  });

  test('same-day schedule entries add up and land before that day\'s burn', () => {
    const input = forecastInput();
    input.balance.current = '10';
    input.balance.schedule = [
      { date: '2026-01-05', creditDelta: '100', reason: 'grant' },
      { date: '2026-01-05', creditDelta: '-30.5' },
    ];
    const result = forecastCreditUsage(input);
    const base = result.scenarios[1];
    assert.deepEqual(base?.points[1], {
      date: '2026-01-05',
      startBalance: '-15',
      balanceDelta: '69.5',
      creditsUsed: '25',
      endingBalance: '29.5',
    });
    assert.equal(base?.depletionDate, '2026-01-04');
    assert.equal(base?.shortfall, '20.5');
    const schedule = result.calculationTrace.sourceInputs[11]?.value;
    assert.deepEqual(schedule, [
      { date: '2026-01-05', creditDelta: '100', reason: 'grant' },
      { date: '2026-01-05', creditDelta: '-30.5' },
    ]);
    assert.deepEqual(result.calculationTrace.steps[8]?.operands['scheduledDeltas'], [
      { date: '2026-01-05', creditDelta: '100' },
      { date: '2026-01-05', creditDelta: '-30.5' },
    ]);
  });

  test('an exactly-zero final balance gets only the depletion warning', () => {
    const input = forecastInput();
    input.balance.current = '100';
    input.period.lowBalanceThreshold = '0';
    const result = forecastCreditUsage(input);
    const base = result.scenarios[1];
    assert.equal(base?.endingBalance, '0');
    assert.equal(base?.status, 'DEPLETION_PROJECTED');
    assert.deepEqual(
      result.warnings.filter((w) => w.scenarioKey === 'base'),
      [{ code: 'DEPLETION_PROJECTED', scenarioKey: 'base', depletionDate: '2026-01-07', shortfall: '0' }],
    );
  });

  test('low balance counts equality with the threshold', () => {
    const input = forecastInput();
    input.period.lowBalanceThreshold = '100';
    const base = forecastCreditUsage(input).scenarios[1];
    assert.equal(base?.status, 'LOW_BALANCE_PROJECTED');
  });

  test('rounding of the baseline and the scenario burn', () => {
    const input = forecastInput();
    input.dailyUsage[2].creditsUsed = '0.000000000001';
    input.dailyUsage[1].creditsUsed = '0';
    input.scenarios[2].burnMultiplier = '1.5';
    const result = forecastCreditUsage(input);
    // 0.000000000001 / 2 = 0.0000000000005 -> half-up -> 0.000000000001
    assert.equal(result.baselineDailyBurn, '0.000000000001');
    // 0.000000000001 * 1.5 = 0.0000000000015 -> 0.000000000002; * 0.5 -> 0.000000000001
    assert.equal(result.scenarios[2]?.dailyBurn, '0.000000000002');
    assert.equal(result.scenarios[0]?.dailyBurn, '0.000000000001');
  });
});
