import { timingSafeEqual, createHash } from 'node:crypto';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Decimal } from './money.js';

/**
 * Prometheus metrics of one runtime (ADR 0021). Each runtime owns its registry, never prom-client's
 * global one, so several runtimes in one process (tests, a second node) keep their own series.
 * Modules record through this small interface; label sets are bounded (route patterns, job names,
 * vendor names, status codes), never raw URLs, ids or amounts.
 */
export interface Metrics {
  readonly registry: Registry;
  /** One answered HTTP request: `route` is the route pattern (`/api/v1/client/customers/:ref`), never the raw URL. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** Usage events by ingestion path and outcome. */
  eventsIngested(path: IngestPath, outcome: IngestOutcome, count?: number): void;
  /**
   * Credits drawn by stored usage events. A float counter: an approximation for dashboards only.
   * The ledger is the exact record; never read this back into anything that moves money.
   */
  creditsDrawn(credits: Decimal): void;
  /** One finished run of a scheduled job's slot. */
  jobRun(job: string, outcome: 'succeeded' | 'failed', seconds: number): void;
  /** One outbound HTTP call: the answer's status, or 'error' when none came (timeout, refused, network). */
  outboundCall(vendor: OutboundVendor, status: number | 'error'): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; text: string }>;
}

export type IngestPath = 'single' | 'batch';
export type IngestOutcome = 'stored' | 'duplicate' | 'refused';
export type OutboundVendor = 'stripe' | 'anthropic' | 'openai' | 'cursor' | 'copilot' | 'github' | 'litellm' | 'slack' | 'webhook' | 'resend';

/** Connections of the database pool (PGlite: its one connection and the callers queued for it). */
export type PoolStats = { total: number; idle: number; waiting: number };

/** Latency buckets (seconds): sub-millisecond entitlement checks up to slow vendor-backed admin calls. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const JOB_BUCKETS = [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900];

export function createMetrics(options: { poolStats: () => PoolStats; backend: string }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: 'tally_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const latency = new Histogram({ name: 'tally_http_request_duration_seconds', help: 'HTTP request latency, by method, route pattern and status', labelNames: ['method', 'route', 'status'], buckets: HTTP_BUCKETS, registers: [registry] });
  const events = new Counter({ name: 'tally_usage_events_ingested_total', help: 'Usage events by ingestion path (single, batch) and outcome (stored, duplicate, refused)', labelNames: ['path', 'outcome'], registers: [registry] });
  const credits = new Counter({
    name: 'tally_credits_drawn_total',
    help: 'Credits drawn by stored usage events; a float approximation for dashboards, the credit ledger is the exact record',
    registers: [registry],
  });
  const jobRuns = new Counter({ name: 'tally_job_runs_total', help: 'Scheduled job slots run on this node, by job and outcome (succeeded, failed)', labelNames: ['job', 'outcome'], registers: [registry] });
  const jobDuration = new Histogram({ name: 'tally_job_duration_seconds', help: 'Duration of a scheduled job slot run on this node', labelNames: ['job'], buckets: JOB_BUCKETS, registers: [registry] });
  const outbound = new Counter({ name: 'tally_outbound_requests_total', help: 'Outbound HTTP calls, by vendor and answer status (error: no answer)', labelNames: ['vendor', 'status'], registers: [registry] });
  new Gauge({
    name: 'tally_db_pool_connections',
    help: 'Database pool connections by state (total, idle, waiting = callers queued for a connection)',
    labelNames: ['backend', 'state'],
    registers: [registry],
    collect() {
      const stats = options.poolStats();
      for (const state of ['total', 'idle', 'waiting'] as const) this.set({ backend: options.backend, state }, stats[state]);
    },
  });

  // Children per label set, so a hot request does one map lookup, not a label hash.
  type Child = { requests: Counter.Internal; latency: Histogram.Internal<string> };
  const children = new Map<string, Child>();
  return {
    registry,
    httpRequest(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let child = children.get(key);
      if (!child) {
        const labels = { method, route, status: String(status) };
        children.set(key, (child = { requests: requests.labels(labels), latency: latency.labels(labels) }));
      }
      child.requests.inc();
      child.latency.observe(seconds);
    },
    eventsIngested(path, outcome, count = 1) {
      if (count > 0) events.inc({ path, outcome }, count);
    },
    creditsDrawn(amount) {
      if (amount.gt(0)) credits.inc(amount.toNumber());
    },
    jobRun(job, outcome, seconds) {
      jobRuns.inc({ job, outcome });
      jobDuration.observe({ job }, seconds);
    },
    outboundCall(vendor, status) {
      outbound.inc({ vendor, status: String(status) });
    },
    async render() {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}

/** Constant-time comparison of a presented bearer token with the configured one (hashed to equal lengths first). */
export function tokenMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
