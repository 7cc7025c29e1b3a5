import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../../platform/context.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { AppError, notFound } from '../../../platform/errors/app-error.js';
import { newId } from '../../../platform/ids.js';
import { dec } from '../../../platform/money.js';
import { customerKeyEnvironment, issueCustomerKey } from '../../accounts/index.js';
import { subscribeInTransaction } from '../../billing/index.js';
import { findPlan } from '../../catalog/index.js';
import { createCustomerInTransaction } from '../../customers/index.js';
import { findAccountSettingsBySlug, lockAccountSettings } from '../../settings/index.js';
import { NO_ACCOUNT_ID } from '../pricing/service.js';
import { isFreePlan } from '../pricing/domain.js';
import { agentCustomerReference, computeNextSteps, computeRetryAfterSeconds, isOverCap, SIGNUP_KEY_SCOPES, signupWindowStart } from './domain.js';
import * as repo from './repo.js';

const NO_SIGNUP_MESSAGE = 'No signup at this address';
const SIGNUP_RATE_LIMITED_MESSAGE = 'Signup rate limit reached for this catalog — retry later';

type SignupInput = { slug: string; email: string; name?: string | undefined; baseUrl: string };

/**
 * One-call agent signup (contract §5.3), all or nothing in one transaction: under the account's
 * settings row lock, check that signup is open (enabled, default plan ACTIVE and free), count the
 * rolling hour against the cap, then create the `agent_` customer, subscribe it to the default plan
 * (billing's subscribe rule: active, PAID initial invoice, plan credits granted), issue a
 * read+purchase key and record the signup. The lock serialises signups of one account, so a burst
 * cannot pass the cap. Every refusal before the cap (unknown slug, signup off, no usable plan) is the
 * same 404, and an unknown slug runs the same statements against an account id that does not exist.
 */
export async function signUpAgent(ctx: AppContext, input: SignupInput) {
  const now = ctx.clock.now();
  const created = await withTransaction(ctx.db, async (tx) => {
    const found = await findAccountSettingsBySlug(tx, input.slug);
    const locked = await lockAccountSettings(tx, found?.accountId ?? NO_ACCOUNT_ID);
    // The slug may have moved between the lookup and the lock: then it no longer names this account.
    const settings = locked && locked.slug === found?.slug && locked.agentSignupEnabled ? locked : null;
    const accountId = settings?.accountId ?? NO_ACCOUNT_ID;
    const plan = await findPlan(tx, accountId, settings?.agentSignupDefaultPlanId ?? NO_ACCOUNT_ID);
    if (!settings || !plan || plan.status !== 'ACTIVE' || !isFreePlan({ priceAmount: dec(plan.price_amount ?? '0') })) {
      throw notFound(NO_SIGNUP_MESSAGE);
    }
    const window = await repo.signupsSince(tx, accountId, signupWindowStart(now));
    if (isOverCap(window.count, settings.agentSignupHourlyCap)) {
      throw new AppError('rate_limited', SIGNUP_RATE_LIMITED_MESSAGE, {
        headers: { 'Retry-After': String(computeRetryAfterSeconds(window.oldest ?? now, now)) },
      });
    }
    const customer = await createCustomerInTransaction(tx, {
      accountId,
      customerReferenceId: agentCustomerReference(randomBytes(16).toString('hex')),
      email: input.email,
      firstName: input.name?.trim() || null,
      source: 'AGENT_SIGNUP',
      now,
    });
    await subscribeInTransaction(tx, { accountId, customer, plan, now });
    const environment = await customerKeyEnvironment(tx, accountId, ctx.config.apiKeyEnvironment);
    const key = await issueCustomerKey(tx, { accountId, customerId: customer.id, scopes: [...SIGNUP_KEY_SCOPES], environment, now });
    await repo.insertSignup(tx, { id: newId(), account_id: accountId, customer_id: customer.id, created_at: now });
    return { customerReferenceId: customer.customer_reference_id, apiKey: key.apiKey, apiKeyScopes: key.scopes, plan: plan.key };
  });
  return { ...created, nextSteps: computeNextSteps(input.baseUrl, created.customerReferenceId) };
}
