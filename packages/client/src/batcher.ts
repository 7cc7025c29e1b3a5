/**
 * Batched event ingestion (README "Batching"): `track` buffers events and sends them through
 * `POST /api/v1/client/events/batch` every `maxEvents` events or `flushIntervalMs`, resolving each
 * event's own promise with its per-event result.
 *
 * - Every event gets its `eventIdempotencyKey` once, when it is enqueued, so a batch sent again (the
 *   transport's retries, or this queue's own after the transport gave up) stores nothing twice: the
 *   events stored the first time come back `duplicate`.
 * - A batch that fails for a transient reason (network, timeout, 429, 5xx) stays at the head of the
 *   queue and is sent again with backoff, as long as it takes, until the service acknowledges it or
 *   `close()` gives up with a {@link TallyUnacknowledgedEventsError} that hands the events back.
 * - Memory is bounded by `maxBuffered` (queued + in flight). When full, `whenFull: 'wait'` makes
 *   `track`/`enqueue` wait for space; `'refuse'` rejects the event at once with
 *   {@link TallyBufferFullError}. An event is never dropped silently.
 * - One batch is in flight at a time, so events are applied in the order they were tracked.
 */
import { faultyIndexes, isTransient, retryAfterOf, TallyBufferFullError, TallyFlushTimeoutError, TallyUnacknowledgedEventsError, withIndex } from './batch-errors.js';
import { TallyError } from './errors.js';
import { DirectEvents, withEventKey, type EventResult, type EventSink, type TrackEvent } from './events.js';
import type { Transport } from './transport.js';

export type BatchOptions = {
  /** Send as soon as this many events are buffered (1 … 1,000; default 100). */
  maxEvents?: number;
  /** Send what is buffered at least this often (default 1,000 ms). */
  flushIntervalMs?: number;
  /** Most events held in memory, queued and in flight together (default 10,000). */
  maxBuffered?: number;
  /** When the buffer is full: wait for space (default) or refuse with `TallyBufferFullError`. */
  whenFull?: 'wait' | 'refuse';
  /** Backoff between failed sends of the same batch: first delay and cap (defaults 500 ms, 30 s), with jitter. */
  retryBaseMs?: number;
  retryMaxMs?: number;
};

type Wire = TrackEvent & { eventIdempotencyKey: string };
type Pending = { seq: number; event: Wire; resolve: (r: EventResult) => void; reject: (e: unknown) => void };
type FlushWaiter = { seq: number; resolve: () => void; reject: (e: unknown) => void };
type BatchResultItem = EventResult & { index: number };

const BATCH_PATH = '/api/v1/client/events/batch';

export class Batcher implements EventSink {
  private readonly maxEvents: number;
  private readonly flushIntervalMs: number;
  private readonly maxBuffered: number;
  private readonly whenFull: 'wait' | 'refuse';
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;

  private queue: Pending[] = [];
  private inFlight: Pending[] = [];
  private spaceWaiters: (() => void)[] = [];
  /** Places promised to woken space waiters that have not taken them yet. */
  private reserved = 0;
  private flushWaiters: FlushWaiter[] = [];
  private seq = 0;
  private sending = false;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerDue = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private closed: TallyError | undefined;
  /** Events with a flowId go alone: the batch route does not capture reservations. */
  private readonly alone: DirectEvents;

  constructor(
    private readonly transport: Transport,
    options: BatchOptions = {},
  ) {
    this.alone = new DirectEvents(transport);
    this.maxEvents = Math.min(1000, Math.max(1, Math.floor(options.maxEvents ?? 100)));
    this.flushIntervalMs = Math.max(1, options.flushIntervalMs ?? 1000);
    this.maxBuffered = Math.max(this.maxEvents, Math.floor(options.maxBuffered ?? 10_000));
    this.whenFull = options.whenFull ?? 'wait';
    this.retryBaseMs = Math.max(1, options.retryBaseMs ?? 500);
    this.retryMaxMs = Math.max(this.retryBaseMs, options.retryMaxMs ?? 30_000);
  }

  /** Events held now: queued and in flight. */
  get size(): number {
    return this.queue.length + this.inFlight.length;
  }

  /**
   * Buffers the event; the promise settles with its own result once the service answers its batch.
   * An event with a `flowId` is sent alone at once (the batch route does not capture holds).
   */
  async track(event: TrackEvent): Promise<EventResult> {
    return (await this.enqueue(event)).result;
  }

  /**
   * Buffers the event and resolves as soon as it has a place in the buffer (after waiting for
   * space with `whenFull: 'wait'`), with its key and the promise of its result. A producer loop
   * awaits this, so its memory stays bounded by `maxBuffered`.
   */
  async enqueue(event: TrackEvent): Promise<{ eventIdempotencyKey: string; result: Promise<EventResult> }> {
    const wire: Wire = withEventKey(event);
    if (this.closed) throw this.closed;
    if (wire.flowId != null) return { eventIdempotencyKey: wire.eventIdempotencyKey, result: this.alone.track(wire) };
    // Waiters get space in arrival order: a newcomer queues behind them, and a woken waiter's place is reserved for it.
    if (this.size + this.reserved >= this.maxBuffered || this.spaceWaiters.length > 0) {
      if (this.whenFull === 'refuse') throw new TallyBufferFullError(event, this.maxBuffered);
      await new Promise<void>((resolve) => this.spaceWaiters.push(resolve));
      this.reserved -= 1;
      if (this.closed) throw this.closed;
    }
    let settle!: Pick<Pending, 'resolve' | 'reject'>;
    const result = new Promise<EventResult>((resolve, reject) => (settle = { resolve, reject }));
    this.queue.push({ seq: ++this.seq, event: wire, ...settle });
    this.schedule();
    return { eventIdempotencyKey: wire.eventIdempotencyKey, result };
  }

  /**
   * Sends everything tracked before this call and resolves when each of those events has its
   * answer. With `timeoutMs`, rejects with `TallyFlushTimeoutError` when time runs out; the events
   * stay queued.
   */
  flush(options: { timeoutMs?: number } = {}): Promise<void> {
    const seq = this.seq;
    if (this.oldestUnsettled() > seq) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: FlushWaiter = { seq, resolve, reject };
      if (options.timeoutMs !== undefined) {
        const t = setTimeout(() => {
          this.flushWaiters = this.flushWaiters.filter((w) => w !== waiter);
          reject(new TallyFlushTimeoutError(this.unsettled(seq).map((p) => p.event.eventIdempotencyKey)));
        }, options.timeoutMs);
        waiter.resolve = () => (clearTimeout(t), resolve());
      }
      this.flushWaiters.push(waiter);
      this.pump();
    });
  }

  /**
   * Shutdown: takes no more events, flushes, and after `timeoutMs` (default: no limit) gives up
   * on what is still unacknowledged: each of those events rejects, and so does `close`, with a
   * `TallyUnacknowledgedEventsError` carrying the events so they can be kept and sent again.
   */
  async close(options: { timeoutMs?: number } = {}): Promise<void> {
    if (!this.closed) this.closed = new TallyError('client_closed', 'The client is closed: no more events are taken');
    for (const wake of this.spaceWaiters.splice(0)) {
      this.reserved += 1;
      wake();
    }
    try {
      await this.flush(options);
    } catch (err) {
      if (!(err instanceof TallyFlushTimeoutError)) throw err;
      const left = [...this.inFlight, ...this.queue];
      this.inFlight = [];
      this.queue = [];
      this.clearTimers();
      const error = new TallyUnacknowledgedEventsError(left.map((p) => p.event), `shutdown after ${options.timeoutMs} ms`);
      for (const p of left) p.reject(error);
      for (const w of this.flushWaiters.splice(0)) w.reject(error);
      throw error;
    }
    this.clearTimers();
  }

  private oldestUnsettled(): number {
    return this.inFlight[0]?.seq ?? this.queue[0]?.seq ?? Number.POSITIVE_INFINITY;
  }

  private unsettled(upTo: number): Pending[] {
    return [...this.inFlight, ...this.queue].filter((p) => p.seq <= upTo);
  }

  private clearTimers(): void {
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    this.timer = this.retryTimer = undefined;
  }

  /** Starts the interval for the oldest buffered event, or sends now when a full batch is ready. */
  private schedule(): void {
    if (this.retryTimer !== undefined || this.sending) return;
    if (this.queue.length >= this.maxEvents) return this.pump();
    if (this.timer === undefined && this.queue.length > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.timerDue = true;
        this.pump();
      }, this.flushIntervalMs);
    }
  }

  /** Whether the head of the queue should go out now. */
  private ready(): boolean {
    if (this.queue.length === 0 || this.retryTimer !== undefined) return false;
    return this.queue.length >= this.maxEvents || this.timerDue || this.flushWaiters.length > 0 || this.closed !== undefined;
  }

  private pump(): void {
    if (this.sending) return;
    this.sending = true;
    void this.drain().finally(() => {
      this.sending = false;
      if (this.ready()) this.pump();
      else this.schedule();
    });
  }

  private async drain(): Promise<void> {
    while (this.ready()) {
      this.timerDue = false;
      clearTimeout(this.timer);
      this.timer = undefined;
      this.inFlight = this.queue.splice(0, this.maxEvents);
      const outcome = await this.send(this.inFlight);
      if (typeof outcome === 'object') {
        // The batch stays first in line, unchanged (same keys), until the backoff has passed.
        this.queue.unshift(...this.inFlight);
        this.inFlight = [];
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.pump();
        }, Math.max(this.backoffMs(this.failures++), outcome.retryAfterMs ?? 0));
        return;
      }
      this.failures = 0;
      this.inFlight = [];
      this.wakeSpaceWaiters();
      this.settleFlushWaiters();
    }
  }

  /** Sends one batch; settles its events, or answers a retry (leaving them all unsettled), honouring a 429's Retry-After. */
  private async send(batch: Pending[]): Promise<'done' | { retryAfterMs?: number }> {
    let results: BatchResultItem[];
    try {
      const res = await this.transport.request<{ results: BatchResultItem[] }>({ method: 'POST', path: BATCH_PATH, body: { events: batch.map((p) => p.event) } });
      results = res.data.results;
    } catch (err) {
      if (this.closed && this.inFlight !== batch) return 'done'; // close() gave up on this batch meanwhile
      if (isTransient(err)) return { retryAfterMs: retryAfterOf(err) };
      return this.refuseBatch(batch, err);
    }
    if (this.inFlight !== batch) return 'done';
    const byIndex = new Map(results.map((r) => [r.index, r]));
    batch.forEach((p, index) => {
      const r = byIndex.get(index);
      if (r) p.resolve(toEventResult(r));
      else p.reject(new TallyError('batch_result_missing', `The batch answer has no result for event ${index} (${p.event.eventIdempotencyKey})`));
    });
    return 'done';
  }

  /**
   * A batch the service will never take as it is (400, 401, 403, 413 …). A 400 names the faulty
   * events (`events[i].field`): those reject with the error, the others go back to the head of
   * the queue and are sent again without them (nothing of a 400 batch was applied). Without an
   * index every event of the batch rejects with the error.
   */
  private refuseBatch(batch: Pending[], err: unknown): 'done' {
    const faulty = faultyIndexes(err, batch.length);
    if (faulty.size === 0) {
      for (const [index, p] of batch.entries()) p.reject(withIndex(err, index, p.event.eventIdempotencyKey));
      return 'done';
    }
    const innocent: Pending[] = [];
    for (const [index, p] of batch.entries()) {
      if (faulty.has(index)) p.reject(withIndex(err, index, p.event.eventIdempotencyKey));
      else innocent.push(p);
    }
    this.queue.unshift(...innocent);
    return 'done';
  }

  private backoffMs(failures: number): number {
    const cap = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** Math.min(failures, 20));
    return Math.round(cap / 2 + (Math.random() * cap) / 2);
  }

  private wakeSpaceWaiters(): void {
    let free = this.maxBuffered - this.size - this.reserved;
    while (free-- > 0 && this.spaceWaiters.length > 0) {
      this.reserved += 1;
      this.spaceWaiters.shift()!();
    }
  }

  private settleFlushWaiters(): void {
    const oldest = this.oldestUnsettled();
    const done = this.flushWaiters.filter((w) => w.seq < oldest);
    this.flushWaiters = this.flushWaiters.filter((w) => w.seq >= oldest);
    for (const w of done) w.resolve();
  }
}

function toEventResult(r: BatchResultItem): EventResult {
  const { index: _index, ...rest } = r;
  return rest as EventResult;
}

export { isTransient, TallyBufferFullError, TallyFlushTimeoutError, TallyUnacknowledgedEventsError, type BatchEventError } from './batch-errors.js';
