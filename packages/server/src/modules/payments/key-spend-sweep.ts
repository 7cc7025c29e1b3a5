import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import type { JobContext } from '../../platform/jobs/scheduler.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { dec } from '../../platform/money.js';
import { findInvoice } from '../billing/index.js';
import {
  listStaleKeySpends,
  listStaleMandateSpends,
  openHostedKeySpend,
  releaseKeySpend,
  releaseMandateSpend,
  settleKeySpend,
  settleMandateSpend,
} from '../customers/index.js';
import * as repo from './repo.js';

/** A reservation older than this is settled or given back by the sweep (api-contract-agent-v2.md §2.6, §7). */
export const RESERVATION_STALE_MS = 15 * 60 * 1000;
const PAGE = 500;

/**
 * The spend reservation sweep (every 5 minutes): an off-session reservation still PENDING after 15
 * minutes (the request died between its commit and the processor's answer), of a key's budget or of
 * the customer's spend mandate, is settled against what the processor told us since, through the
 * charge it reserved for (a credit purchase, a paid subscribe's invoice, or, where the processor
 * drives billing, the subscribe's processor subscription: the reservation's id is theirs). Paid (the webhook or a retry completed it) settles it; anything else gives it back. A
 * charge still waiting (no answer at all, or a hosted page since) leaves the key an uncounted OPEN
 * spend, which the payment's webhook counts if it went through; the mandate never counts what was
 * not confirmed off-session. One reservation per transaction; a failure is logged and retried next run.
 */
export async function sweepSpendReservations(ctx: AppContext, { now, log }: Pick<JobContext, 'now' | 'log'>): Promise<void> {
  const before = new Date(now.getTime() - RESERVATION_STALE_MS);
  for (const spend of await listStaleKeySpends(ctx.db, before, PAGE)) {
    await sweepOne(log, spend, () =>
      withTransaction(ctx.db, async (tx) => {
        const outcome = await chargeOutcome(tx, spend.account_id, spend.id);
        if (outcome === 'paid') return settleKeySpend(tx, spend.account_id, spend.id, now);
        await releaseKeySpend(tx, spend.account_id, spend.id, now);
        if (outcome === 'waiting') await openHostedKeySpend(tx, { accountId: spend.account_id, keyId: spend.key_id, id: spend.id, amount: dec(spend.amount), now });
      }),
    );
  }
  for (const spend of await listStaleMandateSpends(ctx.db, before, PAGE)) {
    await sweepOne(log, spend, () =>
      withTransaction(ctx.db, async (tx) => {
        if ((await chargeOutcome(tx, spend.account_id, spend.id)) === 'paid') return settleMandateSpend(tx, spend.account_id, spend.id, now);
        await releaseMandateSpend(tx, spend.account_id, spend.id);
      }),
    );
  }
}

async function sweepOne(log: JobContext['log'], spend: { account_id: string; id: string }, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    log.error({ err, accountId: spend.account_id, spendId: spend.id }, 'spend reservation sweep item failed and was skipped');
  }
}

/**
 * What became of the charge a reservation was for: its credit purchase (locked, the lock its
 * completion takes first), its subscribe's invoice, or its processor subscribe's row (read, not
 * locked: the link locks it after the spend). `waiting`: not answered or in a hosted page.
 */
async function chargeOutcome(tx: Tx, accountId: string, id: string): Promise<'paid' | 'waiting' | 'gone'> {
  const purchase = await repo.lockPurchase(tx, accountId, id);
  if (purchase) return purchase.status === 'SUCCEEDED' ? 'paid' : purchase.status === 'PENDING' || purchase.status === 'CHECKOUT' ? 'waiting' : 'gone';
  const invoice = await findInvoice(tx, accountId, id);
  if (invoice) return invoice.status === 'PAID' ? 'paid' : invoice.status === 'DUE' ? 'waiting' : 'gone';
  const subscribe = await repo.findProcessorSubscription(tx, accountId, id);
  if (subscribe) return subscribe.status === 'LINKED' ? 'paid' : subscribe.status === 'PENDING' ? 'waiting' : 'gone';
  return 'gone';
}
