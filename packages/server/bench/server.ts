/**
 * The service under benchmark, in its own process so the load generator does not share its event
 * loop. Adds two bench-only baseline routes: a primary-key SELECT and a single-row INSERT, both
 * behind the same tenant-key authentication as every Client API route.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createAccount } from '../src/modules/accounts/service.js';
import { openDatabase } from '../src/platform/db/database.js';
import { ok } from '../src/platform/http/envelope.js';
import { accountIdOf } from '../src/platform/http/principal.js';
import { newId } from '../src/platform/ids.js';
import { createRuntime } from '../src/runtime.js';
import { seedCredits, seedMonetization } from './fixtures.js';
import { seedSpendUsage } from './spend-report.js';
import { startBenchVendor, SYNC_KEY } from './spend-sync.js';
import { createConnection } from '../src/modules/spend/connections.js';

const url = process.env.BENCH_DATABASE_URL!;
const schema = `bench_${randomBytes(4).toString('hex')}`;
const admin = await openDatabase({ kind: 'postgres', url, poolSize: 1 });
await sql.raw(`create schema ${schema}`).execute(admin.db);
await admin.close();

const vendor = await startBenchVendor();
const config = loadConfig({
  ...process.env,
  APP_SPEND_ANTHROPIC_BASE_URL: vendor.url,
  DATABASE_URL: url,
  JWT_SECRET: 'bench-jwt-secret-0123456789abcdef0123456789',
  APP_SECRETS_KEY: 'bench-secrets-key-0123456789abcdef01234567', LOG_LEVEL: 'warn', APP_JOBS_ENABLED: 'false', DATABASE_POOL_SIZE: '50' });
const database = await openDatabase({ kind: 'postgres', url, poolSize: 50, searchPath: schema });
const runtime = await createRuntime(config, {
  database,
  extraRoutes: (app) => {
    app.get('/api/v1/client/bench/pk', async (request) => {
      const row = await runtime.ctx.db.selectFrom('accounts').select(['id', 'name']).where('id', '=', accountIdOf(request)).executeTakeFirst();
      return ok(row);
    });
    app.post('/api/v1/client/bench/insert', async (request) => {
      await runtime.ctx.db
        .insertInto('job_runs')
        .values({ job_name: `bench:${accountIdOf(request)}`, slot: new Date(), node_id: newId(), started_at: new Date() })
        .onConflict((oc) => oc.doNothing())
        .execute();
      return ok({ stored: true });
    });
  },
});
const username = `bench-${schema}`;
const password = 'bench password';
const { apiKey, accountId } = await createAccount(runtime.ctx, { accountName: 'bench', username, password });
const spendConnectionId = (await createConnection(runtime.ctx, accountId, { provider: 'ANTHROPIC', label: 'bench-sync', adminKey: SYNC_KEY })).id;
const fixture = { ...(await seedMonetization(runtime.ctx, accountId)), ...(await seedCredits(runtime.ctx, accountId)), ...(await seedSpendUsage(runtime.ctx, accountId)), username, password };
await runtime.app.listen({ port: 0, host: '127.0.0.1' });
const address = runtime.app.server.address();
process.send!({ port: typeof address === 'object' && address ? address.port : 0, apiKey, accountId, schema, spendConnectionId, ...fixture });

process.on('message', async (message) => {
  if (message !== 'stop') return;
  await new Promise((r) => setTimeout(r, 2000)); // let requests cut off by the load generator finish (a usage report takes ~1 s)
  await runtime.close();
  await vendor.close();
  const cleanup = await openDatabase({ kind: 'postgres', url, poolSize: 1 });
  await sql.raw(`drop schema ${schema} cascade`).execute(cleanup.db);
  await cleanup.close();
  process.exit(0);
});
