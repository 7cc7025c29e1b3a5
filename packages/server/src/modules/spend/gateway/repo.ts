import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { ConnectionRow } from '../connections/repo.js';
import type { RuleRow } from '../units/repo.js';
import { tenantRows } from '../../../platform/db/tenant-row.js';

/** The unit's own LiteLLM rules in matching order (priority, then creation). */
export function listUnitLiteLlmRules(db: Executor, accountId: string, unitId: string): Promise<RuleRow[]> {
  return tenantRows(db, 'spend_rules', accountId)
    .where('spend_unit_id', '=', unitId)
    .where('provider', '=', 'LITELLM')
    .orderBy('priority')
    .orderBy('created_seq')
    .execute();
}

/** The account's gateway: its oldest live LITELLM connection that holds a key, or undefined. */
export function findGatewayConnection(db: Executor, accountId: string): Promise<ConnectionRow | undefined> {
  return tenantRows(db, 'spend_connections', accountId)
    .where('provider', '=', 'LITELLM')
    .where('deleted_at', 'is', null)
    .where('admin_key_sealed', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/**
 * LiteLLM's own per-request spend (synced from its spend logs, in cents) for the unit's LiteLLM
 * rules over [from, to): each bucket once, however many rules match it.
 */
export async function syncedGatewayCents(db: Executor, accountId: string, unitId: string, from: string, to: string): Promise<string | null> {
  const { rows } = await sql<{ cents: string | null }>`
    select sum(b.vendor_cost_cents) as cents from spend_usage_buckets b
     where b.account_id = ${accountId} and b.provider = 'LITELLM' and b.day >= ${from}::date and b.day < ${to}::date
       and exists (select 1 from spend_rules r where r.account_id = ${accountId} and r.spend_unit_id = ${unitId} and r.provider = 'LITELLM'
           and ((r.match_kind = 'WORKSPACE_ID' and r.match_value = b.workspace_id) or (r.match_kind = 'API_KEY_ID' and r.match_value = b.api_key_id)
             or (r.match_kind = 'ACTOR' and r.match_value = b.actor)))`.execute(db);
  return rows[0]?.cents ?? null;
}

/** Units of the account with a budget and at least one LiteLLM rule. */
export async function listGatewayBudgetUnits(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('spend_budgets as b')
    .select('b.spend_unit_id')
    .where('b.account_id', '=', accountId)
    .where((eb) => eb.exists(eb.selectFrom('spend_rules as r').select('r.id').whereRef('r.spend_unit_id', '=', 'b.spend_unit_id').where('r.account_id', '=', accountId).where('r.provider', '=', 'LITELLM')))
    .orderBy('b.spend_unit_id')
    .execute();
  return rows.map((r) => r.spend_unit_id);
}

/** Units whose last gateway push (or its absence) is recorded as an error. */
export async function listFailedEnforcementUnits(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('spend_budgets')
    .select('spend_unit_id')
    .where('account_id', '=', accountId)
    .where('enforcement_error', 'is not', null)
    .orderBy('spend_unit_id')
    .execute();
  return rows.map((r) => r.spend_unit_id);
}
