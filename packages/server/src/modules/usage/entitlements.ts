import type { AppContext } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors/app-error.js';
import { toJsonb } from '../../platform/db/jsonb.js';
import type { Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { dec, type Decimal } from '../../platform/money.js';
import { toPage, type PageQuery } from '../../platform/http/pagination.js';
import { listCustomerSubscriptions } from '../billing/index.js';
import { listRulesOfPlans } from '../catalog/index.js';
import { resolveCallerCustomer } from '../customers/index.js';
import { quoteCredits, reserveForFlow } from './credits-seam.js';
import { decideEntitlement, DENIAL_DESCRIPTIONS, listSubscriptionEntitlements, periodContaining } from './domain.js';
import { checkFacts } from './check-contexts.js';
import * as repo from './repo.js';

type CheckInput = {
  customerReferenceId: string | undefined;
  featureKey: string;
  /** Evaluate only: the proposed units, model and flow, and whether to hold the quoted credits under the flow. */
  evaluate?: { units: Decimal; model: string | null; flowId: string; reserve?: boolean };
  record: boolean;
};

/**
 * The node's writer of ENTITLEMENT_CHECKED rows: one multi-row INSERT per batch, durable commit. A
 * check does not wait for it; readers of usage events flush it first (`ctx.batches.flush()`).
 */
const auditWriter = (ctx: AppContext) => ctx.batches.get<repo.AuditRow>('entitlement-audit', (rows) => repo.insertAuditEvents(ctx.db, rows));

/** Usage in the rule's window: the current period's counter, or every period for accumulate. */
async function usedInWindow(ctx: AppContext, accountId: string, c: repo.CheckContext, resetMode: 'reset' | 'accumulate', now: Date): Promise<Decimal> {
  if (resetMode === 'accumulate') return dec(c.used_total ?? '0');
  const period = periodContaining({ start: c.current_period_start!, end: c.current_period_end! }, c.interval_months!, c.billing_anchor_day!, now);
  const used = await repo.usedInPeriod(ctx.db, c, { accountId, subscriptionId: c.subscription_id!, featureId: c.feature_id!, periodStart: period.start });
  return dec(used ?? '0');
}

/**
 * Checks (GET) or evaluates (POST) an entitlement: one query for the facts, a pure decision, and an
 * ENTITLEMENT_CHECKED audit event with zero usage, written behind (a crash of the process may lose
 * the rows of the last few milliseconds of checks; ADR 0013). Fails closed; a denial is a result.
 */
export async function checkEntitlement(ctx: AppContext, principal: Principal, input: CheckInput) {
  const now = ctx.clock.now();
  // The check's reads are single statements outside any transaction: the node's pipelined reads (ADR 0045).
  const reads = ctx.database.reads;
  // Tenant keys go straight to the one context query; a customer key first resolves its own reference.
  const ref =
    principal.kind === 'customer' || input.customerReferenceId === undefined
      ? (await resolveCallerCustomer(reads, principal, input.customerReferenceId)).customer_reference_id
      : input.customerReferenceId;
  const known = await checkFacts(ctx, reads, principal.accountId, ref, input.featureKey);
  if (!known) throw notFound('Customer not found');
  const { context: c, pricing, hasRule } = known;
  const used = c.subscription_id && hasRule ? await usedInWindow(ctx, principal.accountId, c, pricing?.resetMode ?? 'reset', now) : dec(0);

  const { quote: creditQuote, limitReached: creditLimitReached, credit } = await quoteCredits({ cache: ctx.cache, db: reads }, {
    accountId: principal.accountId,
    customerId: c.customer_id,
    featureId: c.feature_id,
    subscriptionId: c.subscription_id,
    denomination: hasRule ? c.credit_denomination : null,
    units: input.evaluate?.units ?? dec(1),
    model: input.evaluate?.model ?? null,
    now,
  });
  const facts = {
    hasActiveSubscription: c.subscription_id !== null,
    entitlementsRevoked: c.entitlements_revoked === true,
    ruleEnabled: hasRule,
    pricing,
    used,
    ...(input.evaluate ? { requestedUnits: input.evaluate.units } : {}),
  };
  let decision = decideEntitlement({ ...facts, creditLimitReached });
  const held = input.evaluate?.reserve ? await holdForFlow(ctx, principal.accountId, c, hasRule, decision.allowed, creditQuote.estimatedCredits, input.evaluate.flowId) : undefined;
  // The lock-free quote said yes, but the pools no longer cover it under their locks.
  if (held?.refused) decision = decideEntitlement({ ...facts, creditLimitReached: true });

  if (input.record && c.feature_id) {
    // Written behind: the next batch commits it, shared with the other checks (ADR 0013).
    const id = newId();
    await auditWriter(ctx).writeBehind({
      id,
      account_id: principal.accountId,
      customer_id: c.customer_id,
      feature_id: c.feature_id,
      subscription_id: c.subscription_id,
      // Namespaced so a client reusing its own key on the real event never collides with the audit row;
      // unique as the row's id is.
      event_idempotency_key: `entitlement-check:${id}`,
      model: input.evaluate?.model ?? null,
      flow_id: input.evaluate?.flowId ?? null,
      at: now,
      context: toJsonb({ allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) }),
    });
  }

  return {
    customerReferenceId: ref,
    referenceCustomerId: ref,
    featureKey: input.featureKey,
    allowed: decision.allowed,
    meta: decision.reason ? { reason: { code: decision.reason, description: DENIAL_DESCRIPTIONS[decision.reason] } } : null,
    // A takeover of an Idempotency-Key replays the hold: its flow, not the one generated again.
    flowId: held?.reservation?.flowId ?? input.evaluate?.flowId ?? null,
    ...(decision.usage ? { usage: decision.usage } : {}),
    ...(input.evaluate && decision.simulation ? { simulation: decision.simulation } : {}),
    // As the decision saw the pools: before this evaluate's own hold, which `reservation` shows.
    ...(credit ? { credit } : {}),
    ...(input.evaluate ? { creditQuote } : {}),
    ...(held ? { reservation: held.reservation } : {}),
  };
}

/**
 * `reserve: true` (ADR 0012): an allowed evaluate of a credit-backed feature holds the quoted credits
 * under its flow. Nothing is held for a denial, a feature without credits, a zero quote or a
 * subscription with no pool in the denomination (reservation null); a hard-limit pool that cannot
 * cover the quote under its lock refuses the hold, and the evaluate becomes a denial.
 */
async function holdForFlow(ctx: AppContext, accountId: string, c: repo.CheckContext, hasRule: boolean, allowed: boolean, credits: Decimal, flowId: string) {
  if (!allowed || !hasRule || !c.credit_denomination || !c.subscription_id || !c.feature_id || credits.lte(0)) return { reservation: null, refused: false };
  try {
    const reservation = await reserveForFlow(ctx, { accountId, customerId: c.customer_id, subscriptionId: c.subscription_id, denomination: c.credit_denomination, featureId: c.feature_id, flowId, amount: credits });
    return { reservation, refused: false };
  } catch (err) {
    if (err instanceof AppError && err.code === 'insufficient_credits') return { reservation: null, refused: true };
    if (err instanceof AppError && err.code === 'not_found') return { reservation: null, refused: false };
    throw err;
  }
}

/**
 * A customer's entitlements per active subscription (contract §4.9 `GET /entitlements/{ref}`), one
 * page. A customer key may list only its own customer. A subscription awaiting its first payment is
 * not active and has none (as the check answers NO_SUBSCRIPTION).
 */
export async function listEntitlementPage(ctx: AppContext, principal: Principal, ref: string | undefined, page: PageQuery) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const active = (await listCustomerSubscriptions(ctx.db, principal.accountId, customer.id)).filter((s) => s.is_active);
  const rules = await listRulesOfPlans(ctx.db, principal.accountId, [...new Set(active.map((s) => s.plan_id))]);
  const items = listSubscriptionEntitlements(
    active.map((s) => ({ id: s.id, planId: s.plan_id, entitlementsRevoked: s.entitlements_revoked })),
    rules.map((r) => ({ planId: r.plan_id, featureKey: r.feature_key, enabled: r.is_enabled })),
  );
  return toPage(items.slice(page.offset, page.offset + page.limit), items.length, page);
}
