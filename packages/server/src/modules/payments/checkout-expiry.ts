import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/db/transaction.js';
import type { JobContext } from '../../platform/jobs/scheduler.js';
import { subscriptionCheckoutExpired } from './processor/apply.js';
import * as repo from './repo.js';

const PAGE = 500;

/**
 * A hosted checkout that lapsed unused becomes EXPIRED, under its lock, only while PENDING (a
 * completed one stays COMPLETED; a completion that arrives later still applies). Shared by
 * `checkout.session.expired` and the checkout-expiry job. Returns whether it expired.
 */
export async function expireCheckoutSession(tx: Tx, accountId: string, sessionId: string, now: Date): Promise<boolean> {
  const session = await repo.lockCheckoutSession(tx, accountId, sessionId);
  if (session?.status !== 'PENDING') return false;
  await repo.updateCheckoutSession(tx, accountId, session.id, { status: 'EXPIRED', modified_at: now });
  return true;
}

/**
 * The checkout-expiry job (hourly, api-contract-agent-v2.md §7): PENDING Checkout Sessions whose
 * processor expiry (`expires_at`) has passed become EXPIRED, for when `checkout.session.expired` was
 * missed; a processor-driven subscription waiting on one expires with it, as the event would do.
 * One session per transaction, across accounts, by id; a failure is logged and retried next run.
 */
export async function runCheckoutExpiry(ctx: AppContext, { now, log }: Pick<JobContext, 'now' | 'log'>): Promise<void> {
  let afterId: string | null = null;
  for (;;) {
    let q = ctx.db
      .selectFrom('checkout_sessions')
      .select(['account_id', 'id', 'purpose'])
      .where('status', '=', 'PENDING')
      .where('expires_at', '<=', now)
      .orderBy('id')
      .limit(PAGE);
    if (afterId !== null) q = q.where('id', '>', afterId);
    const lapsed = await q.execute();
    for (const s of lapsed) {
      try {
        await withTransaction(ctx.db, async (tx) => {
          if ((await expireCheckoutSession(tx, s.account_id, s.id, now)) && s.purpose === 'SUBSCRIPTION') await subscriptionCheckoutExpired(tx, s.account_id, s.id, now);
        });
      } catch (err) {
        log.error({ err, accountId: s.account_id, checkoutSessionId: s.id }, 'checkout expiry item failed and was skipped');
      }
    }
    if (lapsed.length < PAGE) return;
    afterId = lapsed[lapsed.length - 1]!.id;
  }
}
