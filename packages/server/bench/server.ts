/**
 * The service under benchmark, in its own process so the load generator does not share its event
 * loop. Adds bench-only routes behind the same tenant-key authentication as every Client API route:
 * a primary-key SELECT and a single-row INSERT (the Tally baselines), `auth` (authentication and
 * nothing else), and `state` (events stored and the ledger audit, read after every scenario).
 * BENCH_MODE=postgres (default): a fresh schema on BENCH_DATABASE_URL, pool of 50.
 * BENCH_MODE=embedded: the two-command start path, PGlite in BENCH_DATA_DIR (no DATABASE_URL).
 * BENCH_SPEND=off skips the spend fixtures (a million usage buckets) when no spend suite runs.
 * BENCH_WEBHOOK=on subscribes a webhook endpoint to every event type (a loopback receiver answering
 * 200) and runs the relay, so the run measures requests with outbound events recorded and delivered.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Session } from 'node:inspector/promises';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createAccount } from '../src/modules/accounts/index.js';
import { auditLedger } from '../src/modules/credits/index.js';
import { ok } from '../src/platform/http/envelope.js';
import { accountIdOf } from '../src/platform/http/principal.js';
import { newId } from '../src/platform/ids.js';
import { createRuntime } from '../src/runtime.js';
import type { AppContext } from '../src/platform/context.js';
import { BENCH_ENV, openBenchDatabase, seedCredits, seedMonetization } from './fixtures.js';
import { seedSpendAllocation } from './spend-allocation.js';
import { seedSpendUsage } from './spend-report.js';
import { seedSpendSync, startBenchVendor } from './spend-sync.js';
import { seedSpendEvaluate } from './scenarios/spend-evaluate.js';

/** A fixture: seeds the bench account and returns what the scenarios need (merged into `ready`). */
type Seed = (ctx: AppContext, accountId: string) => Promise<Record<string, unknown>>;

const embedded = process.env.BENCH_MODE === 'embedded';
/** Fixtures in order; one line per suite that needs data of its own. */
const seeds: Seed[] = [seedMonetization, seedCredits, ...(embedded || process.env.BENCH_SPEND === 'off' ? [] : [seedSpendUsage, seedSpendSync, seedSpendEvaluate, seedSpendAllocation])];

const url = process.env.BENCH_DATABASE_URL!;
const dataDir = process.env.BENCH_DATA_DIR!;
const bench = await openBenchDatabase({ postgres: !embedded, url, dataDir, prefix: 'bench', poolSize: 50 });
const { schema, database } = bench;

const vendor = await startBenchVendor();
const webhooks = process.env.BENCH_WEBHOOK === 'on';
const env: Record<string, string | undefined> = {
  ...process.env,
  ...bench.env,
  ...(embedded ? {} : { DATABASE_POOL_SIZE: '50' }),
  APP_SPEND_ANTHROPIC_BASE_URL: vendor.url,
  ...BENCH_ENV,
  ...(webhooks ? { APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true' } : {}),
};
const config = loadConfig(env);
const runtime = await createRuntime(config, {
  ...(database ? { database } : {}),
  extraRoutes: (app) => {
    app.get('/api/v1/client/bench/pk', async (request) => {
      const row = await runtime.ctx.db.selectFrom('accounts').select(['id', 'name']).where('id', '=', accountIdOf(request)).executeTakeFirst();
      return ok(row);
    });
    app.get('/api/v1/client/bench/auth', async () => ok({ authenticated: true }));
    app.post('/api/v1/client/bench/insert', async (request) => {
      await runtime.ctx.db
        .insertInto('job_runs')
        .values({ job_name: `bench:${accountIdOf(request)}`, slot: new Date(), node_id: newId(), started_at: new Date() })
        .onConflict((oc) => oc.doNothing())
        .execute();
      return ok({ stored: true });
    });
    app.get('/api/v1/client/bench/state', async (request) => {
      const accountId = accountIdOf(request);
      const { events } = await runtime.ctx.db
        .selectFrom('usage_events')
        .select((eb) => eb.fn.countAll<string>().as('events'))
        .where('account_id', '=', accountId)
        .where('event_type', '=', 'CLIENT_TRACKED')
        .executeTakeFirstOrThrow();
      return ok({ events: Number(events), audit: await auditLedger(runtime.ctx.db, accountId) });
    });
  },
});
const username = `bench-${schema}`;
const password = 'bench password';
const { apiKey, accountId } = await createAccount(runtime.ctx, { accountName: 'bench', username, password });
const fixture: Record<string, unknown> = {};
for (const seed of seeds) Object.assign(fixture, await seed(runtime.ctx, accountId));
await runtime.app.listen({ port: 0, host: '127.0.0.1' });
const receiver = webhooks ? await subscribeEveryType() : undefined;
const address = runtime.app.server.address();
// PostgreSQL's client connection slots still free (none to count on PGlite): the harness measures a
// raw baseline beside each scenario only if both pools of 50 fit in them at once.
const freeSlots = embedded
  ? undefined
  : Number(
      (
        await sql<{ free: string }>`select current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int
          - (select count(*) from pg_stat_activity where backend_type = 'client backend') as free`.execute(runtime.ctx.db)
      ).rows[0]!.free,
    );
process.send!({ port: typeof address === 'object' && address ? address.port : 0, apiKey, accountId, schema, username, password, freeSlots, ...fixture });

let profiler: Session | undefined;
process.on('message', async (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuMicros: user + system });
    return;
  }
  // The V8 CPU profiler (what `node --cpu-prof` uses) around the measured load only (bench/profile.ts).
  if (message === 'profile:start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    process.send!('profile:started');
    return;
  }
  if (typeof message === 'object' && message && 'profileTo' in message && profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync((message as { profileTo: string }).profileTo, JSON.stringify(profile));
    profiler.disconnect();
    process.send!('profile:written');
    return;
  }
  // Before a measurement (harness.settle): PostgreSQL writes out what earlier scenarios dirtied now,
  // not during the next one (pgbench checkpoints before its runs for the same reason).
  if (message === 'settle') {
    if (!embedded) await sql`checkpoint`.execute(runtime.ctx.db).catch(() => {});
    process.send!('settled');
    return;
  }
  if (message !== 'stop') return;
  await new Promise((r) => setTimeout(r, 2000)); // let requests cut off by the load generator finish (a usage report takes ~1 s)
  await runtime.close();
  await vendor.close();
  receiver?.closeAllConnections();
  receiver?.close();
  if (embedded) rmSync(dataDir, { recursive: true, force: true });
  else await bench.drop();
  process.exit(0);
});

/** BENCH_WEBHOOK=on: a loopback receiver, an endpoint subscribed to every type (none listed = all), the relay running. */
async function subscribeEveryType() {
  let delivered = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      delivered += 1;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const login = await runtime.app.inject({ method: 'POST', url: '/public/v1/login', payload: { username, password } });
  const token = (login.json() as { data: { token: string } }).data.token;
  const created = await runtime.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/endpoints',
    headers: { authorization: `Bearer ${token}` },
    payload: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` },
  });
  if (created.statusCode !== 201) throw new Error(`webhook endpoint: ${created.body}`);
  runtime.relay.start();
  process.on('exit', () => console.error(`webhook receiver: ${delivered} deliveries`));
  return server;
}
