import { hostname } from 'node:os';
import { CronExpressionParser } from 'cron-parser';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { Metrics } from '../metrics.js';
import { JobItemsFailed } from './items.js';

export type JobContext = { now: Date; slot: Date; log: FastifyBaseLogger };

/** A scheduled job. `cron` is UTC, 5 fields or 6 with seconds. `run` must be idempotent. */
export type Job = { name: string; cron: string; run(ctx: JobContext): Promise<void> };

export type JobOutcome = { job: string; slot: Date; status: 'ran' | 'failed' | 'skipped' };

/** The latest slot of `cron` at or before `now`. */
export function latestSlot(cron: string, now: Date): Date {
  return CronExpressionParser.parse(cron, { currentDate: new Date(now.getTime() + 1), tz: 'UTC' }).prev().toDate();
}

/**
 * Runs each job at most once per slot across every node sharing the database: a node runs a slot
 * only if its insert of the (job, slot) claim row wins. A slot missed while every node was down is
 * run once, late, when a node next ticks; older missed slots are not replayed (jobs catch up by
 * working from state, not from slot counts). `stop` (graceful shutdown) lets the running job finish
 * and claims nothing more, so the slots this node has not claimed are left to the other nodes.
 */
export class Scheduler {
  readonly #nodeId = `${hostname()}:${process.pid}`;
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> | undefined;
  #stopping = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly jobs: readonly Job[],
    private readonly log: FastifyBaseLogger,
    private readonly metrics?: Pick<Metrics, 'jobRun'>,
  ) {
    for (const job of jobs) latestSlot(job.cron, new Date()); // fail at start on a bad expression
  }

  start(tickMs = 5_000): void {
    this.#timer = setInterval(() => this.tick(), tickMs);
    this.#timer.unref();
  }

  /** Stops ticking and resolves when the job being run (if any) has finished and been recorded. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#timer);
    await this.#tick;
  }

  /** Claims and runs the current slot of every job (tests call this with a frozen clock); after `stop`, claims no more. */
  async runDue(): Promise<JobOutcome[]> {
    const outcomes: JobOutcome[] = [];
    for (const job of this.jobs) {
      if (this.#stopping) break;
      outcomes.push(await this.#runSlot(job));
    }
    return outcomes;
  }

  /** Claims and runs the current slot of one job, on demand. */
  async run(name: string): Promise<JobOutcome> {
    const job = this.jobs.find((j) => j.name === name);
    if (!job) throw new Error(`Unknown job ${name}`);
    return this.#runSlot(job);
  }

  private tick(): void {
    if (this.#tick || this.#stopping) return;
    this.#tick = this.runDue()
      .then(() => {}, (err: unknown) => this.log.error({ err }, 'scheduler tick failed'))
      .finally(() => {
        this.#tick = undefined;
      });
  }

  async #runSlot(job: Job): Promise<JobOutcome> {
    const now = this.clock.now();
    const slot = latestSlot(job.cron, now);
    const claimed = await this.db
      .insertInto('job_runs')
      .values({ job_name: job.name, slot, node_id: this.#nodeId, started_at: now })
      .onConflict((oc) => oc.doNothing())
      .returning('slot')
      .executeTakeFirst();
    if (!claimed) return { job: job.name, slot, status: 'skipped' };
    let error: string | null = null;
    const started = performance.now();
    try {
      await job.run({ now, slot, log: this.log.child({ job: job.name }) });
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
      if (err instanceof JobItemsFailed) {
        // The job went on past these items; each is logged with its id and account id.
        for (const f of err.failures) {
          this.log.error({ err: f.cause, job: job.name, slot, item: f.kind, itemId: f.id, accountId: f.accountId }, 'job item failed and was skipped');
        }
      }
      this.log.error({ err, job: job.name, slot }, 'job failed');
    }
    this.metrics?.jobRun(job.name, error ? 'failed' : 'succeeded', (performance.now() - started) / 1000);
    await this.db
      .updateTable('job_runs')
      .set({ finished_at: this.clock.now(), outcome: error ? 'FAILED' : 'SUCCEEDED', error })
      .where('job_name', '=', job.name)
      .where('slot', '=', slot)
      .execute();
    return { job: job.name, slot, status: error ? 'failed' : 'ran' };
  }
}
