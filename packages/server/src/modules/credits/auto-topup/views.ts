import { dec, type Decimal } from '../../../platform/money.js';
import type { AutoTopupAttemptRow, AutoTopupRuleRow } from './repo.js';
import type { RuleState } from './domain.js';

/** The Attempt object (money §2.7). */
export const toAttempt = (a: AutoTopupAttemptRow) => ({
  id: a.id,
  creditPoolId: a.credit_pool_id,
  status: a.status,
  credits: dec(a.credits),
  pricePerCredit: dec(a.price_per_credit),
  amount: dec(a.amount),
  currency: a.currency,
  balanceAtTrigger: dec(a.balance_at_trigger),
  triggerTransactionId: a.trigger_transaction_id,
  paymentMethodId: a.payment_method_id,
  paymentIntentId: a.payment_intent_id,
  grantId: a.grant_id,
  failureCode: a.failure_code,
  failureMessage: a.failure_message,
  counted: a.counted,
  createdAt: a.created_at,
  completedAt: a.completed_at,
});

export type AutoTopupAttempt = ReturnType<typeof toAttempt>;

export type RuleDerived = {
  customerReferenceId: string;
  currency: string | null;
  pricePerCredit: Decimal | null;
  amountPerTopup: Decimal | null;
  monthToDateAmount: Decimal;
  state: RuleState;
  lastAttempt: AutoTopupAttempt | null;
};

/** The Rule object (money §2.2): the stored rule and what is derived when it is read. */
export const toRule = (r: AutoTopupRuleRow, d: RuleDerived) => ({
  creditPoolId: r.credit_pool_id,
  customerReferenceId: d.customerReferenceId,
  enabled: r.enabled,
  threshold: dec(r.threshold),
  topupCredits: dec(r.topup_credits),
  maxMonthlyAmount: r.max_monthly_amount === null ? null : dec(r.max_monthly_amount),
  currency: d.currency,
  pricePerCredit: d.pricePerCredit,
  amountPerTopup: d.amountPerTopup,
  monthToDateAmount: d.monthToDateAmount,
  consecutiveFailures: r.consecutive_failures,
  retryAfter: r.retry_after,
  disabledReason: r.disabled_reason,
  state: d.state,
  lastAttempt: d.lastAttempt,
  createdAt: r.created_at,
  modifiedAt: r.modified_at,
});

export type AutoTopupRule = ReturnType<typeof toRule>;
