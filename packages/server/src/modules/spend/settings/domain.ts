import { invalid } from '../../../platform/errors/app-error.js';

/**
 * Spend settings rules (contract §7.3), pure: the stored settings merged with a PUT, every rule
 * checked on the merged result. Secrets arrive in plain here and are sealed by the service.
 */
export type SpendSettings = {
  personLevelEnabled: boolean;
  workerNotice: string | null;
  slackWebhookUrl: string | null;
  webhookUrl: string | null;
  webhookSecret: string | null;
  alertEmails: string | null;
  digestEnabled: boolean;
};

/** A PUT: absent or null leaves a field alone; "" removes a secret; a blank notice clears it. */
export type SpendSettingsPatch = { [K in keyof SpendSettings]?: SpendSettings[K] | null };

export const WORKER_NOTICE_REQUIRED =
  'Write the worker notice before enabling person-level attribution — staff should know spend is attributed to them by name';

export const DEFAULT_SPEND_SETTINGS: SpendSettings = {
  personLevelEnabled: false,
  workerNotice: null,
  slackWebhookUrl: null,
  webhookUrl: null,
  webhookSecret: null,
  alertEmails: null,
  digestEnabled: false,
};

/**
 * The settings after `patch`. The generic webhook URL is checked by the outbound-URL guard
 * before this (it needs DNS); everything else is checked here.
 */
export function applySpendSettingsPatch(current: SpendSettings, patch: SpendSettingsPatch, slackWebhookBase: string): SpendSettings {
  const next = { ...current };
  if (patch.personLevelEnabled != null) next.personLevelEnabled = patch.personLevelEnabled;
  if (patch.digestEnabled != null) next.digestEnabled = patch.digestEnabled;
  if (patch.workerNotice != null) next.workerNotice = patch.workerNotice.trim() === '' ? null : patch.workerNotice.trim();
  if (patch.slackWebhookUrl != null) next.slackWebhookUrl = toSlackWebhookUrl(patch.slackWebhookUrl, slackWebhookBase);
  if (patch.webhookUrl != null) next.webhookUrl = patch.webhookUrl.trim() === '' ? null : patch.webhookUrl.trim();
  if (patch.webhookSecret != null) next.webhookSecret = patch.webhookSecret === '' ? null : patch.webhookSecret;
  if (patch.alertEmails != null) next.alertEmails = normaliseAlertEmails(patch.alertEmails);
  if (next.personLevelEnabled && !next.workerNotice) throw invalid(WORKER_NOTICE_REQUIRED);
  return next;
}

function toSlackWebhookUrl(raw: string, base: string): string | null {
  const url = raw.trim();
  if (url === '') return null;
  if (!url.startsWith(base) || /\s/.test(url)) throw invalid(`That is not a Slack incoming webhook URL (expected ${base}…)`);
  return url;
}

/** "a@x.com ,b@y.com," → "a@x.com, b@y.com"; blank → null; an entry without @ is refused. */
export function normaliseAlertEmails(raw: string): string | null {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries) if (!entry.includes('@')) throw invalid(`Not an email address: ${entry}`);
  const unique = entries.filter((e, i) => entries.findIndex((o) => o.toLowerCase() === e.toLowerCase()) === i);
  return unique.length === 0 ? null : unique.join(', ');
}
