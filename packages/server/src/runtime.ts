import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildAppOptions } from './app.js';
import type { Config } from './config.js';
import { purgeStaleLoginThrottles, purgeStaleOperatorSessions } from './modules/accounts/index.js';
import { createRelay, purgeOldEvents, type Relay } from './modules/webhooks/index.js';
import * as agents from './modules/agents/index.js';
import * as billing from './modules/billing/index.js';
import * as credits from './modules/credits/index.js';
import * as payments from './modules/payments/index.js';
import { usageThresholdPercentsSql } from './modules/settings/index.js';
import * as spend from './modules/spend/index.js';
import { usageThresholdPercents } from './modules/usage/index.js';
import { startCacheListener } from './platform/cache/listener.js';
import { NodeCache } from './platform/cache/node-cache.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { AppContext } from './platform/context.js';
import { BatchWriters } from './platform/db/batch-writer.js';
import { openDatabase, type Database, type DatabaseOptions } from './platform/db/database.js';
import { migrate } from './platform/db/migrator.js';
import { ensureMonthlyPartitions } from './platform/db/partitions.js';
import { setAfterCommitLogger } from './platform/db/transaction.js';
import { purgeExpiredIdempotencyRecords } from './platform/http/idempotency.js';
import { Scheduler, type Job } from './platform/jobs/scheduler.js';
import { createMetrics } from './platform/metrics.js';
import { createSecretBox } from './platform/security/secrets.js';

export type Runtime = {
  ctx: AppContext;
  app: FastifyInstance;
  scheduler: Scheduler;
  /** Delivers outbound events (webhooks module); started with the scheduler (main.ts). */
  relay: Relay;
  close(): Promise<void>;
};

export function databaseOptionsOf(config: Config): DatabaseOptions {
  return config.database.kind === 'postgres'
    ? {
        kind: 'postgres',
        url: config.database.url,
        poolSize: config.database.poolSize,
        preparedStatements: config.database.preparedStatements,
        listenUrl: config.database.listenUrl,
        pipelineConnections: config.database.pipelineConnections,
      }
    : { kind: 'pglite', dataDir: config.database.dataDir };
}

/** The monetization modules with hooks or jobs, in dependency order (their hooks register, and run, in this order). */
const monetizationModules = [billing, credits, payments];

/** Registers the modules' hooks (platform/hooks.ts) for the switched-on modules; idempotent. */
function registerModuleHooks(config: Config): void {
  if (config.modules.monetization) for (const module of monetizationModules) module.registerHooks();
  // The account's usage thresholds (settings) come with usage's ingestion context (usage.threshold_reached).
  if (config.modules.monetization) usageThresholdPercents.provide(usageThresholdPercentsSql);
  if (config.modules.build) spend.registerHooks();
}

/** Every scheduled job of the service (UTC cron): each module's own, then the platform's. */
export function jobsOf(ctx: AppContext): Job[] {
  return [
    ...(ctx.config.modules.monetization ? monetizationModules.flatMap((module) => module.jobs(ctx)) : []),
    ...(ctx.config.modules.monetization ? agents.jobs(ctx) : []),
    ...(ctx.config.modules.build ? spend.jobs(ctx) : []),
    {
      name: 'idempotency-purge',
      cron: '0 * * * *',
      run: async ({ now }) => void (await purgeExpiredIdempotencyRecords(ctx.db, now)),
    },
    {
      name: 'platform-housekeeping',
      cron: '30 3 * * *',
      run: async ({ now }) => {
        await purgeStaleLoginThrottles(ctx, now);
        await purgeStaleOperatorSessions(ctx, now);
        await purgeOldEvents(ctx, now);
        await ctx.db.deleteFrom('job_runs').where('started_at', '<', new Date(now.getTime() - 30 * 86_400_000)).execute();
      },
    },
    {
      // Monthly partitions of events, ledger and vendor buckets: last month to three ahead exist
      // before a row needs them; rows the DEFAULT partition caught move into their month (ADR 0022).
      name: 'partitions-ahead',
      cron: '10 0 * * *',
      run: async ({ now, log }) => {
        const created = await ensureMonthlyPartitions(ctx.db, now);
        if (created.length > 0) log.info({ created }, 'monthly partitions created');
      },
    },
  ];
}

/**
 * The context services get: config, database, clock, the secrets box (APP_SECRETS_KEY), the node
 * cache and batch writers. On PostgreSQL the cache serves nothing until `startCacheListener` runs
 * (scripts never start it, so they always read the database).
 */
export function createContext(config: Config, database: Database, clock: Clock = systemClock): AppContext {
  return {
    config,
    database,
    db: database.db,
    clock,
    secrets: createSecretBox(config.secretsKey, config.secretsKeyPrevious),
    cache: new NodeCache({ ttlMs: config.cacheTtlMs, notify: database.kind === 'postgres' }),
    batches: new BatchWriters(),
    metrics: createMetrics({ poolStats: () => database.poolStats(), backend: database.kind }),
  };
}

/** Opens the database, applies migrations and builds the app and scheduler (not yet listening). */
export async function createRuntime(
  config: Config,
  options: BuildAppOptions & { clock?: Clock; database?: Database } = {},
): Promise<Runtime> {
  const database = options.database ?? (await openDatabase(databaseOptionsOf(config)));
  try {
    await migrate(database);
    const ctx = createContext(config, database, options.clock);
    registerModuleHooks(config);
    const app = await buildApp(ctx, options);
    setAfterCommitLogger(app.log);
    ctx.batches.setLogger(app.log);
    const scheduler = new Scheduler(ctx.db, ctx.clock, jobsOf(ctx), app.log, ctx.metrics);
    const listener = await startCacheListener(database, ctx.cache, app.log);
    const relay = createRelay(ctx, app.log);
    return {
      ctx,
      app,
      scheduler,
      relay,
      /**
       * Graceful: stops accepting connections and lets in-flight requests and the running job slot
       * finish (together), then flushes and closes the listener and the pool.
       */
      async close() {
        // app.close() closes the connections idle at that moment; a keep-alive connection whose
        // in-flight request answers later would otherwise hold the close until its keep-alive timeout.
        const idle = setInterval(() => app.server.closeIdleConnections(), 100);
        try {
          await Promise.all([scheduler.stop(), relay.stop(), app.close()]);
        } finally {
          clearInterval(idle);
        }
        // After the last request has answered: rows written behind still queued commit now.
        await ctx.batches.close();
        await listener.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}
