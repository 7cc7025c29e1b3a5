import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../../platform/context.js';
import type { Tx } from '../../../platform/db/database.js';
import { afterCommit, withTransaction } from '../../../platform/db/transaction.js';
import { parseJsonb } from '../../../platform/db/jsonb.js';
import { recipientsOf, sendEmail, sendSlack, sendWebhook, type SendResult } from './channels.js';
import { CHANNEL_KEYS, nextAttemptAfter, type ChannelOutcome, type SpendDeliveryChannel, type SpendEvent } from './domain.js';
import * as repo from './repo.js';
import { getSpendSettings } from '../settings/service.js';
import type { SpendSettings } from '../settings/domain.js';
import { findSpendSettingsRow } from '../settings/repo.js';

/**
 * Outbound spend deliveries (contract §7.6; README "Deliveries"). An event (`spend.alert`,
 * `spend.digest`) becomes one outbox row per configured channel, written in the caller's
 * transaction, so a delivery exists exactly when its alert or digest commits. After commit each row
 * is attempted once; the `spend-delivery-retry` job attempts due FAILED (and never-attempted) rows
 * with backoff up to MAX_DELIVERY_ATTEMPTS. A delivery never changes or re-fires its alert.
 */

export type DeliveryLog = Pick<FastifyBaseLogger, 'info' | 'warn'>;

/** Per channel in the API's wording: `{ slack, webhook, email }`. */
export type DeliveryOutcomes = { slack: ChannelOutcome; webhook: ChannelOutcome; email: ChannelOutcome };

/** While an attempt runs, its row is not due again; long after the attempt's own timeout. */
const LEASE_MS = 5 * 60_000;
/** Rows of one account attempted at once. */
const PARALLEL_SENDS = 8;
/** Rows one run of the retry job attempts at most (the rest wait for the next minute). */
const RETRY_BATCH = 500;

/** The channels an account's settings configure (secrets only tested for presence). */
function configuredChannels(row: { slack_webhook_url_sealed: string | null; webhook_url_sealed: string | null; alert_emails: string | null } | undefined): SpendDeliveryChannel[] {
  if (!row) return [];
  const channels: SpendDeliveryChannel[] = [];
  if (row.slack_webhook_url_sealed) channels.push('SLACK');
  if (row.webhook_url_sealed) channels.push('WEBHOOK');
  if (row.alert_emails) channels.push('EMAIL');
  return channels;
}

const pendingAfterCommit = new WeakMap<Tx, string[]>();

/**
 * Records an event for delivery INSIDE the caller's transaction `tx` (an alert's or digest's): one
 * PENDING row per configured channel. After `tx` commits, the rows are attempted (one after-commit
 * callback per transaction, however many events it enqueued); a failure is recorded on its row and
 * retried by the job, never thrown to the caller. A rolled-back `tx` sends nothing. Returns the row ids.
 */
export async function enqueueSpendEvent(ctx: AppContext, tx: Tx, event: SpendEvent, log: DeliveryLog): Promise<string[]> {
  return enqueueSpendEvents(ctx, tx, { accountId: event.accountId, type: event.type, payloads: [event.payload] }, log);
}

/**
 * `enqueueSpendEvent` for several events of one account and type at once (an evaluation's alerts):
 * the settings are read once and the rows written in one statement per thousand.
 */
export async function enqueueSpendEvents(ctx: AppContext, tx: Tx, events: { accountId: string; type: SpendEvent['type']; payloads: Record<string, unknown>[] }, log: DeliveryLog): Promise<string[]> {
  if (events.payloads.length === 0) return [];
  const channels = configuredChannels(await findSpendSettingsRow(tx, events.accountId));
  const rows = await repo.insertEventDeliveries(tx, { ...events, channels, now: ctx.clock.now() });
  if (rows.length === 0) return [];
  let ids = pendingAfterCommit.get(tx);
  if (!ids) {
    const batch: string[] = [];
    pendingAfterCommit.set(tx, (ids = batch));
    afterCommit(tx, 'spend-deliveries', () => attemptDeliveries(ctx, batch, log));
  }
  ids.push(...rows.map((r) => r.id));
  return rows.map((r) => r.id);
}

/**
 * Sends an event now and answers each channel's outcome (`POST /digest/send`, the test message): rows
 * are recorded (committed before any call), each attempted once; a failure is final here (the operator
 * sees it and may send again), so the job never sends it later behind their back.
 */
export async function sendSpendEventNow(ctx: AppContext, event: SpendEvent, log: DeliveryLog, alsoInTransaction?: (tx: Tx) => Promise<unknown>): Promise<DeliveryOutcomes> {
  const rows = await withTransaction(ctx.db, async (tx) => {
    await alsoInTransaction?.(tx);
    return repo.insertDeliveries(tx, { accountId: event.accountId, type: event.type, payload: event.payload, channels: configuredChannels(await findSpendSettingsRow(tx, event.accountId)), now: ctx.clock.now() });
  });
  const results = await attemptDeliveries(ctx, rows.map((r) => r.id), log, { finalAttempt: true });
  const outcomes: DeliveryOutcomes = { slack: 'NOT_CONFIGURED', webhook: 'NOT_CONFIGURED', email: 'NOT_CONFIGURED' };
  for (const row of rows) outcomes[CHANNEL_KEYS[row.channel]] = results.get(row.id) ? 'SENT' : 'FAILED';
  return outcomes;
}

/** The retry job: attempts every row due now (failed with attempts left, or never attempted), oldest first. */
export async function retryDueDeliveries(ctx: AppContext, log: DeliveryLog): Promise<{ attempted: number; sent: number }> {
  const ids = await repo.dueDeliveryIds(ctx.db, ctx.clock.now(), RETRY_BATCH);
  const results = await attemptDeliveries(ctx, ids, log);
  return { attempted: results.size, sent: [...results.values()].filter(Boolean).length };
}

/** How long finished deliveries stay listed before the daily purge removes them. */
export const DELIVERY_RETENTION_DAYS = 30;

/** The daily purge: finished rows older than DELIVERY_RETENTION_DAYS (rows still due are kept). */
export function purgeOldDeliveries(ctx: AppContext): Promise<number> {
  return repo.purgeFinishedDeliveries(ctx.db, new Date(ctx.clock.now().getTime() - DELIVERY_RETENTION_DAYS * 86_400_000));
}

/**
 * Claims the rows (those another node holds or that are done are skipped), sends each through its
 * channel with the account's current settings, and records the outcome. Returns id → sent, for the
 * rows this call attempted.
 */
export async function attemptDeliveries(ctx: AppContext, ids: string[], log: DeliveryLog, options: { finalAttempt?: boolean } = {}): Promise<Map<string, boolean>> {
  const now = ctx.clock.now();
  const rows = await repo.claimDeliveries(ctx.db, ids, now, new Date(now.getTime() + LEASE_MS));
  const settingsOf = new Map<string, Promise<SpendSettings>>();
  const results = new Map<string, boolean>();
  await forEachLimited(rows, PARALLEL_SENDS, async (row) => {
    let settings = settingsOf.get(row.account_id);
    if (!settings) settingsOf.set(row.account_id, (settings = getSpendSettings(ctx, row.account_id)));
    const result = await send(ctx, row, await settings).catch((err: unknown): SendResult => ({ ok: false, error: `delivery failed: ${(err as Error).name}`, retryable: true }));
    const at = ctx.clock.now();
    const context = { accountId: row.account_id, deliveryId: row.id, type: row.event_type, channel: row.channel, attempt: row.attempts };
    if (result.ok) {
      await repo.markDeliverySent(ctx.db, row.id, at);
      log.info(context, 'spend delivery sent');
    } else {
      const next = options.finalAttempt ? null : nextAttemptAfter(row.attempts, at, result.retryable);
      await repo.markDeliveryFailed(ctx.db, row.id, result.error, next);
      log.warn({ ...context, error: result.error, nextAttemptAt: next }, 'spend delivery failed');
    }
    results.set(row.id, result.ok);
  });
  return results;
}

function send(ctx: AppContext, row: repo.SpendDeliveryRow, settings: SpendSettings): Promise<SendResult> {
  const event: SpendEvent = { accountId: row.account_id, type: row.event_type, payload: payloadOf(row) };
  const removed: SendResult = { ok: false, error: `The ${CHANNEL_KEYS[row.channel]} channel is no longer configured`, retryable: false };
  switch (row.channel) {
    case 'SLACK':
      return settings.slackWebhookUrl ? sendSlack(ctx, settings.slackWebhookUrl, event) : Promise.resolve(removed);
    case 'WEBHOOK':
      return settings.webhookUrl ? sendWebhook(ctx, { url: settings.webhookUrl, secret: settings.webhookSecret }, event, row.id) : Promise.resolve(removed);
    case 'EMAIL': {
      const recipients = recipientsOf(settings);
      return recipients.length > 0 ? sendEmail(ctx, recipients, event, row.id) : Promise.resolve(removed);
    }
  }
}

function payloadOf(row: repo.SpendDeliveryRow): Record<string, unknown> {
  const value = typeof row.payload === 'string' ? parseJsonb(row.payload) : row.payload;
  return (value ?? {}) as Record<string, unknown>;
}

async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The account's latest 200 deliveries, newest first, as the API shows them. */
export async function listSpendDeliveries(ctx: AppContext, accountId: string, status?: 'PENDING' | 'SENT' | 'FAILED'): Promise<SpendDeliveryView[]> {
  const rows = await repo.listDeliveries(ctx.db, accountId, { status, limit: 200 });
  return rows.map((r) => ({
    id: r.id,
    type: r.event_type,
    channel: r.channel,
    status: r.status,
    attempts: r.attempts,
    lastError: r.last_error,
    nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
    sentAt: r.sent_at?.toISOString() ?? null,
  }));
}

export type SpendDeliveryView = {
  id: string;
  type: repo.SpendDeliveryRow['event_type'];
  channel: SpendDeliveryChannel;
  status: repo.SpendDeliveryRow['status'];
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  sentAt: string | null;
};
