import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../platform/money.js';
import {
  auditEntries,
  checkDefaultPlan,
  checkPatchFields,
  checkTopupAmount,
  isRedirectUrl,
  mergeSettings,
  MESSAGES,
  normaliseCurrency,
  normaliseSlug,
  parseStripeMode,
  planToCheck,
  toAccountSettings,
  type AccountSettings,
  type CheckedPatch,
} from './domain.js';
import { normaliseCostConfig, toCostConfig } from './cost-config.js';

const PLAN = '01890000-0000-7000-8000-0000000000aa';
const defaults = (overrides: Partial<AccountSettings> = {}): AccountSettings => ({ ...toAccountSettings('acc', undefined), ...overrides });
const fieldsOf = (patch: Parameters<typeof checkPatchFields>[0]): CheckedPatch => {
  const checked = checkPatchFields(patch);
  assert.ok('patch' in checked, JSON.stringify(checked));
  return checked.patch;
};
const problemOf = (result: object) => ('problem' in result ? (result.problem as { message: string }).message : null);

test('when a slug is normalised then it is trimmed and lower-cased and must match the contract pattern', () => {
  assert.deepEqual(normaliseSlug('  Acme-AI '), { slug: 'acme-ai' });
  assert.deepEqual(normaliseSlug('a'), { slug: 'a' }, 'one character matches the pattern');
  assert.deepEqual(normaliseSlug('ab'), { problem: MESSAGES.slug }, 'two do not: the optional group is 3 or more');
  for (const bad of ['', '-a-', 'a-', 'a_b', 'ü-ber', 'x'.repeat(64), 'a\nb']) assert.deepEqual(normaliseSlug(bad), { problem: MESSAGES.slug }, bad);
  assert.deepEqual(normaliseSlug('x'.repeat(63)), { slug: 'x'.repeat(63) });
});

test('when a stripe mode is parsed then the aliases map to PROCESSOR_INTEGRATION and STRIPE_DRIVEN or other case is no mode', () => {
  const modes = { NONE: 'NONE', PAYMENT_PASS_THROUGH: 'PAYMENT_PASS_THROUGH', PROCESSOR_INTEGRATION: 'PROCESSOR_INTEGRATION', STRIPE_INTEGRATION: 'PROCESSOR_INTEGRATION', FULL_SYNC: 'PROCESSOR_INTEGRATION' };
  for (const [name, mode] of Object.entries(modes)) assert.equal(parseStripeMode(name), mode, name);
  for (const bad of ['STRIPE_DRIVEN', 'none', 'toString', '__proto__', '']) assert.equal(parseStripeMode(bad), null, bad);
});

test('when a currency is normalised then ISO 4217 codes are upper-cased and others refused', () => {
  assert.equal(normaliseCurrency(' eur '), 'EUR');
  assert.equal(normaliseCurrency('KWD'), 'KWD');
  for (const bad of ['XYZ', 'US', 'DOLLAR', '']) assert.equal(normaliseCurrency(bad), null, bad);
});

test('when a redirect URL is checked then only absolute http(s) URLs with a host pass', () => {
  assert.ok(isRedirectUrl('https://acme.example/ok?x=1'));
  assert.ok(isRedirectUrl('http://localhost:3000/cancel'));
  for (const bad of ['ftp://acme.example', 'javascript:alert(1)', '/relative', 'acme.example', 'https://', ' https://a.example', `https://a.example/${'a'.repeat(2048)}`]) {
    assert.equal(isRedirectUrl(bad), false, bad);
  }
});

test('when the top-up cap is checked then 0 clears it, negatives and extra decimals are refused, the ceiling holds', () => {
  assert.deepEqual(checkTopupAmount(dec(0)), { amount: null });
  assert.deepEqual(checkTopupAmount(dec('-0.0001')), { problem: MESSAGES.topupNegative });
  assert.deepEqual(checkTopupAmount(dec('0.00001')), { problem: 'agentMaxTopupAmount allows at most 4 decimals' });
  assert.deepEqual(checkTopupAmount(dec('1000000000000.0001')), { problem: 'agentMaxTopupAmount must be at most 1000000000000' });
  const ok = checkTopupAmount(dec('19.99'));
  assert.ok('amount' in ok && ok.amount!.eq('19.99'));
});

test('when a cost config is normalised then nothing set clears it, negatives are refused in the original words, values stay exact', () => {
  assert.deepEqual(normaliseCostConfig(null), { config: null });
  assert.deepEqual(normaliseCostConfig({}), { config: null });
  assert.deepEqual(normaliseCostConfig({ modelCosts: {}, costUnit: '  ', defaultInputCostPerUnit: null }), { config: null });
  assert.equal(problemOf(normaliseCostConfig({ modelCosts: { m: { input: dec(-1) } } })), 'Model input cost rates must be non-negative');
  assert.equal(problemOf(normaliseCostConfig({ modelCosts: { m: { output: dec(-1) } } })), 'Model output cost rates must be non-negative');
  assert.equal(problemOf(normaliseCostConfig({ defaultInputCostPerUnit: dec(-1) })), 'Default input cost per unit must be non-negative');
  assert.equal(problemOf(normaliseCostConfig({ defaultOutputCostPerUnit: dec(-1) })), 'Default output cost per unit must be non-negative');
  assert.equal(problemOf(normaliseCostConfig({ defaultOutputCostPerUnit: dec(1_000_001) })), 'defaultCostConfig.defaultOutputCostPerUnit must be at most 1000000');
  const rate = dec('0.000002000000000000000001');
  const result = normaliseCostConfig({ modelCosts: Object.fromEntries([['__proto__', { input: rate }]]), costUnit: 'token' });
  assert.ok('config' in result && result.config);
  assert.ok(Object.hasOwn(result.config.modelCosts!, '__proto__'), 'a model named __proto__ stays a model');
  assert.equal(result.config.modelCosts!['__proto__']!.input!.toFixed(), '0.000002000000000000000001');
});

test('when a stored cost config is read then its numbers become exact decimals', () => {
  const config = toCostConfig({ modelCosts: { m: { input: dec('0.1'), output: 2 } }, defaultInputCostPerUnit: '0.5', costUnit: 'token' });
  assert.equal(config!.modelCosts!.m!.output!.toFixed(), '2');
  assert.equal(config!.defaultInputCostPerUnit!.toFixed(), '0.5');
  assert.equal(config!.defaultOutputCostPerUnit, null);
  assert.equal(toCostConfig(null), null);
});

test('when patch fields are checked then each carries the contract message, in the contract field order', () => {
  assert.equal(problemOf(checkPatchFields({ agentSignupHourlyCap: 0 })), MESSAGES.hourlyCapMin);
  assert.equal(problemOf(checkPatchFields({ currency: 'abc' })), 'Invalid currency code: ABC');
  assert.equal(problemOf(checkPatchFields({ stripeMode: 'STRIPE_DRIVEN' })), 'Invalid stripeMode: STRIPE_DRIVEN. Valid values: NONE, PAYMENT_PASS_THROUGH, PROCESSOR_INTEGRATION');
  assert.equal(problemOf(checkPatchFields({ slug: 'bad slug', currency: 'abc' })), MESSAGES.slug, 'slug comes first');
  assert.deepEqual(fieldsOf({ stripeMode: 'FULL_SYNC', agentMaxTopupAmount: dec(0), slug: null, agentSignupDefaultPlanId: PLAN.toUpperCase() }), {
    stripeMode: 'PROCESSOR_INTEGRATION',
    agentMaxTopupAmount: null,
    slug: null,
    agentSignupDefaultPlanId: PLAN,
  });
  assert.deepEqual(fieldsOf({}), {}, 'nothing sent, nothing changes');
});

test('when the default plan is checked then it must be this account’s, ACTIVE and free (no price or 0)', () => {
  assert.equal(checkDefaultPlan(PLAN, null), `Plan not found on this account: ${PLAN}`);
  assert.equal(checkDefaultPlan(PLAN, { status: 'DRAFT', priceAmount: dec(0) }), MESSAGES.planNotActive);
  assert.equal(checkDefaultPlan(PLAN, { status: 'ARCHIVED', priceAmount: null }), MESSAGES.planNotActive);
  assert.equal(checkDefaultPlan(PLAN, { status: 'ACTIVE', priceAmount: dec('0.01') }), MESSAGES.planNotFree);
  assert.equal(checkDefaultPlan(PLAN, { status: 'ACTIVE', priceAmount: dec('0.0000') }), null);
  assert.equal(checkDefaultPlan(PLAN, { status: 'ACTIVE', priceAmount: null }), null);
});

test('when a patch is merged then the catalog needs a slug and signup a plan, on the merged state, and switching off always passes', () => {
  const stored = defaults();
  assert.equal(problemOf(mergeSettings(stored, fieldsOf({ publicCatalogEnabled: true }))), MESSAGES.catalogNeedsSlug);
  assert.ok('next' in mergeSettings(stored, fieldsOf({ publicCatalogEnabled: true, slug: 'acme' })));
  assert.ok('next' in mergeSettings(defaults({ slug: 'acme' }), fieldsOf({ publicCatalogEnabled: true })), 'a slug set before counts');
  const catalogOn = defaults({ slug: 'acme', publicCatalogEnabled: true });
  assert.equal(problemOf(mergeSettings(catalogOn, fieldsOf({ slug: null }))), MESSAGES.slugClearedUnderCatalog);
  assert.ok('next' in mergeSettings(catalogOn, fieldsOf({ slug: null, publicCatalogEnabled: false })));

  assert.equal(problemOf(mergeSettings(stored, fieldsOf({ agentSignupEnabled: true }))), MESSAGES.signupNeedsPlan);
  const free = { status: 'ACTIVE' as const, priceAmount: dec(0) };
  assert.ok('next' in mergeSettings(stored, fieldsOf({ agentSignupEnabled: true, agentSignupDefaultPlanId: PLAN }), free));
  const signupOn = defaults({ agentSignupEnabled: true, agentSignupDefaultPlanId: PLAN });
  assert.equal(problemOf(mergeSettings(signupOn, fieldsOf({ agentSignupDefaultPlanId: null }))), MESSAGES.planClearedUnderSignup);
  assert.ok('next' in mergeSettings(signupOn, fieldsOf({ agentSignupEnabled: false })));

  // A state the patch did not make (the plan was deleted, FK set null) does not block other fields.
  const drifted = defaults({ agentSignupEnabled: true, agentSignupDefaultPlanId: null });
  assert.ok('next' in mergeSettings(drifted, fieldsOf({ currency: 'EUR' })));
});

test('when signup is turned on with the stored plan then that plan is checked again', () => {
  const stored = defaults({ agentSignupDefaultPlanId: PLAN });
  assert.equal(planToCheck(stored, fieldsOf({ agentSignupEnabled: true })), PLAN);
  assert.equal(planToCheck(stored, fieldsOf({ agentSignupEnabled: false })), null, 'turning it off checks nothing');
  assert.equal(planToCheck(stored, fieldsOf({ currency: 'EUR' })), null);
  assert.equal(problemOf(mergeSettings(stored, fieldsOf({ agentSignupEnabled: true }), { status: 'ARCHIVED', priceAmount: dec(0) })), MESSAGES.planNotActive);
});

test('when settings change then the audited fields each give one entry with from and to, and unchanged values none', () => {
  const before = defaults({ agentMaxTopupAmount: dec('10.0') });
  assert.deepEqual(auditEntries(before, { ...before, agentMaxTopupAmount: dec('10') }), [], '10.0 and 10 are the same cap');
  assert.deepEqual(auditEntries(before, { ...before, currency: 'EUR', agentSignupHourlyCap: 3 }), []);
  const after = { ...before, stripeMode: 'PAYMENT_PASS_THROUGH' as const, slug: 'acme' };
  assert.deepEqual(auditEntries(before, after), [
    { action: 'STRIPE_MODE_CHANGED', details: { field: 'stripeMode', from: 'NONE', to: 'PAYMENT_PASS_THROUGH' } },
    { action: 'SLUG_CHANGED', details: { field: 'slug', from: null, to: 'acme' } },
  ]);
});
