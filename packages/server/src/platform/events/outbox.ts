import type { Executor } from '../db/database.js';
import { stringifyJson } from '../http/json.js';
import { newId } from '../ids.js';

/**
 * The transactional outbox of outbound events (issue 33, api-contract-events.md §E1.1, ADR 0035).
 * Every module records the events of its changes here, with the executor of the change's own
 * transaction: a change that rolls back records nothing, a change that commits always has its event,
 * whatever happens to the process after the commit. The payload is serialised once, now, and every
 * attempt and resend sends exactly these bytes; the relay (webhooks module) delivers it after commit.
 */
export const EVENT_TYPES = [
  'customer.created',
  'customer.updated',
  'customer.claimed',
  'subscription.created',
  'subscription.activated',
  'subscription.plan_changed',
  'subscription.canceled',
  'subscription.past_due',
  'invoice.created',
  'invoice.finalized',
  'invoice.paid',
  'invoice.past_due',
  'invoice.voided',
  'payment.succeeded',
  'payment.failed',
  'checkout.completed',
  'credits.granted',
  'credits.balance_low',
  'credits.depleted',
  'credits.expired',
  'credits.auto_topup_succeeded',
  'credits.auto_topup_failed',
  'credits.auto_topup_disabled',
  'reservation.expired',
  'usage.threshold_reached',
  'budget.exceeded',
  'spend.alert',
  'spend.digest',
  'webhook.test',
  'webhook_endpoint.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

export type RecordedEvent = { id: string; type: EventType; createdAt: Date; accountId: string; payload: string };

/**
 * Event ids increase in the order they are recorded within a process and millisecond (a UUIDv7 drawn
 * in the same millisecond as the last one and not above it is the last one's successor), so events
 * one transaction records, which share `createdAt`, sort by id in the order they were recorded (§E1.2).
 */
let lastEventId = '';
function nextEventId(nowMs: number): string {
  let id = newId(nowMs);
  // The first 13 characters are the 48-bit millisecond time.
  if (id.slice(0, 13) === lastEventId.slice(0, 13) && id <= lastEventId) {
    const hex = lastEventId.replaceAll('-', '');
    // The last 48 bits are random: add one to them (an overflow would need 2^48 events in one ms).
    const next = (BigInt(`0x${hex.slice(20)}`) + 1n).toString(16).padStart(12, '0');
    id = `${lastEventId.slice(0, 24)}${next}`;
  }
  lastEventId = id;
  return id;
}

/**
 * Records one event in the caller's transaction. `object` is the object in its contract shape as of
 * this change (a snapshot, not re-read at delivery); `extra` adds the type's other `data` fields.
 */
export async function recordEvent(
  tx: Executor,
  event: { accountId: string; type: EventType; object: unknown; extra?: Record<string, unknown>; now: Date },
): Promise<RecordedEvent> {
  const id = nextEventId(event.now.getTime());
  const payload = stringifyJson({ id, type: event.type, createdAt: event.now.toISOString(), accountId: event.accountId, data: { object: event.object, ...event.extra } });
  await tx.insertInto('outbound_events').values({ id, account_id: event.accountId, type: event.type, payload, created_at: event.now, fanned_out_at: null }).execute();
  return { id, type: event.type, createdAt: event.now, accountId: event.accountId, payload };
}
