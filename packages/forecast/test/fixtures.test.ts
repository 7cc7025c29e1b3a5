/**
 * Golden fixture runner (METHODOLOGY section 12): every JSON file below the
 * reference directory is loaded and checked, none is skipped.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  ForecastValidationError,
  PlanValidationError,
  forecastCreditUsage,
  planCreditUsage,
  type ForecastResult,
  type PlanResult,
} from '../src/index.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_FIXTURES, VENDORED_FIXTURES, fixturesRoot, loadFixtures, subsetMismatch, type Fixture } from './helpers.js';

const fixtures = loadFixtures();

function run(fixture: Fixture): unknown {
  return fixture.kind === 'plan' ? planCreditUsage(fixture.input) : forecastCreditUsage(fixture.input);
}

function withoutAssertions(expected: unknown): unknown {
  if (typeof expected !== 'object' || expected === null) return expected;
  const { assertions: _ignored, ...rest } = expected as Record<string, unknown>;
  return rest;
}

/** The runner-level sanity checks of 12.2 step 4. */
function sanityCheck(fixture: Fixture, result: unknown): void {
  const input = fixture.input as { schemaVersion: string; methodologyVersion: string };
  const common = result as { schemaVersion: string; methodologyVersion: string; scenarios: { key: string }[] };
  assert.equal(common.schemaVersion, input.schemaVersion);
  assert.equal(common.methodologyVersion, input.methodologyVersion);
  assert.deepEqual(
    common.scenarios.map((s) => s.key),
    ['low', 'base', 'high'],
  );
  if (fixture.kind === 'forecast') {
    const forecast = result as ForecastResult;
    for (const scenario of forecast.scenarios) {
      assert.equal(scenario.points.length, forecast.daysRemaining);
      assert.equal(scenario.points.at(-1)?.endingBalance, scenario.endingBalance);
    }
  } else {
    const plan = result as PlanResult;
    const metricKeys = plan.metrics.map((m) => m.key);
    for (const scenario of plan.scenarios) {
      assert.deepEqual(
        scenario.metricBreakdown.map((m) => m.key),
        metricKeys,
      );
    }
    assert.equal(plan.scenarios[1]?.plannedCredits, plan.baselinePlannedCredits);
  }
}

describe(`golden fixtures in ${fixturesRoot()}`, () => {
  test('the fixture set is present', () => {
    assert.ok(fixtures.length > 0, 'no fixtures found');
    // The shipped reference set: 12 forecast and 9 plan fixtures (an override may hold any subset).
    if (!process.env['FORECAST_FIXTURES_DIR']) {
      assert.ok(fixtures.filter((f) => f.kind === 'forecast').length >= 12);
      assert.ok(fixtures.filter((f) => f.kind === 'plan').length >= 9);
    }
  });

  for (const fixture of fixtures) {
    test(`${fixture.file}: ${fixture.name}`, () => {
      assert.ok(
        (fixture.expected === undefined) !== (fixture.expectedError === undefined),
        'exactly one of expected / expectedError',
      );
      if (fixture.expectedError !== undefined) {
        const ErrorClass = fixture.kind === 'plan' ? PlanValidationError : ForecastValidationError;
        assert.throws(
          () => run(fixture),
          (error: unknown) => {
            assert.ok(error instanceof ErrorClass, `expected ${ErrorClass.name}, got ${String(error)}`);
            assert.deepEqual(error.toJSON(), fixture.expectedError);
            return true;
          },
        );
        return;
      }
      const result = run(fixture);
      const mismatch = subsetMismatch(withoutAssertions(fixture.expected), result);
      assert.equal(mismatch, null, mismatch ?? '');
      sanityCheck(fixture, result);
      const repeatCount = fixture.execution?.repeatCount ?? 2;
      for (let i = 1; i < repeatCount; i++) assert.deepEqual(run(fixture), result);
    });
  }
});

describe('vendored fixtures', () => {
  test('when the shared reference folder is present then the vendored copy matches it byte for byte', (t) => {
    if (!existsSync(SHARED_FIXTURES)) {
      t.skip('shared/reference/forecast is not beside this checkout');
      return;
    }
    for (const dir of ['golden-scenarios', 'golden-plans']) {
      const shared = readdirSync(join(SHARED_FIXTURES, dir)).sort();
      assert.deepEqual(readdirSync(join(VENDORED_FIXTURES, dir)).sort(), shared, dir);
      for (const file of shared) {
        assert.equal(
          readFileSync(join(VENDORED_FIXTURES, dir, file), 'utf8'),
          readFileSync(join(SHARED_FIXTURES, dir, file), 'utf8'),
          `${dir}/${file}`,
        );
      }
    }
  });
});
