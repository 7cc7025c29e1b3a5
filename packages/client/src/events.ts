/**
 * Usage events: the shapes `tally.track` takes and answers, and the sink it hands them to. The
 * default sink (`DirectEvents`) sends each event alone, unbuffered; a batching sink (`Batcher`)
 * implements the same `EventSink`, and `Tally` delegates `track`, `flush` and `close` to whichever
 * it holds (`tally.events`).
 */
import { TallyApiError } from './errors.js';
import { newIdempotencyKey, type Transport } from './transport.js';
import type { DecimalInput, DecimalString } from './types.js';

/** A usage event as `POST /api/v1/client/events` takes it (amounts as decimal strings). */
export type TrackEvent = {
  eventName: string;
  featureKey: string;
  /** Required with a tenant key; ignored with a customer key (the key's own customer). */
  customerReferenceId?: string;
  usageUnits?: DecimalInput;
  /** Made once (crypto.randomUUID) when absent and kept on every retry: the service stores the event once. */
  eventIdempotencyKey?: string;
  /** ISO 8601; default now. */
  occurredAt?: string | Date;
  costAmount?: DecimalInput;
  revenueAmount?: DecimalInput;
  costInput?: { model?: string | null; modelProvider?: string | null; inputTokens?: number | null; outputTokens?: number | null };
  /** The flow of an evaluate with `reserve: true`: the event captures its hold. */
  flowId?: string;
  meta?: Record<string, unknown>;
};

/** One event's outcome. A refusal (a hard-limit pool could not cover it) is a result, not an error. */
export type EventResult =
  | {
      /** `duplicate`: the service already held this `eventIdempotencyKey` (e.g. a retry after the first attempt committed). */
      status: 'stored' | 'duplicate';
      eventIdempotencyKey: string;
      /** The stored event (for a duplicate: the one stored first under the key). */
      eventId: string;
      usageLimitExceeded?: boolean;
      message?: string;
      creditsDeducted?: DecimalString;
      weightApplied?: DecimalString;
      weightId?: string | null;
      weightMatch?: string;
      remainingBalance?: DecimalString;
    }
  | {
      /** A hard-limit credit pool could not cover it: nothing was written. */
      status: 'refused';
      eventIdempotencyKey: string;
      error: { code: string; message: string };
    };

/** Per-call options of `track`. */
export type TrackOptions = { timeoutMs?: number; signal?: AbortSignal };

/** Where `tally.track` sends events. */
export interface EventSink {
  track(event: TrackEvent, options?: TrackOptions): Promise<EventResult>;
  /** Sends everything buffered (a no-op for an unbuffered sink). */
  flush?(options?: { timeoutMs?: number }): Promise<void>;
  /** Flushes and stops accepting events. */
  close?(options?: { timeoutMs?: number }): Promise<void>;
}

/** The event as sent: its key made once when absent. */
export function withEventKey<E extends TrackEvent>(event: E): E & { eventIdempotencyKey: string } {
  return event.eventIdempotencyKey ? (event as E & { eventIdempotencyKey: string }) : { ...event, eventIdempotencyKey: newIdempotencyKey() };
}

type Receipt = Omit<Extract<EventResult, { status: 'stored' | 'duplicate' }>, 'status'>;

/**
 * Sends each event alone. The event's key is also its `Idempotency-Key`: a retry after a lost answer
 * replays the first answer (`status: 'duplicate'`, with the first receipt) instead of storing again.
 */
export class DirectEvents implements EventSink {
  constructor(private readonly transport: Transport) {}

  async track(event: TrackEvent, options: TrackOptions = {}): Promise<EventResult> {
    const body = withEventKey(event);
    const key = body.eventIdempotencyKey;
    try {
      const r = await this.transport.request<Receipt>({ method: 'POST', path: '/api/v1/client/events', body, idempotencyKey: key, ...options });
      return { ...r.data, status: r.replayed ? 'duplicate' : 'stored' };
    } catch (err) {
      if (err instanceof TallyApiError && err.code === 'insufficient_credits') {
        return { status: 'refused', eventIdempotencyKey: key, error: { code: err.code, message: err.message } };
      }
      throw err;
    }
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
