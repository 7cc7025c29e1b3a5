import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { JOB_PAGE_SIZE, JobItems } from '../../platform/jobs/items.js';
import type { Job } from '../../platform/jobs/scheduler.js';
import { revokeAllCustomerKeys } from '../accounts/index.js';
import { expireProvisional, listExpiredProvisional } from '../customers/index.js';

/** The agents module's scheduled jobs (api-contract-agent-v2.md §7); once per slot across nodes (the scheduler's claim). */
export function agentJobs(ctx: AppContext): Job[] {
  return [{ name: 'agent-expiry', cron: '30 3 * * *', run: ({ now }) => runAgentExpiry(ctx, now) }];
}

/**
 * §4.7: each provisional customer past `expires_at` becomes expired and its active keys are
 * revoked, one customer per transaction. The flip is conditional on the customer still being
 * provisional, so a payment that claimed it first wins; a failing customer is skipped and
 * reported, the others go on (platform/jobs/items.ts).
 */
export async function runAgentExpiry(ctx: AppContext, now: Date): Promise<void> {
  const items = new JobItems();
  await items.each('provisional customer', (after) => listExpiredProvisional(ctx.db, now, after, JOB_PAGE_SIZE), (c) =>
    withTransaction(ctx.db, async (tx) => {
      if (await expireProvisional(tx, c.account_id, c.id, now)) await revokeAllCustomerKeys(tx, ctx.cache, { accountId: c.account_id, customerId: c.id, now });
    }),
  );
  items.finish();
}
