import { sql, type RawBuilder } from 'kysely';
import type { AppContext } from '../../../platform/context.js';
import { defineExtension } from '../../../platform/hooks.js';

/**
 * Where auto top-up crosses into payments, against the dependency direction (payments imports
 * credits): payments provides both at startup (`payments/hooks.ts`).
 */

/**
 * Charges a PENDING attempt (money §2.4): run after the draw's transaction committed, in the process
 * that recorded it, outside any transaction. Until payments provides it, attempts wait for nothing
 * (the recovery job is payments' too).
 */
export const chargeAutoTopup = defineExtension('credits.charge_auto_topup', async (_ctx: AppContext, _accountId: string, _attemptId: string): Promise<void> => {});

/**
 * The account's agent spend cap (`agentMaxTopupAmount`, null: none) as a SQL expression over the
 * account id, read by the recording statement itself (no round trip of its own).
 */
export const autoTopupSpendCapSql = defineExtension('credits.auto_topup_spend_cap_sql', (_accountId: RawBuilder<unknown>): RawBuilder<unknown> => sql`null::numeric`);
