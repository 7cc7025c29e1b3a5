import { createHmac } from 'node:crypto';
import { stringifyJson } from '../../../platform/http/json.js';
import { dec, isDecimal, type Decimal } from '../../../platform/money.js';
import type { SpendDeliveryChannel, SpendEventType } from '../tables.js';
import { dollarText } from '../budgets/domain.js';

/**
 * Outbound spend deliveries (contract §7.6), the pure part: what each channel sends for an event,
 * the generic webhook's signatures, which failures are worth retrying and when. No I/O, no clock.
 */

export type { SpendDeliveryChannel, SpendEventType };

/** The event a channel renders: its type and the object it carries (an Alert or a Digest as the API shows it). */
export type SpendEvent = { accountId: string; type: SpendEventType; payload: Record<string, unknown> };

/** A channel's outcome in the digest's `delivery` and the test route (contract §7.1 "digest delivery"). */
export type ChannelOutcome = 'SENT' | 'FAILED' | 'NOT_CONFIGURED';

/** Attempts per delivery row, the first included; after the last failure the row stays FAILED. */
export const MAX_DELIVERY_ATTEMPTS = 5;

/** Minutes to wait after the n-th failed attempt (1-based) before the next one. */
const RETRY_DELAY_MINUTES = [1, 5, 15, 60];

/** When the next attempt is due after `attempts` failed ones, or null when the row gives up. */
export function nextAttemptAfter(attempts: number, failedAt: Date, retryable: boolean): Date | null {
  if (!retryable || attempts >= MAX_DELIVERY_ATTEMPTS) return null;
  const minutes = RETRY_DELAY_MINUTES[Math.min(attempts, RETRY_DELAY_MINUTES.length) - 1] ?? 1;
  return new Date(failedAt.getTime() + minutes * 60_000);
}

/**
 * Whether an HTTP answer is worth another attempt: 408, 429 and 5xx are (the receiver may recover);
 * every other 4xx is a permanent refusal (vendor-apis.md §7.1: a revoked Slack hook stays revoked).
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The channel key of a channel in the `delivery` object. */
export const CHANNEL_KEYS: Record<SpendDeliveryChannel, 'slack' | 'webhook' | 'email'> = { SLACK: 'slack', WEBHOOK: 'webhook', EMAIL: 'email' };

const PAYLOAD_KEY: Record<SpendEventType, 'alert' | 'digest' | 'test'> = { 'spend.alert': 'alert', 'spend.digest': 'digest', 'spend.test': 'test' };

/** The generic webhook's JSON body: `{ type, accountId, alert | digest }` (contract §7.6), exact numbers. */
export function webhookBody(event: SpendEvent): string {
  return stringifyJson({ type: event.type, accountId: event.accountId, [PAYLOAD_KEY[event.type]]: event.payload });
}

/** hex HMAC-SHA256 of `data` under `secret`. */
export function hmacHex(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data, 'utf8').digest('hex');
}

/**
 * The generic webhook's headers: the event type, the unix timestamp and, with a secret, the spec's
 * `X-Service-Signature: sha256=<hmac(body)>` and ours, `X-Service-Signature-V2: t=<ts>,v1=<hmac("<ts>.<body>")>`,
 * which lets a receiver refuse a replayed request by its age. `deliveryId` lets it drop a retry it already took.
 */
export function webhookHeaders(input: { type: SpendEventType; body: string; secret: string | null; timestampSeconds: number; deliveryId: string }): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-service-event': input.type,
    'x-service-timestamp': String(input.timestampSeconds),
    'x-service-delivery': input.deliveryId,
  };
  if (input.secret) {
    headers['x-service-signature'] = `sha256=${hmacHex(input.secret, input.body)}`;
    headers['x-service-signature-v2'] = `t=${input.timestampSeconds},v1=${hmacHex(input.secret, `${input.timestampSeconds}.${input.body}`)}`;
  }
  return headers;
}

const DIGEST_ROWS_SHOWN = 10;

/** The chat text: one line per alert; a digest as a few lines (totals, then the top units). */
export function slackText(event: SpendEvent): string {
  if (event.type === 'spend.alert') return oneLine(textOf(event.payload.message) ?? 'A spend alert fired.');
  if (event.type === 'spend.test') return oneLine(textOf(event.payload.message) ?? 'Test message');
  return digestLines(event.payload).join('\n');
}

/** The e-mail's subject and plain-text body. */
export function emailContent(event: SpendEvent): { subject: string; text: string } {
  if (event.type === 'spend.alert') {
    const unit = textOf(event.payload.unitName);
    const kind = textOf(event.payload.kind);
    return { subject: `Spend alert${kind ? ` (${kind})` : ''}${unit ? `: ${unit}` : ''}`, text: `${textOf(event.payload.message) ?? 'A spend alert fired.'}\n` };
  }
  if (event.type === 'spend.test') return { subject: 'Spend alerts: test message', text: `${textOf(event.payload.message) ?? 'Test message'}\n` };
  return { subject: `AI spend digest ${textOf(event.payload.from) ?? ''} to ${textOf(event.payload.to) ?? ''}`.trim(), text: `${digestLines(event.payload).join('\n')}\n` };
}

/** The digest in a few lines: the week against the week before, unattributed spend, alerts, the top units. */
export function digestLines(digest: Record<string, unknown>): string[] {
  const money = (v: unknown) => `$${dollarText(centsOf(v))}`;
  const lines = [
    `AI spend ${textOf(digest.from) ?? '?'} to ${textOf(digest.to) ?? '?'} (end exclusive): ${money(digest.totalCents)}, previous 7 days ${money(digest.previousTotalCents)}; unattributed ${money(digest.unattributedCents)}; alerts fired: ${textOf(digest.alertsFired) ?? '0'}.`,
  ];
  const rows = Array.isArray(digest.rows) ? (digest.rows as Record<string, unknown>[]) : [];
  for (const row of rows.slice(0, DIGEST_ROWS_SHOWN)) {
    const limit = row.monthlyLimitCents == null ? '' : ` of ${money(row.monthlyLimitCents)}`;
    const bump = textOf(row.bumpReason) ? ` (bump: ${oneLine(textOf(row.bumpReason)!)})` : '';
    lines.push(`• ${oneLine(textOf(row.name) ?? '?')}: ${money(row.cents)} (previous ${money(row.previousCents)}), month to date ${money(row.monthlySpentCents)}${limit}${bump}`);
  }
  if (rows.length > DIGEST_ROWS_SHOWN) lines.push(`… and ${rows.length - DIGEST_ROWS_SHOWN} more units`);
  return lines;
}

function centsOf(value: unknown): Decimal {
  if (isDecimal(value)) return value;
  if (typeof value === 'number' || typeof value === 'bigint' || (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)))) return dec(value);
  return dec(0);
}

function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (isDecimal(value)) return value.toFixed();
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
}

/** A chat line never breaks into two (one line per alert). */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
