/**
 * Node CPU per batched event, without the machine's noise: one batch at a time, in-process
 * (app.inject: JSON parse, validation, apply, rendering; no socket), after a warm-up, reporting the
 * process's CPU (user + system) per batch and per event, wall time per batch and the statements one
 * batch sends; on PostgreSQL (local) also the CPU of the server processes of its connections, read
 * from /proc (`application_name=tally-batch-cpu`). Diagnostic only (ADR 0029).
 *   node --import tsx bench/batch-cpu.ts [--postgres] [--mixed] [--profile=<file.cpuprofile>] [batches=40]
 * --mixed spreads every batch over the 50 credit customers; otherwise each batch is one customer's.
 * --profile writes a V8 CPU profile of the measured batches only (summary: bench/profile-summary.ts).
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createAccount } from '../src/modules/accounts/index.js';
import { createRuntime } from '../src/runtime.js';
import { BENCH_CUSTOMERS, BENCH_ENV, openBenchDatabase, seedCredits } from './fixtures.js';

const postgres = process.argv.includes('--postgres');
const mixed = process.argv.includes('--mixed');
const batches = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 40);
const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
let statements = 0;
const pgQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as { query: unknown }).query = function (this: unknown, ...args: unknown[]) {
  statements++;
  return pgQuery.apply(this, args);
};

const tmp = mkdtempSync(join(tmpdir(), 'tally-batch-cpu-'));
const bench = await openBenchDatabase({ postgres, url, dataDir: tmp, prefix: 'batchcpu', poolSize: 4, applicationName: 'tally-batch-cpu' });
const { schema, database } = bench;
const config = loadConfig({ ...process.env, ...bench.env, ...BENCH_ENV, NODE_ENV: 'production' });
const runtime = await createRuntime(config, database ? { database } : {});
const { apiKey, accountId } = await createAccount(runtime.ctx, { accountName: 'batch-cpu', username: `batch-cpu-${schema}`, password: 'batch cpu password' });
const { creditFeatureKey } = await seedCredits(runtime.ctx, accountId);

let n = 0;
const body = () => {
  const one = `bench-credit-${n++ % BENCH_CUSTOMERS}`;
  const events = Array.from({ length: 500 }, (_, i) => ({
    eventName: 'msg',
    eventIdempotencyKey: randomUUID(),
    customerReferenceId: mixed ? `bench-credit-${i % BENCH_CUSTOMERS}` : one,
    featureKey: creditFeatureKey,
    usageUnits: 2,
    costInput: { model: 'gpt' },
  }));
  return JSON.stringify({ events });
};
const send = async (payload: string) => {
  const res = await runtime.app.inject({ method: 'POST', url: '/api/v1/client/events/batch', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, payload });
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${res.body.slice(0, 300)}`);
  const stored = (JSON.parse(res.body) as { data: { results: { status: string }[] } }).data.results.filter((r) => r.status === 'stored').length;
  if (stored !== 500) throw new Error(`stored ${stored} of 500`);
};
for (let i = 0; i < 10; i++) await send(body());
const payloads = Array.from({ length: batches }, body);
const profileTo = process.argv.find((a) => a.startsWith('--profile='))?.slice('--profile='.length);
const profiler = profileTo ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
/** CPU seconds of this run's PostgreSQL server processes (null: not PostgreSQL, or /proc unreadable). */
const postgresCpu = async () => {
  if (!database) return null;
  const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where application_name = 'tally-batch-cpu'`.execute(database.db);
  try {
    // utime and stime, in clock ticks (100 per second), fields 14 and 15 of /proc/<pid>/stat.
    return rows.reduce((sum, r) => sum + readFileSync(`/proc/${r.pid}/stat`, 'utf8').split(') ')[1]!.split(' ').slice(11, 13).reduce((a, b) => a + Number(b), 0) / 100, 0);
  } catch {
    return null;
  }
};
const pgBefore = await postgresCpu();
statements = 0;
const cpu = process.cpuUsage();
const started = performance.now();
for (const p of payloads) await send(p);
const wallMs = (performance.now() - started) / batches;
const used = process.cpuUsage(cpu);
const cpuMs = (used.user + used.system) / 1000 / batches;
const sent = statements;
const pgAfter = await postgresCpu();
const pgMs = pgBefore === null || pgAfter === null ? null : ((pgAfter - pgBefore) * 1000) / batches;
if (profiler) {
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(profileTo!, JSON.stringify(profile));
  profiler.disconnect();
}
console.log(
  `${postgres ? 'PostgreSQL' : 'PGlite'}, ${mixed ? `each batch over ${BENCH_CUSTOMERS} customers` : 'one customer per batch'}, ${batches} sequential batches of 500: ` +
    `Node CPU ${cpuMs.toFixed(1)} ms/batch = ${((cpuMs * 1000) / 500).toFixed(0)} µs/event, wall ${wallMs.toFixed(1)} ms/batch, ${(sent / batches).toFixed(1)} statements/batch` +
    (pgMs === null ? '' : `, PostgreSQL CPU ${pgMs.toFixed(1)} ms/batch = ${((pgMs * 1000) / 500).toFixed(0)} µs/event`),
);
await runtime.close();
await bench.drop();
rmSync(tmp, { recursive: true, force: true });
