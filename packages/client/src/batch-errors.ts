/**
 * The batcher's errors and how it reads the service's (./batcher.ts): which failures are worth
 * sending again unchanged, which events a 400 names, and each event's copy of a batch's error.
 */
import { TallyApiError, TallyError, TallyNetworkError, TallyRateLimitedError, TallyTimeoutError } from './errors.js';
import type { TrackEvent } from './events.js';

/** The buffer held `maxBuffered` events and `whenFull` is `'refuse'`: this event was not taken. */
export class TallyBufferFullError extends TallyError {
  constructor(readonly event: TrackEvent, maxBuffered: number) {
    super('buffer_full', `The event buffer is full (${maxBuffered} events); the event was not queued`);
  }
}

/** `flush({ timeoutMs })` ran out of time; the events named are still queued and will be sent. */
export class TallyFlushTimeoutError extends TallyError {
  constructor(readonly eventIdempotencyKeys: string[]) {
    super('flush_timeout', `${eventIdempotencyKeys.length} events are not acknowledged yet (still queued): ${preview(eventIdempotencyKeys)}`);
  }
}

/**
 * `close()` gave up before the service acknowledged these events. They may or may not be stored:
 * send them again later (their keys make that safe) from `events`.
 */
export class TallyUnacknowledgedEventsError extends TallyError {
  constructor(readonly events: (TrackEvent & { eventIdempotencyKey: string })[], reason: string) {
    super('events_unacknowledged', `${events.length} events were not acknowledged (${reason}): ${preview(events.map((e) => e.eventIdempotencyKey))}`);
  }
}

const preview = (keys: string[]) => (keys.length > 10 ? `${keys.slice(0, 10).join(', ')}, …` : keys.join(', '));

/** Whether a failed send may succeed later unchanged (the transport has already retried it). */
export function isTransient(err: unknown): boolean {
  if (err instanceof TallyNetworkError || err instanceof TallyTimeoutError) return true;
  return err instanceof TallyApiError && (err.status === 408 || err.status === 429 || err.status >= 500);
}

/** How long a 429 asked to wait, when it said. */
export function retryAfterOf(err: unknown): number | undefined {
  return err instanceof TallyRateLimitedError ? err.retryAfterMs : undefined;
}

/** Indexes of the events a 400 names (`events[3].usageUnits`, `events.3.usageUnits`). */
export function faultyIndexes(err: unknown, size: number): Set<number> {
  const out = new Set<number>();
  if (!(err instanceof TallyApiError) || err.status !== 400) return out;
  for (const f of err.fields ?? []) {
    const m = /^events(?:\[(\d+)\]|\.(\d+))/.exec(String(f.field ?? ''));
    const index = m ? Number(m[1] ?? m[2]) : Number.NaN;
    if (Number.isInteger(index) && index < size) out.add(index);
  }
  return out;
}

/** The batch's error for one of its events: an error of the batch error's class and code, naming the event. */
export type BatchEventError = TallyError & { index: number; eventIdempotencyKey: string };

export function withIndex(err: unknown, index: number, eventIdempotencyKey: string): unknown {
  if (!(err instanceof TallyError)) return err;
  // A copy of the same class (TallyValidationError stays one), so callers branch on it as on any call's error.
  const copy = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as TallyError, err, {
    message: `events[${index}] (${eventIdempotencyKey}): ${err.message}`,
    stack: err.stack,
    index,
    eventIdempotencyKey,
  });
  return copy as BatchEventError;
}
