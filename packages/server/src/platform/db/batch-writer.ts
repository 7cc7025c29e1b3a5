/** Where failures of rows nobody waits for are logged (pino's signature; runtime.ts installs the app logger). */
export type BatchLogger = { error(details: object, message: string): void };

type Pending<T> = { row: T; done: () => void; fail: (err: unknown) => void };

/** A data or integrity error (SQLSTATE class 22 / 23) names a bad row; anything else fails the batch as a whole. */
const isRowError = (err: unknown) => /^2[23]/.test(String((err as { code?: unknown })?.code ?? ''));

/**
 * Group commit for rows a request must not pay a commit of its own for (the entitlement check's
 * audit row, ADR 0013). At most one batch is in flight; rows that arrive meanwhile form the next
 * one (up to `maxRows`), so the batch size follows the load without waiting on a timer.
 *
 * `write` resolves once the row's batch has committed. `writeBehind` returns at once and leaves the
 * row to the next batch (its failure is logged), unless `maxPending` rows are already queued: then
 * it waits like `write`, which bounds memory and what a crash can lose.
 */
export class BatchWriter<T> {
  private queue: Pending<T>[] = [];
  private draining: Promise<void> | null = null;
  /** Settles when the newest queued row has (batches commit in queue order, so every earlier one has too). */
  private newest: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly insert: (rows: T[]) => Promise<void>,
    private readonly options: { name: string; logger: () => BatchLogger; maxRows?: number; maxPending?: number },
  ) {}

  /** Queues `row`; resolves when it is committed, rejects with the insert's error. */
  write(row: T): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.options.name}: batch writer is closed`));
    const committed = new Promise<void>((done, fail) => {
      this.queue.push({ row, done, fail });
      this.draining ??= this.drain();
    });
    this.newest = committed.then(
      () => {},
      () => {},
    );
    return committed;
  }

  /** Queues `row` without waiting for its commit (see the class comment for when it does wait). */
  async writeBehind(row: T): Promise<void> {
    const committed = this.write(row);
    if (this.queue.length > (this.options.maxPending ?? 5_000)) return committed;
    committed.catch((err: unknown) => this.options.logger().error({ err, writer: this.options.name }, 'batched row lost'));
  }

  /** Resolves once every row queued so far is committed (or failed): readers call it to see their node's rows. */
  flush(): Promise<void> {
    return this.newest;
  }

  /** Flushes and refuses further rows (graceful shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async drain(): Promise<void> {
    // Let the rows of requests running in this tick join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.options.maxRows ?? 500);
        try {
          await this.insert(batch.map((p) => p.row));
          for (const p of batch) p.done();
        } catch (err) {
          if (batch.length > 1 && isRowError(err)) await this.writeOneByOne(batch);
          else for (const p of batch) p.fail(err);
        }
      }
    } finally {
      this.draining = null;
    }
  }

  /** One bad row must not take the others with it. */
  private async writeOneByOne(batch: Pending<T>[]): Promise<void> {
    for (const p of batch) {
      try {
        await this.insert([p.row]);
        p.done();
      } catch (err) {
        p.fail(err);
      }
    }
  }
}

/** The batch writers of one node, by name; flushed before reads that must see them, closed with the runtime. */
export class BatchWriters {
  private readonly writers = new Map<string, BatchWriter<unknown>>();
  private logger: BatchLogger = { error: (details, message) => console.error(message, details) };

  /** Installs the logger that lost rows are reported to. */
  setLogger(logger: BatchLogger): void {
    this.logger = logger;
  }

  /** The writer named `name`, created with `insert` on first use. */
  get<T>(name: string, insert: (rows: T[]) => Promise<void>): BatchWriter<T> {
    let writer = this.writers.get(name) as BatchWriter<T> | undefined;
    if (!writer) {
      writer = new BatchWriter<T>(insert, { name, logger: () => this.logger });
      this.writers.set(name, writer as unknown as BatchWriter<unknown>);
    }
    return writer;
  }

  /** Every row queued on this node so far is committed (or failed) when this resolves. */
  async flush(): Promise<void> {
    await Promise.all([...this.writers.values()].map((w) => w.flush()));
  }

  /** Flushes every writer's queued rows and refuses further rows. */
  async close(): Promise<void> {
    await Promise.all([...this.writers.values()].map((w) => w.close()));
  }
}
