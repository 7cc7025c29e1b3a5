import { randomBytes } from 'node:crypto';
import { distributeOnCitus } from '../src/platform/db/citus.js';
import { migrate } from '../src/platform/db/migrator.js';
import { sql } from 'kysely';
import type { AppContext } from '../src/platform/context.js';
import { openDatabase, type Database } from '../src/platform/db/database.js';
import { subscribe } from '../src/modules/billing/index.js';
import * as catalog from '../src/modules/catalog/index.js';
import { createCustomer } from '../src/modules/customers/index.js';

export const BENCH_CUSTOMERS = 50;

/** The bench runtimes' fixed secrets and quiet settings (never a real install's). */
export const BENCH_ENV = {
  JWT_SECRET: 'bench-jwt-secret-0123456789abcdef0123456789',
  APP_SECRETS_KEY: 'bench-secrets-key-0123456789abcdef01234567',
  LOG_LEVEL: 'warn',
  APP_JOBS_ENABLED: 'false',
} as const;

/**
 * The database of a bench runtime in this process: on PostgreSQL a fresh schema of `url` and a pool
 * on it (`drop` removes the schema); on PGlite none (the runtime opens `dataDir`). `env` points the
 * configuration at it.
 */
export async function openBenchDatabase(options: { postgres: boolean; url: string; dataDir: string; prefix: string; poolSize: number; applicationName?: string }) {
  const schema = `${options.prefix}_${randomBytes(4).toString('hex')}`;
  if (!options.postgres) {
    return { schema, database: undefined as Database | undefined, env: { DATABASE_URL: undefined, DATA_DIR: options.dataDir }, drop: async () => {} };
  }
  const onAdmin = async (statement: string) => {
    const admin = await openDatabase({ kind: 'postgres', url: options.url, poolSize: 1 });
    try {
      await sql.raw(statement).execute(admin.db);
    } finally {
      await admin.close();
    }
  };
  await onAdmin(`create schema ${schema}`);
  const url = options.applicationName ? `${options.url}${options.url.includes('?') ? '&' : '?'}application_name=${options.applicationName}` : options.url;
  const database: Database | undefined = await openDatabase({ kind: 'postgres', url, poolSize: options.poolSize, searchPath: schema });
  // BENCH_CITUS=1: BENCH_DATABASE_URL is a Citus coordinator; the schema is distributed as an operator does (ADR 0023).
  if (process.env.BENCH_CITUS === '1') {
    await migrate(database);
    await database.withSession((exec) => distributeOnCitus(exec));
  }
  return { schema, database, env: { DATABASE_URL: options.url, DATA_DIR: undefined }, drop: () => onAdmin(`drop schema ${schema} cascade`) };
}

/**
 * A metered feature on an ACTIVE free plan (so subscriptions are active at once) with a usage price
 * and no cap, and BENCH_CUSTOMERS subscribed customers bench-0 … bench-49.
 */
export async function seedMonetization(ctx: AppContext, accountId: string) {
  const feature = await catalog.createFeature(ctx, accountId, { name: 'Bench chat', key: 'bench.chat' });
  const plan = await catalog.createPlan(ctx, accountId, { key: 'bench', name: 'Bench', description: 'Benchmark plan', priceAmount: null, intervalMonths: 1 } as never);
  await catalog.updatePlan(ctx, accountId, plan.id, { priceAmount: (await import('../src/platform/money.js')).dec(0) });
  await catalog.createRule(ctx, accountId, {
    planId: plan.id,
    featureId: feature.id,
    value: { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: '0.002' }, cost: { model: 'simple', cost_per_unit: '0.0005' } },
  });
  await catalog.updatePlan(ctx, accountId, plan.id, { status: 'ACTIVE' });
  const principal = { kind: 'tenant' as const, accountId, keyId: 'bench' };
  for (let i = 0; i < BENCH_CUSTOMERS; i++) {
    await createCustomer(ctx, accountId, { customerReferenceId: `bench-${i}`, email: `bench-${i}@example.com` });
    await subscribe(ctx, principal, { customerReferenceId: `bench-${i}`, planId: plan.id });
  }
  return { featureKey: feature.key, customers: BENCH_CUSTOMERS };
}

/**
 * A credit-backed feature on its own free plan: every period grants a large allocation in a soft
 * pool (so the benchmark measures draw-down, not refusals), with a model weight in effect.
 */
export async function seedCredits(ctx: AppContext, accountId: string) {
  const { createModel, allocateToPlan, publishWeights } = await import('../src/modules/credits/index.js');
  const feature = await catalog.createFeature(ctx, accountId, { name: 'Bench credits', key: 'bench.credits' });
  const model = await createModel(ctx, accountId, { name: 'Bench credits', denomination: 'bench-credits', hardLimit: false });
  const plan = await catalog.createPlan(ctx, accountId, { key: 'bench-credits', name: 'Bench credits', description: 'Credit benchmark plan', intervalMonths: 1 } as never);
  await catalog.updatePlan(ctx, accountId, plan.id, { priceAmount: (await import('../src/platform/money.js')).dec(0) });
  await catalog.createRule(ctx, accountId, { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'tokens', price_per_unit: '0' } } });
  await allocateToPlan(ctx, accountId, { modelId: model.id, planId: plan.id, creditAmount: '1000000000' });
  await catalog.updatePlan(ctx, accountId, plan.id, { status: 'ACTIVE' });
  const effectiveFrom = new Date(Date.now() + 1000);
  await publishWeights(ctx, accountId, 'bench', { effectiveFrom, entries: [{ featureId: feature.id, model: 'gpt', creditsPerUnit: (await import('../src/platform/money.js')).dec('2.5') }] } as never, console);
  const principal = { kind: 'tenant' as const, accountId, keyId: 'bench' };
  for (let i = 0; i < BENCH_CUSTOMERS; i++) {
    await createCustomer(ctx, accountId, { customerReferenceId: `bench-credit-${i}`, email: `bench-credit-${i}@example.com` });
    await subscribe(ctx, principal, { customerReferenceId: `bench-credit-${i}`, planId: plan.id });
  }
  await new Promise((r) => setTimeout(r, Math.max(0, effectiveFrom.getTime() - Date.now() + 50)));
  return { creditFeatureKey: feature.key };
}
