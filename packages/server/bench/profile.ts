/**
 * Profiles one route of the bench server under load: starts bench/server.ts, warms it, starts the
 * V8 CPU profiler in it (the one `node --cpu-prof` uses, here around the measured load only),
 * drives one scenario for BENCH_SECONDS at 50 connections, writes the profile and prints its
 * summary (bench/profile-summary.ts). Diagnostic only (ADR 0010, 0014).
 *   node --import tsx bench/profile.ts pk|check|check-norec|evaluate|ingest|credit-spread|credit-hot|batch|batch-mixed [--embedded]
 * The batch scenarios send 100 batches of 500 credit-backed events (one customer per batch, or every
 * batch over all 50 customers) and print CPU µs per batch.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Harness, type Ready, type Scenario } from './harness.js';
import { cpuOf, forkReady, settleOf, stop } from './processes.js';

const embedded = process.argv.includes('--embedded');
const which = process.argv[2] ?? 'pk';
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const tmp = mkdtempSync(join(tmpdir(), 'tally-profile-'));
const profile = join(tmp, `${process.argv[2] ?? 'pk'}.cpuprofile`);
const tally = await forkReady<Ready>(
  './server.ts',
  {
    BENCH_MODE: embedded ? 'embedded' : 'postgres',
    BENCH_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    BENCH_DATA_DIR: join(tmp, 'data'),
    BENCH_SPEND: 'off',
    NODE_ENV: 'production',
  },
);
const h = new Harness(embedded ? 'embedded' : 'postgres', tally.ready, 0, seconds, { tally: cpuOf(tally.child), settle: settleOf(tally.child) });
const { featureKey, creditFeatureKey } = tally.ready as unknown as { featureKey: string; creditFeatureKey: string };
let n = 0;
const event = (customer: () => string, feature: string) => () =>
  JSON.stringify({ eventName: 'msg', eventIdempotencyKey: randomUUID(), customerReferenceId: customer(), featureKey: feature, usageUnits: 2, costInput: { model: 'gpt' } });
const scenarios: Record<string, Scenario> = {
  pk: { name: 'pk-select', method: 'GET', path: '/api/v1/client/bench/pk' },
  insert: { name: 'insert', method: 'POST', path: '/api/v1/client/bench/insert', body: () => '{}' },
  check: { name: 'entitlement-get', method: 'GET', path: () => `/api/v1/client/entitlements/bench-${n++ % 50}/${featureKey}` },
  'check-norec': { name: 'entitlement-get-norec', method: 'GET', path: () => `/api/v1/client/entitlements/bench-${n++ % 50}/${featureKey}?record=false` },
  ingest: { name: 'ingest-spread', method: 'POST', path: '/api/v1/client/events', body: event(() => `bench-${n++ % 50}`, featureKey), events: (s) => (s < 300 || s === 409 ? 1 : 0) },
  'credit-spread': { name: 'credit-ingest-spread', method: 'POST', path: '/api/v1/client/events', body: event(() => `bench-credit-${n++ % 50}`, creditFeatureKey), events: (s) => (s < 300 || s === 409 ? 1 : 0) },
  evaluate: {
    name: 'entitlement-evaluate',
    method: 'POST',
    path: '/api/v1/client/entitlements',
    body: () => JSON.stringify({ customerReferenceId: `bench-${n++ % 50}`, featureKey, usage: { usageUnits: 3, model: 'gpt' } }),
  },
  'credit-hot': { name: 'credit-ingest-hot', method: 'POST', path: '/api/v1/client/events', body: event(() => 'bench-credit-0', creditFeatureKey), events: (s) => (s < 300 || s === 409 ? 1 : 0) },
  batch: { name: 'batch-ingest', method: 'POST', path: '/api/v1/client/events/batch', body: () => {
    const ref = `bench-credit-${n++ % 50}`;
    return batchOf(() => ref);
  }, amount: 100 },
  'batch-mixed': { name: 'batch-ingest-mixed', method: 'POST', path: '/api/v1/client/events/batch', body: () => batchOf((i) => `bench-credit-${i % 50}`), amount: 100 },
};
/** 500 credit-backed events, the customer of each from its position. */
function batchOf(refOf: (i: number) => string) {
  return JSON.stringify({ events: Array.from({ length: 500 }, (_, i) => JSON.parse(event(() => refOf(i), creditFeatureKey)()) as unknown) });
}
function ask(message: unknown, answer: string): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (m !== answer) return;
      tally.child.off('message', onMessage);
      resolve();
    };
    tally.child.on('message', onMessage);
    tally.child.send(message as string);
  });
}
const scenario = scenarios[which];
if (!scenario) throw new Error(`unknown scenario ${which}: one of ${Object.keys(scenarios).join(', ')}`);
try {
  await h.warmup();
  await ask('profile:start', 'profile:started');
  const pgBefore = postgresCpuMs();
  const r = await h.measure(scenario);
  const pgAfter = postgresCpuMs();
  await ask({ profileTo: profile }, 'profile:written');
  console.log(`${r.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}, server CPU ${r.cpuPerRequest?.toFixed(0)} us/request`);
  if (pgBefore !== null && pgAfter !== null) console.log(`PostgreSQL CPU ${(((pgAfter - pgBefore) * 1000) / (r.rps * seconds)).toFixed(0)} us/request (every postgres process on this host)`);
} finally {
  await stop(tally.child);
}
console.log(execFileSync(process.execPath, ['--import', 'tsx', new URL('./profile-summary.ts', import.meta.url).pathname, profile, process.env.PROFILE_TOP ?? '30'], { encoding: 'utf8' }));
if (process.env.PROFILE_KEEP) console.log(`profile kept in ${profile}`);
else rmSync(tmp, { recursive: true, force: true });

/**
 * CPU milliseconds of every PostgreSQL process on this host (Linux /proc), including backends that
 * have exited (the postmaster's reaped-children time): the database's share of a local run, which on
 * a 2-core box is throughput the service does not get (ADR 0030). Null without /proc or on PGlite.
 */
function postgresCpuMs(): number | null {
  if (embedded) return null;
  try {
    const ticks = 100; // USER_HZ on Linux
    let total = 0;
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      let stat: string;
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue;
      }
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, and for the postmaster (parent not postgres) cutime + cstime of reaped backends.
      const own = Number(f[11]) + Number(f[12]);
      const reaped = Number(f[13]) + Number(f[14]);
      const parent = f[1]!;
      let parentIsPostgres = false;
      try {
        parentIsPostgres = readFileSync(`/proc/${parent}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        // the parent is gone
      }
      total += own + (parentIsPostgres ? 0 : reaped);
    }
    return (total * 1000) / ticks;
  } catch {
    return null;
  }
}
