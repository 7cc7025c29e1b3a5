import * as accounts from '../../accounts/index.js';
import type { AppContext } from '../../../platform/context.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { AppError, invalid } from '../../../platform/errors/app-error.js';
import type { Principal } from '../../../platform/http/principal.js';
import type { Decimal } from '../../../platform/money.js';
import { BUDGET_PERIODS, deleteKeyBudget, getCustomerByRef, getKeyBudget, putKeyBudget, resolveCallerCustomer, type BudgetPeriod, type CustomerTarget, type KeyBudgetInput } from '../../customers/index.js';

// Per-key budgets (api-contract-agent-v2.md §2.1): the routes' use cases. The budget rules and the
// spend accounting live in customers/key-budgets; here the key is found and the body checked.

type BudgetBody = { period?: unknown; creditLimit?: Decimal | null | undefined; amountLimit?: Decimal | null | undefined; alertThreshold?: unknown };

/** The PUT body as the service's input, with the contract's messages (§2.2). */
export function toBudgetInput(body: BudgetBody | undefined): KeyBudgetInput {
  const period = body?.period;
  if (period === undefined || period === null) throw invalid('Validation failed: period: must not be null', { fields: [{ field: 'period', message: 'must not be null' }] });
  if (typeof period !== 'string' || !(BUDGET_PERIODS as readonly string[]).includes(period)) {
    throw invalid(`Invalid value for period: ${typeof period === 'string' ? period : JSON.stringify(period)}. Valid values: ${BUDGET_PERIODS.join(', ')}`);
  }
  const limit = (name: 'creditLimit' | 'amountLimit') => {
    const value = body?.[name] ?? null;
    if (value === null) return null;
    if (value.isNegative()) throw invalid(`${name} must not be negative`);
    if (value.decimalPlaces() > 6 || value.gt(1_000_000_000_000)) throw invalid(`Validation failed: ${name}: at most 1000000000000 with 6 decimal places`);
    return value;
  };
  const threshold = body?.alertThreshold;
  if (threshold !== undefined && threshold !== null && (typeof threshold !== 'number' || !Number.isInteger(threshold) || threshold < 0 || threshold > 99)) {
    throw invalid('alertThreshold must be between 1 and 99, or 0 to never alert');
  }
  return {
    period: period as BudgetPeriod,
    creditLimit: limit('creditLimit'),
    amountLimit: limit('amountLimit'),
    alertThreshold: threshold === undefined || threshold === null ? undefined : threshold,
  };
}

/** The customer and its key named by the path: 404 `Customer not found` / `API key not found` (§2.1). */
async function keyOf(ctx: AppContext, target: CustomerTarget, keyId: string) {
  const customer = await getCustomerByRef(ctx.db, target.accountId, target.ref);
  await accounts.requireCustomerKey(ctx.db, { accountId: target.accountId, customerId: customer.id, keyId });
  return customer;
}

export async function setBudget(ctx: AppContext, target: CustomerTarget, keyId: string, body: BudgetBody | undefined) {
  const input = toBudgetInput(body);
  const customer = await keyOf(ctx, target, keyId);
  return withTransaction(ctx.db, (tx) => putKeyBudget(tx, { accountId: target.accountId, keyId, customerId: customer.id }, input, ctx.clock.now()));
}

export async function clearBudget(ctx: AppContext, target: CustomerTarget, keyId: string) {
  await keyOf(ctx, target, keyId);
  await withTransaction(ctx.db, (tx) => deleteKeyBudget(tx, target.accountId, keyId));
}

/**
 * GET: the tenant (or the console) reads any key's budget; a customer key reads only its own — its
 * own customer first (another `{ref}`: 403 `use_own_reference`), then its own key (§2.9).
 */
export async function readBudget(ctx: AppContext, principal: Principal | null, target: CustomerTarget, keyId: string) {
  if (principal?.kind === 'customer') {
    await resolveCallerCustomer(ctx.db, principal, target.ref);
    if (keyId !== principal.keyId) throw new AppError('forbidden', 'A customer key may read only its own budget');
  }
  await keyOf(ctx, target, keyId);
  return getKeyBudget(ctx.db, target.accountId, keyId, ctx.clock.now());
}

/** The calling customer key's own budget (MCP `getMyBudget`, §2.8). */
export async function readOwnBudget(ctx: AppContext, principal: Extract<Principal, { kind: 'customer' }>) {
  return getKeyBudget(ctx.db, principal.accountId, principal.keyId, ctx.clock.now());
}
