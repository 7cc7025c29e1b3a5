import type { AppContext } from '../../../platform/context.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import type { Principal } from '../../../platform/http/principal.js';
import { resolveCallerCustomer, setOwnerEmail } from '../../customers/index.js';
import { invalid } from '../../../platform/errors/app-error.js';
import { pushCustomerEmailAfterCommit } from '../../payments/index.js';
import { getAccountSettings } from '../../settings/index.js';
import { checkMandateRequest, type MandateRequest } from '../mandate/domain.js';
import { openMandatePage } from '../mandate/service.js';
import { getAgentStatus, keySpendOfCaller, mandateFromCustomer } from './service.js';

const readersAt = (now: Date) => ({ keySpend: keySpendOfCaller(now), mandate: mandateFromCustomer });

/** GET …/status (§4.4): the caller's customer (a customer key is pinned to its own). */
export async function getCustomerStatus(ctx: AppContext, principal: Principal, ref: string) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  return getAgentStatus(ctx, principal, customer, readersAt(ctx.clock.now()));
}

/**
 * PUT …/owner (§4.5): stores the owner e-mail (and the customer's e-mail when it has none, which the
 * processor customer, if there is one, is given after commit), then answers the status.
 */
export async function putOwner(ctx: AppContext, principal: Principal, ref: string, email: string) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const { row } = await withTransaction(ctx.db, async (tx) => {
    const set = await setOwnerEmail(tx, principal.accountId, customer.id, email.trim().toLowerCase(), ctx.clock.now());
    if (set.emailChanged) pushCustomerEmailAfterCommit(ctx, tx, principal.accountId, customer.id);
    return set;
  });
  return getAgentStatus(ctx, principal, row, readersAt(ctx.clock.now()));
}

/**
 * POST …/spend-mandate (§4.6): the request is checked against the account first (400 opens
 * nothing), then a page is opened, or the answer is `unavailable` (still 200: a mandate is optional).
 */
export async function requestMandate(ctx: AppContext, principal: Principal, ref: string, body: MandateRequest, baseUrl: string) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const settings = await getAccountSettings(ctx.db, principal.accountId);
  const checked = checkMandateRequest(body, { currency: settings.currency, maxMandateAmount: settings.agentMaxMandateAmount });
  if ('problem' in checked) throw invalid(checked.problem, { fields: [{ field: 'spend_mandate', message: checked.problem }] });
  const keyId = principal.kind === 'customer' ? principal.keyId : null;
  const page = await openMandatePage(ctx, { accountId: principal.accountId, customerId: customer.id, keyId, mandate: checked.mandate, settings, baseUrl });
  return { ...page, max_amount: checked.mandate.maxAmount, currency: checked.mandate.currency, period: checked.mandate.period };
}
