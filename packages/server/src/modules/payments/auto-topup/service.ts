import type { AppContext } from '../../../platform/context.js';
import { AppError, invalid, invalidField, notFound } from '../../../platform/errors/app-error.js';
import type { PageQuery } from '../../../platform/http/pagination.js';
import type { Principal } from '../../../platform/http/principal.js';
import { minorUnits } from '../../../platform/currency.js';
import { CREDITS_SCALE, decimalPlaces, type Decimal } from '../../../platform/money.js';
import {
  autoTopupAmount,
  deleteAutoTopupRule,
  describeAutoTopupRule,
  findPriceAt,
  getCustomerPool,
  listAutoTopupAttempts,
  PAYMENT_MINIMUM,
  saveAutoTopupRule,
  type AutoTopupRuleInput,
} from '../../credits/index.js';
import { resolveCallerCustomer } from '../../customers/index.js';
import { getAccountSettings } from '../../settings/index.js';
import { processorKey } from '../connection.js';
import { formatAmount, requireWithinSpendCap } from '../domain.js';
import * as repo from '../repo.js';
import { MAX_AUTO_TOPUP_CREDITS, MAX_MONTHLY_AMOUNT } from './schema.js';

/**
 * The auto top-up rule routes (api-contract-money.md §2.1–§2.2). The caller is resolved first (a
 * customer key aimed at another customer is 403 before anything is looked up), then the pool must be
 * the customer's own (else 404). The rule and its attempts live in credits; the checks that need
 * the processor (connection, default payment method) and the spend cap are made here.
 */

export type RuleRequest = { enabled: boolean; threshold: Decimal; topupCredits: Decimal; maxMonthlyAmount?: Decimal | null | undefined };

async function ownPool(ctx: AppContext, principal: Principal, ref: string, poolId: string) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const pool = await getCustomerPool(ctx.db, principal.accountId, customer.id, poolId);
  return { customer, pool };
}

export async function getRule(ctx: AppContext, principal: Principal, ref: string, poolId: string) {
  const { customer, pool } = await ownPool(ctx, principal, ref, poolId);
  const settings = await getAccountSettings(ctx.db, principal.accountId);
  const rule = await describeAutoTopupRule(ctx.db, principal.accountId, customer.customer_reference_id, pool.id, settings.agentMaxTopupAmount, ctx.clock.now());
  if (!rule) throw notFound(`No auto top-up rule for credit pool ${pool.id}`);
  return rule;
}

/** Field rules of the Rule request (§2.2), in field order; the money scale is the price's currency's. */
function checkFields(body: RuleRequest, currency: string | null) {
  const tooLarge = (field: string, value: Decimal, max: string) => {
    if (value.gt(max)) throw invalidField(field, `must be at most ${max}`);
  };
  if (body.threshold.lt(0)) throw invalidField('threshold', 'must be zero or more');
  if (decimalPlaces(body.threshold) > CREDITS_SCALE) throw invalidField('threshold', `allows at most ${CREDITS_SCALE} decimals`);
  tooLarge('threshold', body.threshold, MAX_AUTO_TOPUP_CREDITS);
  if (body.topupCredits.lte(0)) throw invalidField('topupCredits', 'must be positive');
  if (decimalPlaces(body.topupCredits) > CREDITS_SCALE) throw invalidField('topupCredits', `allows at most ${CREDITS_SCALE} decimals`);
  tooLarge('topupCredits', body.topupCredits, MAX_AUTO_TOPUP_CREDITS);
  const cap = body.maxMonthlyAmount ?? null;
  if (cap !== null) {
    if (cap.lte(0)) throw invalidField('maxMonthlyAmount', 'must be positive');
    tooLarge('maxMonthlyAmount', cap, MAX_MONTHLY_AMOUNT);
    const scale = currency ? minorUnits(currency) : 4;
    if (decimalPlaces(cap) > scale) throw invalidField('maxMonthlyAmount', `allows at most ${scale} decimals for ${currency ?? 'the currency'}`);
  }
}

/** PUT (§2.2): field validation, then, only when enabling, the six checks in order; nothing is stored on a failure. */
export async function putRule(ctx: AppContext, principal: Principal, ref: string, poolId: string, body: RuleRequest) {
  const { customer, pool } = await ownPool(ctx, principal, ref, poolId);
  const accountId = principal.accountId;
  const now = ctx.clock.now();
  const price = await findPriceAt(ctx.db, accountId, pool.denomination, now);
  checkFields(body, price?.currency ?? pool.currency);
  const input: AutoTopupRuleInput = { enabled: body.enabled, threshold: body.threshold, topupCredits: body.topupCredits, maxMonthlyAmount: body.maxMonthlyAmount ?? null };
  const settings = await getAccountSettings(ctx.db, accountId);
  if (body.enabled) {
    const key = settings.stripeMode === 'NONE' ? null : await processorKey(ctx, accountId);
    if (!key) throw invalid('Auto top-up needs a connected payment processor');
    const link = await repo.findProcessorCustomer(ctx.db, accountId, customer.id);
    if (!link?.default_payment_method_id) throw invalid('Save a default payment method before enabling auto top-up');
    if (!price) {
      throw invalid(`No published price for denomination '${pool.denomination}' — the operator must publish a price book entry before credits can be purchased`);
    }
    const amount = autoTopupAmount(body.topupCredits, price.pricePerCredit, price.currency);
    const shown = `${formatAmount(amount, price.currency)} ${price.currency}`;
    if (amount.lt(PAYMENT_MINIMUM)) throw invalid(`Auto top-up amount ${shown} is below the 0.50 payment minimum — raise topupCredits`);
    requireWithinSpendCap(amount, price.currency, settings.agentMaxTopupAmount);
    if (input.maxMonthlyAmount !== null && input.maxMonthlyAmount.lt(amount)) {
      throw invalid(`maxMonthlyAmount ${formatAmount(input.maxMonthlyAmount, price.currency)} ${price.currency} is below one top-up of ${shown}`);
    }
  }
  await saveAutoTopupRule(ctx.db, accountId, customer.id, pool.id, input, now);
  const rule = await describeAutoTopupRule(ctx.db, accountId, customer.customer_reference_id, pool.id, settings.agentMaxTopupAmount, ctx.clock.now());
  if (!rule) throw new AppError('internal_error', 'The saved rule could not be read back');
  return rule;
}

export async function deleteRule(ctx: AppContext, principal: Principal, ref: string, poolId: string): Promise<void> {
  const { pool } = await ownPool(ctx, principal, ref, poolId);
  await deleteAutoTopupRule(ctx.db, principal.accountId, pool.id);
}

export async function listAttempts(ctx: AppContext, principal: Principal, ref: string, poolId: string, page: PageQuery) {
  const { pool } = await ownPool(ctx, principal, ref, poolId);
  return listAutoTopupAttempts(ctx.db, principal.accountId, pool.id, page);
}

