import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { burndownOf, ledgerCredits } from '../src/credit-figures.js';

/** Credit figures the customer page and the portal compute from the API's rows (no browser needed). */
describe('console: credit figures', () => {
  test('when a CAPTURE row consumed its hold then its credits are amount + heldChange, not its amount of 0', () => {
    assert.equal(ledgerCredits({ transactionType: 'CAPTURE', amount: '0', heldChange: '-20.125' }), '-20.125');
    // Beyond the hold: 15 drawn fresh plus the 30 held.
    assert.equal(ledgerCredits({ transactionType: 'CAPTURE', amount: '-15', heldChange: '-30' }), '-45');
    assert.equal(ledgerCredits({ transactionType: 'HOLD', amount: '-50', heldChange: '50' }), '-50');
    assert.equal(ledgerCredits({ transactionType: 'DEDUCTION', amount: '-12.5', heldChange: '0' }), '-12.5');
  });

  test('when the burndown projects the balance at the average burn then every value is exact decimal text', () => {
    const ledger = [
      { createdAt: '2026-03-01T09:00:00Z', balanceAfter: '1000' },
      { createdAt: '2026-03-01T10:00:00Z', balanceAfter: '900.997' },
    ];
    const b = burndownOf(ledger, '2026-03-01T12:00:00Z', { averageDailyBurn: '99.003', projectedDepletionDate: '2026-03-11T12:00:00Z' });
    assert.deepEqual(b.days.slice(0, 3), ['2026-03-01', '2026-03-02', '2026-03-03']);
    assert.deepEqual(b.balance.slice(0, 2), ['900.997', null]);
    // Through doubles these were 801.9939999999999, 603.9879999999999 and 9.969999999999914.
    assert.deepEqual(b.projected, ['900.997', '801.994', '702.991', '603.988', '504.985', '405.982', '306.979', '207.976', '108.973', '9.97', '0']);
  });

  test('when there is no burn then the burndown ends today with the balance carried over quiet days', () => {
    const ledger = [{ createdAt: '2026-03-01T09:00:00Z', balanceAfter: '87.5' }];
    const b = burndownOf(ledger, '2026-03-03T12:00:00Z', undefined);
    assert.deepEqual(b.days, ['2026-03-01', '2026-03-02', '2026-03-03']);
    assert.deepEqual(b.balance, ['87.5', '87.5', '87.5']);
    assert.deepEqual(b.projected, [null, null, '87.5']);
  });
});
