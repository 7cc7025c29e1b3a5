/**
 * Property tests over a deterministic set of generated inputs (seeded PRNG).
 * Arithmetic checks use a test-local BigInt parser so they do not simply
 * re-run the library's own code.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { forecastCreditUsage, planCreditUsage, type ForecastInput, type PlanInput } from '../src/index.js';
import { deepFreeze, seededRandom } from './helpers.js';

const S = 10n ** 12n;
const CANONICAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]{0,11}[1-9])?$/;

/** Independent exact parser: integer count of 10^-12 units. */
function units(text: string): bigint {
  assert.ok(CANONICAL.test(text) && text !== '-0', `not canonical: ${text}`);
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const value = BigInt(whole) * S + BigInt(fraction.padEnd(12, '0'));
  return negative ? -value : value;
}

type Random = () => number;
const int = (random: Random, min: number, max: number): number => min + Math.floor(random() * (max - min + 1));

function decimal(random: Random, maxWhole: number, allowNegative = false): string {
  const whole = int(random, 0, maxWhole);
  const digits = int(random, 0, 12);
  let fraction = '';
  for (let i = 0; i < digits; i++) fraction += String(int(random, 0, 9));
  fraction = fraction.replace(/0+$/, '');
  const text = fraction === '' ? String(whole) : `${whole}.${fraction}`;
  const negative = allowNegative && text !== '0' && random() < 0.4;
  return negative ? `-${text}` : text;
}

const DAY_MS = 86_400_000;
const dateAt = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

function multipliers(random: Random): ForecastInput['scenarios'] {
  const low = random() < 0.15 ? '0' : `0.${int(random, 1, 999)}`.replace(/0+$/, '');
  const high = `${int(random, 1, 3)}.${int(random, 1, 999)}`.replace(/0+$/, '');
  return [
    { key: 'low', burnMultiplier: low },
    { key: 'base', burnMultiplier: '1' },
    { key: 'high', burnMultiplier: high },
  ];
}

function generateForecast(random: Random): ForecastInput {
  const start = int(random, 19_000, 22_000);
  const observed = int(random, 1, 45);
  const remaining = int(random, 1, 45);
  const asOfDay = start + observed;
  const schedule = Array.from({ length: int(random, 0, 4) }, () => int(random, asOfDay, asOfDay + remaining - 1))
    .sort((a, b) => a - b)
    .map((day) => ({ date: dateAt(day), creditDelta: decimal(random, 500, true), ...(random() < 0.5 ? { reason: 'r' } : {}) }));
  return {
    schemaVersion: '1.0',
    methodologyVersion: '1.0',
    asOf: dateAt(asOfDay),
    period: {
      startDate: dateAt(start),
      endDate: dateAt(asOfDay + remaining),
      allocation: `${int(random, 1, 5000)}${random() < 0.5 ? '.5' : ''}`,
      lowBalanceThreshold: decimal(random, random() < 0.5 ? 200 : 3000),
    },
    lookbackDays: int(random, 1, observed),
    dailyUsage: Array.from({ length: observed }, (_, i) => ({
      date: dateAt(start + i),
      creditsUsed: random() < 0.1 ? '0' : decimal(random, 60),
    })),
    balance: { current: decimal(random, 2000, true), schedule },
    scenarios: multipliers(random),
  };
}

function generatePlan(random: Random): PlanInput {
  const start = int(random, 19_000, 22_000);
  const metrics = Array.from({ length: int(random, 1, 5) }, (_, i) => ({
    key: `metric-${i}`,
    ...(random() < 0.5 ? { label: `Metric ${i}` } : {}),
    estimatedUnits: decimal(random, 100_000),
    creditsPerUnit: decimal(random, 5),
  }));
  return {
    schemaVersion: '1.0',
    methodologyVersion: '1.0',
    period: { startDate: dateAt(start), endDate: dateAt(start + int(random, 1, 400)) },
    metricEstimates: metrics,
    ...(random() < 0.8 ? { allocation: decimal(random, 500_000).replace(/^0$/, '1') } : {}),
    scenarios: multipliers(random),
  };
}

const CASES = 250;

describe('forecast properties', () => {
  const random = seededRandom(0x7a11e);
  const inputs = Array.from({ length: CASES }, () => deepFreeze(generateForecast(random)));

  test('observed series, balances, utilization and statuses are consistent', () => {
    for (const input of inputs) {
      const result = forecastCreditUsage(input);
      let running = 0n;
      let previous = -1n;
      result.observedPoints.forEach((point, i) => {
        running += units(input.dailyUsage[i]!.creditsUsed);
        const cumulative = units(point.cumulativeCreditsUsed);
        assert.equal(cumulative, running);
        assert.ok(cumulative >= previous, 'cumulative series must be non-decreasing');
        previous = cumulative;
      });
      assert.equal(units(result.creditsUsedToDate), running);

      const allocation = units(input.period.allocation);
      const totalDelta = input.balance.schedule.reduce((acc, e) => acc + units(e.creditDelta), 0n);
      let lastBurn = -1n;
      for (const scenario of result.scenarios) {
        const burn = units(scenario.dailyBurn);
        assert.ok(burn >= lastBurn, 'daily burn ascends low -> base -> high');
        lastBurn = burn;
        const days = BigInt(result.daysRemaining);
        const consumption = units(scenario.projectedPeriodConsumption);
        assert.equal(units(scenario.projectedCreditsUsed), burn * days);
        assert.equal(consumption, running + burn * days);
        // utilization is consumption / allocation to within half a unit of the 12th digit.
        const error = units(scenario.utilization) * allocation - consumption * S;
        assert.ok(2n * (error < 0n ? -error : error) <= allocation, 'utilization consistent with consumption');

        assert.equal(scenario.points.length, result.daysRemaining);
        let balance = units(input.balance.current);
        let depletion: string | null = null;
        for (const point of scenario.points) {
          assert.equal(units(point.startBalance), balance);
          assert.equal(units(point.creditsUsed), burn);
          const end = units(point.startBalance) + units(point.balanceDelta) - burn;
          assert.equal(units(point.endingBalance), end);
          if (depletion === null && end <= 0n) depletion = point.date;
          balance = end;
        }
        const ending = units(scenario.endingBalance);
        assert.equal(ending, units(input.balance.current) + totalDelta - burn * days, 'start + deltas - burn');
        assert.equal(ending, balance);
        assert.equal(scenario.depletionDate, depletion);
        assert.equal(units(scenario.shortfall), ending < 0n ? -ending : 0n);
        const threshold = units(input.period.lowBalanceThreshold);
        const status =
          depletion !== null ? 'DEPLETION_PROJECTED' : ending <= threshold ? 'LOW_BALANCE_PROJECTED' : 'ON_TRACK';
        assert.equal(scenario.status, status);
        const warnings = result.warnings.filter((w) => w.scenarioKey === scenario.key).map((w) => w.code);
        const expected = [
          ...(depletion !== null ? ['DEPLETION_PROJECTED'] : []),
          ...(ending > 0n && ending <= threshold ? ['LOW_BALANCE_PROJECTED'] : []),
        ];
        assert.deepEqual(warnings, expected);
      }
      assert.equal(result.calculationTrace.steps.length, 31);
      assert.equal(result.calculationTrace.sourceInputs.length, 14);
    }
  });

  test('deterministic, JSON-clean, and free of aliasing', () => {
    for (const input of inputs.slice(0, 50)) {
      const first = forecastCreditUsage(input);
      assert.deepEqual(JSON.parse(JSON.stringify(first)), first);
      first.observedPoints.length = 0;
      first.scenarios[1]!.points[0]!.endingBalance = 'mutated';
      (first.calculationTrace.sourceInputs[10]!.value as unknown[]).length = 0;
      const second = forecastCreditUsage(input);
      assert.equal(second.observedPoints.length, input.dailyUsage.length);
      assert.notEqual(second.scenarios[1]!.points[0]!.endingBalance, 'mutated');
      assert.deepEqual(forecastCreditUsage(input), second);
    }
  });
});

describe('plan properties', () => {
  const random = seededRandom(0xb1a2);
  const inputs = Array.from({ length: CASES }, () => deepFreeze(generatePlan(random)));

  test('scenario totals, comparisons and traces are consistent', () => {
    for (const input of inputs) {
      const result = planCreditUsage(input);
      const days = BigInt(result.daysInPeriod);
      const baseline = result.metrics.reduce((acc, m) => acc + units(m.plannedCredits), 0n);
      assert.equal(units(result.baselinePlannedCredits), baseline);
      assert.equal(result.scenarios[1]!.plannedCredits, result.baselinePlannedCredits);
      let last = -1n;
      for (const scenario of result.scenarios) {
        const planned = units(scenario.plannedCredits);
        assert.equal(planned, scenario.metricBreakdown.reduce((acc, m) => acc + units(m.plannedCredits), 0n));
        assert.ok(planned >= last, 'planned credits ascend low -> base -> high');
        last = planned;
        const dailyError = units(scenario.averageDailyBurn) * days - planned;
        assert.ok(2n * (dailyError < 0n ? -dailyError : dailyError) <= days);
        if (input.allocation === undefined) {
          assert.equal(scenario.comparison, null);
          continue;
        }
        const allocation = units(input.allocation);
        const comparison = scenario.comparison!;
        assert.equal(units(comparison.surplus) - units(comparison.shortfall), allocation - planned);
        assert.ok(units(comparison.surplus) === 0n || units(comparison.shortfall) === 0n);
        assert.equal(comparison.status, planned > allocation ? 'OVER_ALLOCATION' : 'WITHIN_ALLOCATION');
        const error = units(comparison.utilization) * allocation - planned * S;
        assert.ok(2n * (error < 0n ? -error : error) <= allocation, 'utilization consistent with planned credits');
      }
      const over = result.scenarios.filter((s) => s.comparison?.status === 'OVER_ALLOCATION').map((s) => s.key);
      assert.deepEqual(result.warnings.map((w) => w.scenarioKey), over);
      const k = input.metricEstimates.length;
      assert.equal(result.calculationTrace.steps.length, k + 3 + (input.allocation === undefined ? 9 : 21));
      assert.deepEqual(planCreditUsage(input), result);
    }
  });
});
