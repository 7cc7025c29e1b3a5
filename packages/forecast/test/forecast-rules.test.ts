import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ForecastValidationError, forecastCreditUsage } from '../src/index.js';
import { forecastInput } from './inputs.js';

function issues(input: unknown): string[] {
  try {
    forecastCreditUsage(input);
  } catch (error) {
    assert.ok(error instanceof ForecastValidationError, `unexpected ${String(error)}`);
    return error.issues.map((i) => `${i.code} ${i.path} :: ${i.message}`);
  }
  assert.fail('expected a ForecastValidationError');
}

describe('forecast validation: stage 2 (rules)', () => {
  test('period, allocation, threshold and negative usage, in order', () => {
    const input = forecastInput();
    input.methodologyVersion = '0.9';
    input.asOf = '2026-01-01';
    input.period.allocation = '0';
    input.period.lowBalanceThreshold = '-1';
    input.dailyUsage[0].creditsUsed = '-1';
    input.dailyUsage[2].creditsUsed = '-0.5';
    assert.deepEqual(issues(input), [
      'UNSUPPORTED_METHODOLOGY_VERSION input.methodologyVersion :: methodologyVersion must equal "1.0"',
      'INVALID_FORECAST_PERIOD input.asOf :: asOf must be later than period.startDate and earlier than period.endDate',
      'NON_POSITIVE_ALLOCATION input.period.allocation :: period.allocation must be greater than zero',
      'NEGATIVE_LOW_BALANCE_THRESHOLD input.period.lowBalanceThreshold :: period.lowBalanceThreshold must be non-negative',
      'NEGATIVE_DAILY_USAGE input.dailyUsage[0].creditsUsed :: daily creditsUsed must be non-negative',
      'NEGATIVE_DAILY_USAGE input.dailyUsage[2].creditsUsed :: daily creditsUsed must be non-negative',
    ]);
  });

  test('duplicate and unordered history are each reported once', () => {
    const input = forecastInput();
    input.dailyUsage = [
      { date: '2026-01-01', creditsUsed: '1' },
      { date: '2026-01-03', creditsUsed: '1' },
      { date: '2026-01-02', creditsUsed: '1' },
      { date: '2026-01-02', creditsUsed: '1' },
      { date: '2026-01-01', creditsUsed: '1' },
    ];
    assert.deepEqual(issues(input), [
      'DUPLICATE_DAILY_USAGE_DATE input.dailyUsage[3].date :: dailyUsage contains duplicate date 2026-01-02',
      'UNORDERED_DAILY_HISTORY input.dailyUsage :: dailyUsage must be ordered by date',
    ]);
  });

  test('missing dates in calendar order, extra dates in supplied order', () => {
    const input = forecastInput();
    input.asOf = '2026-01-06';
    input.dailyUsage = [
      { date: '2025-12-31', creditsUsed: '1' },
      { date: '2026-01-01', creditsUsed: '1' },
      { date: '2026-01-04', creditsUsed: '1' },
      { date: '2026-01-06', creditsUsed: '1' },
    ];
    assert.deepEqual(issues(input), [
      'INCOMPLETE_DAILY_HISTORY input.dailyUsage :: dailyUsage must contain exactly one bucket for every date in [period.startDate, asOf); missing 2026-01-02, 2026-01-03, 2026-01-05',
      'EXTRA_DAILY_HISTORY input.dailyUsage :: dailyUsage contains dates outside [period.startDate, asOf): 2025-12-31, 2026-01-06',
    ]);
  });

  test('a malformed bucket date counts as missing and extra', () => {
    const input = forecastInput();
    input.dailyUsage[2].date = '2026-01-3';
    assert.deepEqual(issues(input), [
      'INVALID_DATE input.dailyUsage[2].date :: must be an ISO 8601 date-only string in YYYY-MM-DD form',
      'INCOMPLETE_DAILY_HISTORY input.dailyUsage :: dailyUsage must contain exactly one bucket for every date in [period.startDate, asOf); missing 2026-01-03',
      'EXTRA_DAILY_HISTORY input.dailyUsage :: dailyUsage contains dates outside [period.startDate, asOf): 2026-01-3',
    ]);
  });

  test('no calendar walk from a malformed start date (terminates, skips rows 9/10)', () => {
    const input = forecastInput();
    input.period.startDate = '2026-01-01T00:00:00Z';
    input.dailyUsage = [{ date: '2020-01-01', creditsUsed: '1' }];
    input.lookbackDays = 1;
    assert.deepEqual(issues(input), [
      'INVALID_DATE input.period.startDate :: must be an ISO 8601 date-only string in YYYY-MM-DD form',
    ]);
  });

  test('lookbackDays bounds against the supplied bucket count', () => {
    for (const lookbackDays of [0, -1, 4]) {
      const input = forecastInput();
      input.lookbackDays = lookbackDays;
      assert.deepEqual(issues(input), [
        'INVALID_LOOKBACK_DAYS input.lookbackDays :: lookbackDays must be greater than zero and no greater than observed-day count',
      ]);
    }
    const input = forecastInput();
    input.lookbackDays = 3;
    assert.doesNotThrow(() => forecastCreditUsage(input));
  });

  test('scenario rules S1–S4', () => {
    const reordered = forecastInput();
    reordered.scenarios = [reordered.scenarios[1], reordered.scenarios[0], reordered.scenarios[2]];
    assert.deepEqual(issues(reordered), [
      'INVALID_SCENARIO_ORDER input.scenarios :: scenarios must contain exactly low, base, and high in that order',
    ]);

    const short = forecastInput();
    short.scenarios = [{ key: 'low', burnMultiplier: '-2' }];
    assert.deepEqual(issues(short), [
      'INVALID_SCENARIO_ORDER input.scenarios :: scenarios must contain exactly low, base, and high in that order',
      'NEGATIVE_BURN_MULTIPLIER input.scenarios[0].burnMultiplier :: burnMultiplier must be non-negative',
    ]);

    const base = forecastInput();
    base.scenarios[1].burnMultiplier = '2';
    assert.deepEqual(issues(base), [
      'INVALID_BASE_MULTIPLIER input.scenarios[1].burnMultiplier :: base burnMultiplier must equal "1"',
      'INVALID_SCENARIO_MULTIPLIERS input.scenarios :: scenario burnMultipliers must satisfy low < base < high',
    ]);

    const equal = forecastInput();
    equal.scenarios[2].burnMultiplier = '1';
    assert.deepEqual(issues(equal), [
      'INVALID_SCENARIO_MULTIPLIERS input.scenarios :: scenario burnMultipliers must satisfy low < base < high',
    ]);

    const zeroLow = forecastInput();
    zeroLow.scenarios[0].burnMultiplier = '0';
    assert.doesNotThrow(() => forecastCreditUsage(zeroLow));
  });

  test('schedule range and order issues interleave per entry', () => {
    const input = forecastInput();
    input.balance.schedule = [
      { date: '2026-01-05', creditDelta: '1' },
      { date: '2026-01-03', creditDelta: '1' },
      { date: '2026-01-08', creditDelta: '1' },
      { date: '2026-01-06', creditDelta: '1' },
      { date: '2026-01-06', creditDelta: '-1' },
    ];
    const range = 'scheduled balance date must be inside [asOf, period.endDate)';
    const order = 'UNORDERED_BALANCE_SCHEDULE input.balance.schedule :: balance.schedule must be ordered by date';
    assert.deepEqual(issues(input), [
      `SCHEDULE_DATE_OUT_OF_RANGE input.balance.schedule[1].date :: ${range}`,
      order,
      `SCHEDULE_DATE_OUT_OF_RANGE input.balance.schedule[2].date :: ${range}`,
      order,
    ]);
  });

  test('extension namespaces, in JavaScript key order, with normalised paths', () => {
    const input = forecastInput();
    input.extensions = {
      'com.example': { any: ['json', 1, null] },
      'acme.billing-v2': true,
      product: 1,
      '.x.y': 1,
      'a..b': 1,
      'a.-b': 1,
      'a[01]': 1,
      '7': 1,
    };
    const message = 'extension keys must use a collision-resistant namespace';
    assert.deepEqual(
      issues(input),
      [
        'input.extensions.7',
        'input.extensions.product',
        'input.extensions.x.y',
        'input.extensions.a.b',
        'input.extensions.a.-b',
        'input.extensions.a[1]',
      ].map((path) => `INVALID_EXTENSION_NAMESPACE ${path} :: ${message}`),
    );
  });

  test('extensions never affect the result', () => {
    const plain = forecastCreditUsage(forecastInput());
    const input = forecastInput();
    input.extensions = { 'com.example': { note: 'hello' } };
    assert.deepEqual(forecastCreditUsage(input), plain);
  });

  test('string-level comparison of malformed decimals (4.5)', () => {
    const input = forecastInput();
    input.period.allocation = '1e3';
    input.period.lowBalanceThreshold = '-0';
    assert.deepEqual(issues(input), [
      'INVALID_DECIMAL input.period.allocation :: must be a canonical base-10 decimal string with at most 12 fractional digits',
      'INVALID_DECIMAL input.period.lowBalanceThreshold :: must be a canonical base-10 decimal string with at most 12 fractional digits',
      'NEGATIVE_LOW_BALANCE_THRESHOLD input.period.lowBalanceThreshold :: period.lowBalanceThreshold must be non-negative',
    ]);
  });
});
