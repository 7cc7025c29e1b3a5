import { dec } from '../../platform/money.js';
import type * as repo from './repo.js';

export const toModel = (r: repo.ModelRow) => ({
  id: r.id,
  name: r.name,
  denomination: r.denomination,
  description: r.description,
  hardLimit: r.hard_limit,
  rolloverPolicy: r.rollover_policy,
  rolloverCap: r.rollover_cap === null ? null : dec(r.rollover_cap),
  metadata: r.metadata,
  createdAt: r.created_at,
  modifiedAt: r.modified_at,
});

export const toAllocation = (r: repo.AllocationWithModel) => ({
  id: r.id,
  creditModelId: r.credit_model_id,
  creditModelName: r.model_name,
  denomination: r.denomination,
  creditAmount: dec(r.credit_amount),
  grantExpiresMonths: r.grant_expires_months,
  hardLimit: r.hard_limit ?? r.model_hard_limit,
  createdAt: r.created_at,
});

export const toPool = (r: repo.PoolRow) => ({
  id: r.id,
  name: r.name,
  denomination: r.denomination,
  currency: r.currency,
  balance: dec(r.balance),
  totalGranted: dec(r.total_granted),
  totalConsumed: dec(r.total_consumed),
  totalExpired: dec(r.total_expired),
  totalReversed: dec(r.total_reversed),
  totalHeld: dec(r.total_held),
  hardLimit: r.hard_limit,
  status: r.status,
  rolloverPolicy: r.rollover_policy,
  rolloverCap: r.rollover_cap === null ? null : dec(r.rollover_cap),
  lowBalanceThreshold: r.low_balance_threshold === null ? null : dec(r.low_balance_threshold),
  customerId: r.customer_id,
  metadata: r.metadata,
  createdAt: r.created_at,
  modifiedAt: r.modified_at,
});

export const toLink = (r: repo.LinkRow) => ({
  creditPoolId: r.credit_pool_id,
  subscriptionId: r.subscription_id,
  drawPriority: r.draw_priority,
  drawLimit: r.draw_limit === null ? null : dec(r.draw_limit),
  totalDrawn: dec(r.total_drawn),
  createdAt: r.created_at,
});

export const toGrant = (r: repo.GrantRow) => ({
  id: r.id,
  creditPoolId: r.credit_pool_id,
  subscriptionId: r.subscription_id,
  invoiceId: r.invoice_id,
  grantType: r.grant_type,
  amount: dec(r.amount),
  remaining: dec(r.remaining),
  unitPrice: r.unit_price === null ? null : dec(r.unit_price),
  currency: r.currency,
  expiresAt: r.expires_at,
  description: r.description,
  voidedAt: r.voided_at,
  metadata: r.metadata,
  createdAt: r.created_at,
});

export const toTransaction = (r: repo.TransactionRow) => ({
  id: r.id,
  creditPoolId: r.credit_pool_id,
  creditGrantId: r.credit_grant_id,
  transactionType: r.transaction_type,
  amount: dec(r.amount),
  balanceBefore: dec(r.balance_before),
  balanceAfter: dec(r.balance_after),
  description: r.description,
  reversedTransactionId: r.reversed_transaction_id,
  heldChange: dec(r.held_change),
  reservationId: r.reservation_id,
  metadata: r.metadata,
  createdAt: r.created_at,
});
