import { findPlan } from '../catalog/index.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { toUniqueConflict, UNIQUE_CONSTRAINTS } from '../../platform/db/errors.js';
import { toJsonb } from '../../platform/db/jsonb.js';
import type { StripeMode } from './tables.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { invalid } from '../../platform/errors/app-error.js';
import { newId } from '../../platform/ids.js';
import { dec } from '../../platform/money.js';
import {
  auditEntries,
  checkPatchFields,
  mergeSettings,
  planToCheck,
  toAccountSettings,
  type AccountSettings,
  type AuditEntry,
  type PlanFacts,
  type SettingsPatch,
  type SettingsProblem,
} from './domain.js';
import * as repo from './repo.js';

export type { AuditLogRow } from './repo.js';

/** The account's settings, defaults filled in for an account that never saved any. */
export async function getAccountSettings(db: Executor, accountId: string): Promise<AccountSettings> {
  return toAccountSettings(accountId, await repo.findSettingsRow(db, accountId));
}

/** The settings of the account publishing this slug, or null (slugs are stored trimmed, lower-cased). */
export async function findAccountSettingsBySlug(db: Executor, slug: string): Promise<AccountSettings | null> {
  const row = await repo.findSettingsRowBySlug(db, slug.trim().toLowerCase());
  return row ? toAccountSettings(row.account_id, row) : null;
}

/**
 * Locks the account's settings row for the rest of the transaction and returns the settings; null
 * when the account never saved settings (then nothing agent-facing is enabled). Agent signups take
 * this lock around their cap count and insert.
 */
export async function lockAccountSettings(tx: Executor, accountId: string): Promise<AccountSettings | null> {
  const row = await repo.lockSettingsRow(tx, accountId);
  return row ? toAccountSettings(accountId, row) : null;
}

const refused = (problem: SettingsProblem) => invalid(problem.message, { fields: [problem] });

type UpdateAccountSettingsInput = {
  accountId: string;
  /** Who is changing them, for the audit log: `user:<userId>`. */
  actor: string;
  patch: SettingsPatch;
};

/**
 * PATCH: only the fields sent change. The row is written (defaults) if missing, then locked; the
 * rules run on the stored state merged with the patch under that lock, so concurrent PATCHes
 * cannot together reach a state each alone was refused (catalog without slug, signup without a
 * plan). The settings, and the audit rows of what changed, commit together or not at all.
 */
export async function updateAccountSettings(ctx: AppContext, input: UpdateAccountSettingsInput): Promise<AccountSettings> {
  const checked = checkPatchFields(input.patch);
  if ('problem' in checked) throw refused(checked.problem);
  const { accountId } = input;
  try {
    return await withTransaction(ctx.db, async (tx) => {
      const now = ctx.clock.now();
      const current = await lockOrCreate(tx, accountId, now);
      const planId = planToCheck(current, checked.patch);
      const plan = planId === null ? undefined : toPlanFacts(await findPlan(tx, accountId, planId));
      const merged = mergeSettings(current, checked.patch, plan);
      if ('problem' in merged) throw refused(merged.problem);
      return write(tx, current, merged.next, input.actor, now);
    });
  } catch (err) {
    throw toUniqueConflict(err, {
      [UNIQUE_CONSTRAINTS.accountSlug]: `Slug '${checked.patch.slug}' is already used by another account`,
    });
  }
}

/**
 * Sets the payment-processor mode inside the caller's transaction and audit-logs a change (e.g.
 * deleting the processor keys resets it to NONE, actor `user:<id>`). Returns the settings after.
 */
export async function setStripeMode(tx: Tx, accountId: string, mode: StripeMode, actor: string, now: Date): Promise<AccountSettings> {
  const current = await lockOrCreate(tx, accountId, now);
  if (current.stripeMode === mode) return current;
  return write(tx, current, { ...current, stripeMode: mode }, actor, now);
}

/** The account's audit log, newest first, at most `limit` entries. */
export async function listAuditLog(ctx: AppContext, accountId: string, limit: number) {
  return repo.listAuditRows(ctx.db, accountId, limit);
}

async function lockOrCreate(tx: Tx, accountId: string, now: Date): Promise<AccountSettings> {
  // The defaults, written the way GET shows them for an account without a row.
  await repo.ensureSettingsRow(tx, { account_id: accountId, ...toColumns(toAccountSettings(accountId, undefined)), created_at: now, modified_at: now });
  return toAccountSettings(accountId, await repo.lockSettingsRow(tx, accountId));
}

async function write(tx: Tx, before: AccountSettings, after: AccountSettings, actor: string, now: Date): Promise<AccountSettings> {
  const row = await repo.updateSettingsRow(tx, before.accountId, { ...toColumns(after), modified_at: now });
  await repo.insertAuditRows(tx, auditEntries(before, after).map((entry) => toAuditRow(before.accountId, actor, entry, now)));
  return toAccountSettings(before.accountId, row);
}

function toColumns(s: AccountSettings) {
  return {
    slug: s.slug,
    public_catalog_enabled: s.publicCatalogEnabled,
    agent_signup_enabled: s.agentSignupEnabled,
    agent_signup_default_plan_id: s.agentSignupDefaultPlanId,
    agent_signup_hourly_cap: s.agentSignupHourlyCap,
    agent_max_topup_amount: s.agentMaxTopupAmount?.toFixed() ?? null,
    agent_provisional_days: s.agentProvisionalDays,
    agent_signup_per_ip_cap: s.agentSignupPerIpCap,
    agent_spend_mandate_enabled: s.agentSpendMandateEnabled,
    agent_max_mandate_amount: s.agentMaxMandateAmount?.toFixed() ?? null,
    stripe_mode: s.stripeMode,
    currency: s.currency,
    stripe_checkout_success_url: s.stripeCheckoutSuccessUrl,
    stripe_checkout_cancel_url: s.stripeCheckoutCancelUrl,
    default_cost_config: s.defaultCostConfig === null ? null : toJsonb(s.defaultCostConfig),
    usage_threshold_percents: s.usageThresholdPercents,
    invoice_number_prefix: s.invoiceNumberPrefix,
    legal_name: s.legalName,
    address_lines: s.addressLines,
    tax_id: s.taxId,
    contact_email: s.contactEmail,
  };
}

function toAuditRow(accountId: string, actor: string, entry: AuditEntry, now: Date) {
  return { id: newId(now.getTime()), account_id: accountId, actor, action: entry.action, details: toJsonb(entry.details), created_at: now };
}

function toPlanFacts(row: Awaited<ReturnType<typeof findPlan>>): PlanFacts {
  return row ? { status: row.status, priceAmount: row.price_amount === null ? null : dec(row.price_amount) } : null;
}

/**
 * Appends one entry to the account's audit log: who (`user:<id>`, `system`) did what. Called inside
 * the transaction of the change it records where there is one (operators, settings), so a refused
 * change records nothing.
 */
export async function recordAudit(db: Executor, entry: { accountId: string; actor: string; action: string; details: Record<string, unknown>; now: Date }) {
  await repo.insertAuditRows(db, [{ id: newId(entry.now.getTime()), account_id: entry.accountId, actor: entry.actor, action: entry.action, details: toJsonb(entry.details), created_at: entry.now }]);
}
