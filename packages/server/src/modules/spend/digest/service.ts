import type { AppContext } from '../../../platform/context.js';
import type { Tx } from '../../../platform/db/database.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { recordEvent } from '../../../platform/events/outbox.js';
import { dec } from '../../../platform/money.js';
import { allocateWindows } from '../allocation/service.js';
import { countAlertsFired } from '../alerts/repo.js';
import { listBudgets } from '../budgets/repo.js';
import { enqueueSpendEvent, sendSpendEventNow, type DeliveryLog, type DeliveryOutcomes } from '../deliveries/service.js';
import { composeDigest, digestWindows, type Digest, type DigestBudget } from './domain.js';

/**
 * The weekly digest (contract §7.5, §7.6; README "Digest"): previewed (GET /digest), sent now with
 * each channel's outcome (POST /digest/send), and sent by the Monday 08:00 job to accounts that
 * turned it on, through the delivery outbox (retried like alerts).
 */

const midnight = (day: string) => new Date(`${day}T00:00:00Z`);

export async function getDigest(ctx: AppContext, accountId: string): Promise<Digest> {
  const now = ctx.clock.now();
  const windows = digestWindows(now);
  const { week, previousWeek, month } = await allocateWindows(ctx, accountId, windows);
  const [budgetRows, alertsFired] = await Promise.all([
    listBudgets(ctx.db, accountId),
    countAlertsFired(ctx.db, accountId, midnight(windows.week.from), midnight(windows.week.to)),
  ]);
  const budgets = new Map(budgetRows.map((b): [string, DigestBudget] => [b.spend_unit_id, {
    monthlyCents: b.monthly_cents === null ? null : dec(b.monthly_cents),
    bumpMonthlyCents: b.bump_monthly_cents === null ? null : dec(b.bump_monthly_cents),
    bumpExpiresAt: b.bump_expires_at,
    bumpReason: b.bump_reason,
  }]));
  return composeDigest({ week, previousWeek, month, ...windows.week, budgets, alertsFired, now });
}

/** POST /digest/send: the digest, sent once to each configured channel now, with each outcome. */
export async function sendDigest(ctx: AppContext, accountId: string, log: DeliveryLog): Promise<Digest & { delivery: DeliveryOutcomes }> {
  const digest = await getDigest(ctx, accountId);
  const delivery = await sendSpendEventNow(ctx, { accountId, type: 'spend.digest', payload: digest }, log, (tx) => recordDigest(ctx, tx, accountId, digest));
  return { ...digest, delivery };
}

/** The Monday job's step for one account: the digest into the outbox (sent after commit, retried on failure). */
export async function enqueueWeeklyDigest(ctx: AppContext, accountId: string, log: DeliveryLog): Promise<void> {
  const digest = await getDigest(ctx, accountId);
  await withTransaction(ctx.db, async (tx) => {
    await recordDigest(ctx, tx, accountId, digest);
    return enqueueSpendEvent(ctx, tx, { accountId, type: 'spend.digest', payload: digest }, log);
  });
}

/** spend.digest (api-contract-events.md §E5.9): once per send, in the send's transaction, the Digest without its channel outcomes. */
const recordDigest = (ctx: AppContext, tx: Tx, accountId: string, digest: Digest) =>
  recordEvent(tx, { accountId, type: 'spend.digest', object: digest, now: ctx.clock.now() });
