import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { checkMandateRequest, mandateAvailable } from './domain.js';

const account = { currency: 'USD', maxMandateAmount: dec('50') };
const problem = (r: ReturnType<typeof checkMandateRequest>) => ('problem' in r ? r.problem : null);

test('when a mandate request is checked then each rule answers with the contract message, in order', () => {
  assert.equal(problem(checkMandateRequest({}, account)), 'spend_mandate.max_amount is required');
  assert.equal(problem(checkMandateRequest({ max_amount: dec('0') }, account)), 'spend_mandate.max_amount must be positive');
  assert.equal(problem(checkMandateRequest({ max_amount: dec('-1') }, account)), 'spend_mandate.max_amount must be positive');
  assert.equal(problem(checkMandateRequest({ max_amount: dec('10'), currency: 'eur' }, account)), 'spend_mandate.currency must be USD, the account currency');
  assert.equal(problem(checkMandateRequest({ max_amount: dec('10'), period: 'year' }, account)), 'spend_mandate.period must be day, week or month');
  assert.equal(
    problem(checkMandateRequest({ max_amount: dec('75.5') }, account)),
    "spend_mandate.max_amount 75.50 is above this account's limit of 50.00 USD; ask for 50.00 or less.",
  );
});

test('when a mandate request passes then currency and period are normalised and the default period is month', () => {
  assert.deepEqual(checkMandateRequest({ max_amount: dec('50'), currency: 'usd', period: 'WEEK' }, account), { mandate: { maxAmount: dec('50'), currency: 'USD', period: 'week' } });
  const r = checkMandateRequest({ max_amount: dec('5') }, { currency: 'EUR', maxMandateAmount: null });
  assert.ok('mandate' in r && r.mandate.period === 'month' && r.mandate.currency === 'EUR', 'no ceiling: no ceiling check');
});

test('when the account has the mandate off, no ceiling or no processor then no page can be opened', () => {
  assert.equal(mandateAvailable({ agentSpendMandateEnabled: true, agentMaxMandateAmount: dec('5'), stripeMode: 'PAYMENT_PASS_THROUGH' }), true);
  assert.equal(mandateAvailable({ agentSpendMandateEnabled: false, agentMaxMandateAmount: dec('5'), stripeMode: 'PAYMENT_PASS_THROUGH' }), false);
  assert.equal(mandateAvailable({ agentSpendMandateEnabled: true, agentMaxMandateAmount: null, stripeMode: 'PAYMENT_PASS_THROUGH' }), false);
  assert.equal(mandateAvailable({ agentSpendMandateEnabled: true, agentMaxMandateAmount: dec('5'), stripeMode: 'NONE' }), false);
});
