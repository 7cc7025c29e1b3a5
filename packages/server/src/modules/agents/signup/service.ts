import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../../platform/context.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { AppError, invalid, notFound } from '../../../platform/errors/app-error.js';
import { newId } from '../../../platform/ids.js';
import { dec } from '../../../platform/money.js';
import { customerKeyEnvironment, issueCustomerKey } from '../../accounts/index.js';
import { subscribeInTransaction } from '../../billing/index.js';
import { findPlan, listRulesOfPlans } from '../../catalog/index.js';
import { createCustomerInTransaction, startProvisional } from '../../customers/index.js';
import { findAccountSettingsBySlug, lockAccountSettings, type AccountSettings } from '../../settings/index.js';
import { checkMandateRequest, type CheckedMandate, type MandateRequest } from '../mandate/domain.js';
import { NO_ACCOUNT_ID } from '../pricing/service.js';
import { isFreePlan } from '../pricing/domain.js';
import { agentLimits } from '../status/service.js';
import { provisionalExpiry } from '../status/domain.js';
import { agentCustomerReference, agentUrls, computeNextSteps, computeRetryAfterSeconds, isOverCap, SIGNUP_KEY_SCOPES, signupWindowStart } from './domain.js';
import * as repo from './repo.js';

const NO_SIGNUP_MESSAGE = 'No signup at this address';
const SIGNUP_RATE_LIMITED_MESSAGE = 'Signup rate limit reached for this catalog — retry later';
const ADDRESS_RATE_LIMITED_MESSAGE = 'Signup rate limit reached for this address — retry later';

/** Opens the mandate page a signup asked for, after its commit (§4.2: never fails the signup). */
export type MandateOpener = (
  ctx: AppContext,
  input: { accountId: string; customerId: string; keyId: string | null; mandate: CheckedMandate; settings: AccountSettings; baseUrl: string },
) => Promise<{ status: 'pending' | 'unavailable'; setup_url: string | null }>;

type SignupInput = {
  slug: string;
  email: string;
  name?: string | undefined;
  spend_mandate?: MandateRequest | undefined;
  baseUrl: string;
  /** The client address (§4.3): the TCP peer, or the leftmost X-Forwarded-For behind a trusted proxy. */
  clientAddress: string;
};

const refusedWith = (retryAfter: number, message: string) => new AppError('rate_limited', message, { headers: { 'Retry-After': String(retryAfter) } });

/**
 * One-call agent signup (contract §5.3, agent v2 §4.2, §4.3), all or nothing in one transaction:
 * under the account's settings row lock, check that signup is open (enabled, default plan ACTIVE
 * and free), count the rolling hour against the account's cap, then (with a per-address cap)
 * under the client address's lock count that address's signups across all accounts; check a
 * requested mandate; then create the provisional `agent_` customer, subscribe it to the default
 * plan, issue a read+purchase key and record the signup with its address. The locks serialise
 * signups of one account and of one address, so a burst cannot pass either cap. Every refusal
 * before the caps is the same 404, and an unknown slug runs the same statements against an account
 * id that does not exist. A requested mandate page is opened after the commit.
 */
export async function signUpAgent(ctx: AppContext, input: SignupInput, openMandate: MandateOpener) {
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
    const since = signupWindowStart(now);
    const window = await repo.signupsSince(tx, accountId, since);
    if (isOverCap(window.count, settings.agentSignupHourlyCap)) throw refusedWith(computeRetryAfterSeconds(window.oldest ?? now, now), SIGNUP_RATE_LIMITED_MESSAGE);
    if (settings.agentSignupPerIpCap !== null) {
      await repo.lockClientAddress(tx, input.clientAddress);
      const fromAddress = await repo.signupsFromAddressSince(tx, input.clientAddress, since);
      if (isOverCap(fromAddress.count, settings.agentSignupPerIpCap)) throw refusedWith(computeRetryAfterSeconds(fromAddress.oldest ?? now, now), ADDRESS_RATE_LIMITED_MESSAGE);
    }
    const mandate = input.spend_mandate ? checkMandateRequest(input.spend_mandate, { currency: settings.currency, maxMandateAmount: settings.agentMaxMandateAmount }) : null;
    if (mandate && 'problem' in mandate) throw invalid(mandate.problem, { fields: [{ field: 'spend_mandate', message: mandate.problem }] });
    const email = input.email.toLowerCase();
    const customer = await createCustomerInTransaction(tx, {
      accountId,
      customerReferenceId: agentCustomerReference(randomBytes(16).toString('hex')),
      email,
      firstName: input.name?.trim() || null,
      source: 'AGENT_SIGNUP',
      now,
    });
    const expiresAt = provisionalExpiry(now, settings.agentProvisionalDays);
    await startProvisional(tx, { accountId, customerId: customer.id, expiresAt, ownerEmail: email });
    await subscribeInTransaction(tx, { accountId, customer, plan, now });
    const environment = await customerKeyEnvironment(tx, accountId, ctx.config.apiKeyEnvironment);
    const key = await issueCustomerKey(tx, { accountId, customerId: customer.id, scopes: [...SIGNUP_KEY_SCOPES], environment, now });
    await repo.insertSignup(tx, { id: newId(), account_id: accountId, customer_id: customer.id, created_at: now, client_address: input.clientAddress });
    const [firstRule] = (await listRulesOfPlans(tx, accountId, [plan.id])).filter((r) => r.is_enabled);
    return {
      settings,
      customerId: customer.id,
      keyId: key.id,
      mandate: mandate?.mandate ?? null,
      firstFeatureKey: firstRule?.feature_key ?? null,
      expiresAt,
      answer: { customerReferenceId: customer.customer_reference_id, apiKey: key.apiKey, apiKeyScopes: key.scopes, plan: plan.key },
    };
  });
  const { settings, mandate, answer } = created;
  const spendMandate = mandate && {
    ...(await openMandate(ctx, { accountId: settings.accountId, customerId: created.customerId, keyId: created.keyId, mandate, settings, baseUrl: input.baseUrl })),
    max_amount: mandate.maxAmount,
    currency: mandate.currency,
    period: mandate.period,
  };
  return {
    ...answer,
    status: 'provisional' as const,
    expires_at: created.expiresAt,
    limits: await agentLimits(ctx.db, settings.accountId, created.customerId),
    spend_mandate: spendMandate,
    ...agentUrls(input.baseUrl, answer.customerReferenceId),
    nextSteps: computeNextSteps(input.baseUrl, answer.customerReferenceId, settings.slug ?? input.slug, created.firstFeatureKey),
  };
}
