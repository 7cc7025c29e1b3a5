import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { recordEvent } from '../../platform/events/outbox.js';
import { guardRefusalOf, outboundPolicyOf, sharedGuardedDispatcher } from '../../platform/http/outbound-guard.js';
import { newId } from '../../platform/ids.js';
import { accepts, ATTEMPT_TIMEOUT_MS, endpointAfterAttempt, MAX_ATTEMPTS, nextAttemptAfterFailure, RESPONSE_BODY_LIMIT, RETENTION_MS, signatureHeader, signingSecrets } from './domain.js';
import * as repo from './repo.js';
import { openSecrets, toEndpoint } from './service.js';
import type { AttemptError, DeliveryRow } from './tables.js';

/**
 * The relay (api-contract-events.md §E1.1, §E4, ADR 0035): on every node, once a second, it fans out
 * committed events that no node has fanned out yet (one transaction per event, claimed by a
 * conditional UPDATE, so exactly one node matches it against the endpoints) and attempts the due
 * deliveries (each leased by a conditional UPDATE, so one node attempts it). The HTTP call runs outside
 * any transaction; its outcome is written afterwards with the endpoint locked.
 */
const POLL_MS = 1_000;
const BATCH = 50;
/** A lease outlives the attempt's own timeout: a node that died mid-attempt frees it after this. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 45_000;
const USER_AGENT = 'Tally-Webhooks/1';

export type Relay = { start(): void; stop(): Promise<void>; runOnce(): Promise<void> };

export function createRelay(ctx: AppContext, log: FastifyBaseLogger, pollMs = POLL_MS): Relay {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;

  async function runOnce() {
    await fanOut();
    await deliverDue();
  }

  async function tick() {
    if (stopped) return;
    running = runOnce().catch((err: unknown) => log.error({ err }, 'webhook relay pass failed'));
    await running;
    running = undefined;
    if (!stopped) timer = setTimeout(() => void tick(), pollMs);
  }

  async function fanOut() {
    for (const event of await repo.unfannedEvents(ctx.db, BATCH)) {
      await withTransaction(ctx.db, async (tx) => {
        const now = ctx.clock.now();
        if (!(await repo.claimFanOut(tx, event.account_id, event.id, now))) return;
        const about = event.type === 'webhook_endpoint.disabled' ? await aboutEndpoint(tx, event.account_id, event.id) : null;
        const targets = (await repo.liveEndpoints(tx, event.account_id)).filter((e) => e.enabled && e.id !== about && accepts(e.event_types, event.type));
        await repo.insertDeliveries(
          tx,
          targets.map((e) => ({ id: newId(), account_id: event.account_id, endpoint_id: e.id, event_id: event.id, event_type: event.type, status: 'PENDING' as const, next_attempt_at: now, resend: false, created_at: now })),
        );
      });
    }
  }

  /** The endpoint a `webhook_endpoint.disabled` event is about: never delivered to it (§E4.3). */
  async function aboutEndpoint(tx: Parameters<typeof repo.findEvent>[0], accountId: string, eventId: string) {
    const row = await repo.findEvent(tx, accountId, eventId);
    return row ? ((JSON.parse(row.payload) as { data?: { object?: { id?: string } } }).data?.object?.id ?? null) : null;
  }

  async function deliverDue() {
    const due = await repo.dueDeliveries(ctx.db, ctx.clock.now(), BATCH);
    await Promise.all(due.map((d) => attempt(d.account_id, d.id).catch((err: unknown) => log.error({ err, deliveryId: d.id }, 'webhook attempt failed to record'))));
  }

  async function attempt(accountId: string, deliveryId: string) {
    const now = ctx.clock.now();
    const delivery = await repo.leaseDelivery(ctx.db, accountId, deliveryId, now, new Date(now.getTime() + LEASE_MS));
    if (!delivery) return;
    const [endpoint, event] = await Promise.all([repo.findEndpoint(ctx.db, accountId, delivery.endpoint_id), repo.findEvent(ctx.db, accountId, delivery.event_id)]);
    if (!endpoint || !endpoint.enabled || !event) {
      await repo.updateDelivery(ctx.db, accountId, deliveryId, { status: 'FAILED', next_attempt_at: null, lease_until: null, last_error: !endpoint ? 'endpoint deleted' : !event ? 'event purged' : 'endpoint disabled' });
      return;
    }
    const secrets = openSecrets(ctx, endpoint);
    const startedAt = ctx.clock.now();
    const timestamp = Math.floor(Date.now() / 1000);
    const outcome = await post(endpoint.url, {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(signingSecrets(secrets.current, secrets.previous, endpoint.previous_secret_expires_at, startedAt), event.id, timestamp, event.payload),
    }, event.payload);
    await record(delivery, outcome, startedAt);
  }

  async function post(url: string, headers: Record<string, string>, body: string): Promise<Outcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        dispatcher: sharedGuardedDispatcher(outboundPolicyOf(ctx.config)),
      } as RequestInit);
      const responseBody = await readPrefix(response);
      return { status: response.status, body: responseBody, error: null, durationMs: elapsed() };
    } catch (err) {
      const name = (err as { name?: string }).name;
      const error: AttemptError = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : guardRefusalOf(err) ? 'url_refused' : 'connection_failed';
      return { status: null, body: null, error, durationMs: elapsed() };
    }
  }

  async function record(delivery: DeliveryRow, outcome: Outcome, startedAt: Date) {
    const success = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const number = delivery.attempt_count + 1;
    await withTransaction(ctx.db, async (tx) => {
      const now = ctx.clock.now();
      const endpoint = await repo.lockEndpoint(tx, delivery.account_id, delivery.endpoint_id);
      await repo.insertAttempt(tx, { account_id: delivery.account_id, delivery_id: delivery.id, number, started_at: startedAt, duration_ms: outcome.durationMs, response_status: outcome.status, response_body: outcome.body, error: outcome.error, success });
      // An endpoint disabled or deleted while this attempt was in flight ends a failed delivery at once (§E4.3).
      const ended = !endpoint ? 'endpoint deleted' : !endpoint.enabled ? 'endpoint disabled' : null;
      const next = success || number >= MAX_ATTEMPTS || ended ? null : nextAttemptAfterFailure(number, now);
      await repo.updateDelivery(tx, delivery.account_id, delivery.id, {
        status: success ? 'SUCCEEDED' : next ? 'PENDING' : 'FAILED',
        attempt_count: number,
        next_attempt_at: next,
        lease_until: null,
        last_attempt_at: startedAt,
        last_response_status: outcome.status,
        last_error: !success && ended ? ended : outcome.error,
      });
      if (!endpoint || !endpoint.enabled) return;
      const after = endpointAfterAttempt({ failingSince: endpoint.failing_since }, { success, status: outcome.status }, now);
      if (!after.disable) {
        if (after.failingSince?.getTime() !== endpoint.failing_since?.getTime()) await repo.updateEndpoint(tx, endpoint.account_id, endpoint.id, { failing_since: after.failingSince });
        return;
      }
      await repo.failPendingDeliveries(tx, endpoint.account_id, endpoint.id, 'endpoint disabled');
      const disabled = await repo.updateEndpoint(tx, endpoint.account_id, endpoint.id, { enabled: false, disabled_reason: after.disable, disabled_at: now, failing_since: after.failingSince, modified_at: now });
      await recordEvent(tx, { accountId: endpoint.account_id, type: 'webhook_endpoint.disabled', object: toEndpoint(disabled, now), now });
    });
  }

  return {
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setTimeout(() => void tick(), 0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

type Outcome = { status: number | null; body: string | null; error: AttemptError | null; durationMs: number };

/** The first 1 KiB of the answer, decoded as UTF-8 (a cut sequence becomes U+FFFD); the rest is never read. */
async function readPrefix(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_BODY_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
}

/** Events past retention go, with their deliveries and attempts (the daily purge, §E1.3). */
export const purgeOldEvents = (ctx: AppContext, now: Date) => repo.purgeEventsBefore(ctx.db, new Date(now.getTime() - RETENTION_MS));
