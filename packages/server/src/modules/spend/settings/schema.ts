import { z } from 'zod';

// Rules the contract words itself (worker notice, Slack prefix, e-mails, the outbound guard) are
// checked in settings/domain.ts / outbound-guard.ts so the 400 carries its exact message.

export const MAX_SETTINGS_URL_LENGTH = 2048;
export const MAX_WORKER_NOTICE_LENGTH = 10_000;

export const SpendSettingsPutSchema = z.object({
  personLevelEnabled: z.boolean().nullish().describe('Turning it on needs a worker notice (sent now or stored).'),
  workerNotice: z.string().max(MAX_WORKER_NOTICE_LENGTH).nullish().describe('What staff are told about person-level attribution; a blank string clears it.'),
  slackWebhookUrl: z
    .string()
    .max(MAX_SETTINGS_URL_LENGTH)
    .nullish()
    .describe('Chat incoming-webhook URL; must start with APP_SPEND_SLACK_WEBHOOK_BASE (https://hooks.slack.com/). Encrypted, never returned; "" removes it.'),
  webhookUrl: z
    .string()
    .max(MAX_SETTINGS_URL_LENGTH)
    .nullish()
    .describe('Generic webhook, http(s) only, checked by the outbound-URL guard (no credentials, must resolve, no loopback / link-local / unspecified address, private ranges per APP_SPEND_OUTBOUND_ALLOW_PRIVATE). Encrypted; "" removes it.'),
  webhookSecret: z.string().max(1024).nullish().describe('HMAC signing secret of the generic webhook. Encrypted; "" removes it.'),
  alertEmails: z.string().max(4096).nullish().describe('Comma-separated; each entry must contain @. Normalised to "a@x.com, b@y.com"; blank clears it.'),
  digestEnabled: z.boolean().nullish().describe('Weekly digest, Monday 08:00 UTC.'),
});

export const SpendSettingsSchema = z
  .object({
    personLevelEnabled: z.boolean(),
    workerNotice: z.string().nullable(),
    slackConfigured: z.boolean(),
    webhookConfigured: z.boolean(),
    webhookSigned: z.boolean().describe('A webhook signing secret is stored'),
    alertEmails: z.string().nullable(),
    digestEnabled: z.boolean(),
  })
  .meta({ id: 'SpendSettings' });
