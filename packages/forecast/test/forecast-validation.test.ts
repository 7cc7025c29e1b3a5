import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ForecastValidationError, forecastCreditUsage, type ValidationFailure } from '../src/index.js';
import { forecastInput } from './inputs.js';

function failure(input: unknown): ValidationFailure {
  try {
    forecastCreditUsage(input);
  } catch (error) {
    assert.ok(error instanceof ForecastValidationError, `unexpected ${String(error)}`);
    return error.toJSON();
  }
  assert.fail('expected a ForecastValidationError');
}

/** Issues as compact `CODE path :: message` lines, for readable diffs. */
function issues(input: unknown): string[] {
  return failure(input).issues.map((i) => `${i.code} ${i.path} :: ${i.message}`);
}

const SHAPE_DECIMAL = 'must be a canonical base-10 decimal string with at most 12 fractional digits';
const SHAPE_DATE = 'must be an ISO 8601 date-only string in YYYY-MM-DD form';

describe('forecast validation: error object', () => {
  test('has the documented members and envelope', () => {
    const input = forecastInput();
    input.schemaVersion = '2.0';
    try {
      forecastCreditUsage(input);
      assert.fail('should throw');
    } catch (error) {
      assert.ok(error instanceof ForecastValidationError);
      assert.ok(error instanceof Error);
      assert.equal(error.name, 'ForecastValidationError');
      assert.equal(error.message, 'Forecast input validation failed');
      assert.equal(error.code, 'INVALID_INPUT');
      assert.deepEqual(Object.keys(error.toJSON()), ['schemaVersion', 'methodologyVersion', 'code', 'issues']);
      assert.deepEqual(error.toJSON(), {
        schemaVersion: '2.0',
        methodologyVersion: '1.0',
        code: 'INVALID_INPUT',
        issues: [
          { code: 'UNSUPPORTED_SCHEMA_VERSION', path: 'input.schemaVersion', message: 'schemaVersion must equal "1.0"' },
        ],
      });
    }
  });

  test('versions are null in the envelope when unusable', () => {
    assert.equal(failure(null).schemaVersion, null);
    const input = forecastInput();
    input.schemaVersion = '';
    const envelope = failure(input);
    assert.equal(envelope.schemaVersion, null);
    assert.equal(envelope.methodologyVersion, '1.0');
    assert.deepEqual(
      envelope.issues.map((i) => i.code),
      ['INVALID_VALUE', 'UNSUPPORTED_SCHEMA_VERSION'],
    );
  });
});

describe('forecast validation: stage 1 (shape)', () => {
  test('root of the wrong type', () => {
    assert.deepEqual(issues(null), ['INVALID_VALUE input :: Expected object, received null']);
    assert.deepEqual(issues([]), ['INVALID_VALUE input :: Expected object, received array']);
    assert.deepEqual(issues('x'), ['INVALID_VALUE input :: Expected object, received string']);
    assert.deepEqual(issues(undefined), ['REQUIRED_FIELD input :: Required']);
  });

  test('every missing required field, in declared order', () => {
    assert.deepEqual(
      issues({}),
      ['schemaVersion', 'methodologyVersion', 'asOf', 'period', 'lookbackDays', 'dailyUsage', 'balance', 'scenarios'].map(
        (name) => `REQUIRED_FIELD input.${name} :: Required`,
      ),
    );
  });

  test('wrong types are classified by the path they sit at', () => {
    const input = forecastInput();
    input.asOf = 5;
    input.period.allocation = 700;
    input.period.lowBalanceThreshold = null;
    input.lookbackDays = '2';
    input.dailyUsage[1] = 7;
    input.balance.schedule = {};
    assert.deepEqual(issues(input), [
      'INVALID_DATE input.asOf :: Expected string, received number',
      'INVALID_DECIMAL input.period.allocation :: Expected string, received number',
      'INVALID_DECIMAL input.period.lowBalanceThreshold :: Expected string, received null',
      'INVALID_VALUE input.lookbackDays :: Expected number, received string',
      'INVALID_VALUE input.dailyUsage[1] :: Expected object, received number',
      'INVALID_VALUE input.balance.schedule :: Expected array, received object',
    ]);
  });

  test('unknown keys are reported once per object, after its fields, with the doubled key list', () => {
    const input = forecastInput();
    input.zz = 1;
    input.aa = 2;
    input.period.extra = true;
    input.period.allocation = 5;
    assert.deepEqual(issues(input), [
      'INVALID_DECIMAL input.period.allocation :: Expected string, received number',
      "UNRECOGNIZED_FIELD input.period :: Unrecognized key(s) in object: 'extra': extra",
      "UNRECOGNIZED_FIELD input :: Unrecognized key(s) in object: 'zz', 'aa': zz, aa",
    ]);
  });

  test('scenario keys outside the enum are fatal', () => {
    const input = forecastInput();
    input.scenarios[1].key = 'mid';
    input.scenarios[2].key = 3;
    input.scenarios[0].burnMultiplier = '-1';
    assert.deepEqual(issues(input), [
      "INVALID_VALUE input.scenarios[1].key :: Invalid enum value. Expected 'low' | 'base' | 'high', received 'mid'",
      "INVALID_VALUE input.scenarios[2].key :: Expected 'low' | 'base' | 'high', received number",
    ]);
    delete input.scenarios[2].key;
    assert.ok(issues(input).includes('REQUIRED_FIELD input.scenarios[2].key :: Required'));
  });

  test('non-fatal issues still let stage 2 run and append its issues', () => {
    const input = forecastInput();
    input.period.allocation = '-0';
    input.scenarios[1].burnMultiplier = '1.0';
    input.lookbackDays = 1.5;
    input.balance.schedule = [{ date: '2026-01-05', creditDelta: '01', reason: '' }];
    assert.deepEqual(issues(input), [
      `INVALID_DECIMAL input.period.allocation :: ${SHAPE_DECIMAL}`,
      'INVALID_VALUE input.lookbackDays :: Expected integer, received float',
      `INVALID_DECIMAL input.balance.schedule[0].creditDelta :: ${SHAPE_DECIMAL}`,
      'INVALID_VALUE input.balance.schedule[0].reason :: String must contain at least 1 character(s)',
      `INVALID_DECIMAL input.scenarios[1].burnMultiplier :: ${SHAPE_DECIMAL}`,
      'NON_POSITIVE_ALLOCATION input.period.allocation :: period.allocation must be greater than zero',
      'INVALID_BASE_MULTIPLIER input.scenarios[1].burnMultiplier :: base burnMultiplier must equal "1"',
    ]);
  });

  test('decimal grammar', () => {
    const bad = ['+1', '1e3', '01', '00', '1.0', '1.50', '1.', '.5', ' 1', '-0', '0.0000000000001', '１', ''];
    for (const value of bad) {
      const input = forecastInput();
      input.balance.current = value;
      assert.deepEqual(issues(input), [`INVALID_DECIMAL input.balance.current :: ${SHAPE_DECIMAL}`], value);
    }
    for (const value of ['0', '-25.5', '9.000000000001', '-0.5', '1'.repeat(300)]) {
      const input = forecastInput();
      input.balance.current = value;
      assert.doesNotThrow(() => forecastCreditUsage(input), value);
    }
  });

  test('date grammar', () => {
    for (const value of ['2026-1-01', '2027-02-29', '2026-02-30', '0000-01-01', '2026-01-04T00:00:00Z', '２026-01-04']) {
      const input = forecastInput();
      input.balance.schedule = [{ date: value, creditDelta: '1' }];
      const found = issues(input);
      assert.equal(found[0], `INVALID_DATE input.balance.schedule[0].date :: ${SHAPE_DATE}`, value);
    }
    const input = forecastInput();
    input.balance.schedule = [{ date: '2028-02-29', creditDelta: '1' }];
    input.period.endDate = '2028-03-01';
    assert.doesNotThrow(() => forecastCreditUsage(input));
  });

  test('optional keys present with null are type errors', () => {
    const input = forecastInput();
    input.balance.schedule = [{ date: '2026-01-05', creditDelta: '1', reason: null }];
    input.extensions = null;
    assert.deepEqual(issues(input), [
      'INVALID_VALUE input.balance.schedule[0].reason :: Expected string, received null',
      'INVALID_VALUE input.extensions :: Expected object, received null',
    ]);
  });
});
