import type { AppContext } from '../../../platform/context.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { assertOutboundUrl, outboundPolicyOf, type Resolver } from '../../../platform/http/outbound-guard.js';
import { applySpendSettingsPatch, DEFAULT_SPEND_SETTINGS, type SpendSettings, type SpendSettingsPatch } from './domain.js';
import { findSpendSettingsRow, lockSpendSettingsRow, updateSpendSettingsRow, type SpendSettingsRow } from './repo.js';

/**
 * Spend settings (contract §7.3). Secrets (chat webhook URL, generic webhook URL and its signing
 * secret) are sealed bound to the account and field; reads say only whether each is configured.
 */
type SecretField = 'slack_webhook_url' | 'webhook_url' | 'webhook_secret';
const sealContext = (accountId: string, field: SecretField) => `spend_settings:${accountId}:${field}`;

/** What GET and PUT answer: secrets only as "configured". */
export type SpendSettingsView = {
  personLevelEnabled: boolean;
  workerNotice: string | null;
  slackConfigured: boolean;
  webhookConfigured: boolean;
  webhookSigned: boolean;
  alertEmails: string | null;
  digestEnabled: boolean;
};

export async function getSpendSettingsView(ctx: AppContext, accountId: string): Promise<SpendSettingsView> {
  const row = await findSpendSettingsRow(ctx.db, accountId);
  return row ? toView(row) : toView(null);
}

/**
 * The account's settings with secrets opened, for the alert and digest deliveries (part 2);
 * defaults when it never saved any.
 */
export async function getSpendSettings(ctx: AppContext, accountId: string): Promise<SpendSettings> {
  const row = await findSpendSettingsRow(ctx.db, accountId);
  return row ? fromRow(ctx, row) : { ...DEFAULT_SPEND_SETTINGS };
}

/**
 * Applies a PUT: the webhook URL passes the outbound-URL guard first (DNS, outside the
 * transaction), then the row is locked and the merged settings checked and written.
 */
export async function updateSpendSettings(ctx: AppContext, accountId: string, patch: SpendSettingsPatch, resolve?: Resolver): Promise<SpendSettingsView> {
  if (patch.webhookUrl != null && patch.webhookUrl.trim() !== '') await assertOutboundUrl('webhookUrl', patch.webhookUrl.trim(), outboundPolicyOf(ctx.config), resolve);
  const now = ctx.clock.now();
  const row = await withTransaction(ctx.db, async (tx) => {
    const current = fromRow(ctx, await lockSpendSettingsRow(tx, accountId, now));
    const next = applySpendSettingsPatch(current, patch, ctx.config.spend.slackWebhookBase);
    const seal = (value: string | null, field: SecretField) => (value === null ? null : ctx.secrets.seal(value, sealContext(accountId, field)));
    return updateSpendSettingsRow(tx, accountId, {
      person_level_enabled: next.personLevelEnabled,
      worker_notice: next.workerNotice,
      slack_webhook_url_sealed: seal(next.slackWebhookUrl, 'slack_webhook_url'),
      webhook_url_sealed: seal(next.webhookUrl, 'webhook_url'),
      webhook_secret_sealed: seal(next.webhookSecret, 'webhook_secret'),
      alert_emails: next.alertEmails,
      digest_enabled: next.digestEnabled,
      modified_at: now,
    });
  });
  return toView(row);
}

function fromRow(ctx: AppContext, row: SpendSettingsRow): SpendSettings {
  const open = (sealed: string | null, field: SecretField) => (sealed === null ? null : ctx.secrets.open(sealed, sealContext(row.account_id, field)));
  return {
    personLevelEnabled: row.person_level_enabled,
    workerNotice: row.worker_notice,
    slackWebhookUrl: open(row.slack_webhook_url_sealed, 'slack_webhook_url'),
    webhookUrl: open(row.webhook_url_sealed, 'webhook_url'),
    webhookSecret: open(row.webhook_secret_sealed, 'webhook_secret'),
    alertEmails: row.alert_emails,
    digestEnabled: row.digest_enabled,
  };
}

function toView(row: SpendSettingsRow | null): SpendSettingsView {
  return {
    personLevelEnabled: row?.person_level_enabled ?? false,
    workerNotice: row?.worker_notice ?? null,
    slackConfigured: row?.slack_webhook_url_sealed != null,
    webhookConfigured: row?.webhook_url_sealed != null,
    webhookSigned: row?.webhook_secret_sealed != null,
    alertEmails: row?.alert_emails ?? null,
    digestEnabled: row?.digest_enabled ?? false,
  };
}
