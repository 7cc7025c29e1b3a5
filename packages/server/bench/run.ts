/**
 * Server benchmarks on PostgreSQL, 50 connections. Each scenario is reported against a baseline
 * measured in the same run (ratios, because machines are noisy):
 *   - pk-select: tenant-key auth + one primary-key SELECT (the baseline for read routes)
 *   - insert: tenant-key auth + one single-row INSERT (the baseline for write routes)
 *   - healthz: no auth, no database (the ceiling of the HTTP stack)
 *   - idempotent-insert: the insert route with a unique Idempotency-Key per request
 *   - spend-usage-report: GET /api/v1/spend/reports/usage (JWT) over 1,002,000 usage buckets
 *     (30 days × 200 models × 167 actors), one connection, against pk-select on one connection
 *   - spend-sync-30d / spend-resync-30d: POST …/sync of 30 days whose vendor (a loopback stand-in)
 *     reports 100,000 usage rows, in rows written per second, against the single-row insert
 * BENCH_DATABASE_URL (default: TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test),
 * BENCH_SECONDS (default 5), BENCH_ONLY=spend (only the spend scenarios and their baseline).
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { SYNC_FROM, SYNC_ROWS, SYNC_TO } from './spend-sync.js';

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = 50;

type Ready = { port: number; apiKey: string; featureKey: string; creditFeatureKey: string; customers: number; username: string; password: string; spendRows: number; spendSeedMs: number; spendConnectionId: string };
const server = fork(new URL('./server.ts', import.meta.url).pathname, [], {
  execArgv: ['--import', 'tsx'],
  env: { ...process.env, BENCH_DATABASE_URL: url, NODE_ENV: 'production' },
});
const ready = await new Promise<Ready>((resolve, reject) => {
  server.once('message', (m) => resolve(m as Ready));
  server.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
});
const base = `http://127.0.0.1:${ready.port}`;

type Scenario = { name: string; method: 'GET' | 'POST'; path: string | (() => string); body?: () => string; headers?: () => Record<string, string>; connections?: number; auth?: Record<string, string> };
type Result = { name: string; rps: number; p50: number; p99: number; errors: number; non2xx: number };

async function measure(s: Scenario): Promise<Result> {
  const result = await autocannon({
    url: base + (typeof s.path === 'string' ? s.path : s.path()),
    method: s.method,
    connections: s.connections ?? connections,
    duration: seconds,
    headers: { ...(s.auth ?? { 'x-api-key': ready.apiKey }), 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req: any) => ({
          ...req,
          ...(typeof s.path === 'function' ? { path: s.path() } : {}),
          ...(s.body ? { body: s.body() } : {}),
          headers: { ...req.headers, ...(s.headers ? s.headers() : {}) },
        }),
      },
    ],
  });
  return {
    name: s.name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

function print(rows: { r: Result; baseline?: Result; target?: string }[], title = `server benchmarks: PostgreSQL, ${connections} connections, ${seconds}s each`) {
  console.log(`\n${title}`);
  console.log('scenario'.padEnd(22), 'req/s'.padStart(9), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'errors'.padStart(7), 'vs baseline'.padStart(24), '  target');
  for (const { r, baseline, target } of rows) {
    const ratio = baseline ? `${(r.rps / baseline.rps).toFixed(2)}x of ${baseline.name}` : '(baseline)';
    console.log(
      r.name.padEnd(22),
      r.rps.toFixed(0).padStart(9),
      String(r.p50).padStart(8),
      String(r.p99).padStart(8),
      String(r.errors + r.non2xx).padStart(7),
      ratio.padStart(24),
      ` ${target ?? ''}`,
    );
  }
}

/**
 * The usage report over ~1M buckets, one request at a time (a report is a single heavy statement,
 * not a throughput path), against the single-row SELECT on one connection in the same run.
 */
async function spendScenarios() {
  const login = await fetch(`${base}/public/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ready.username, password: ready.password }) });
  const jwt = { authorization: `Bearer ${((await login.json()) as { data: { token: string } }).data.token}` };
  // The first call resolves the 200 vendor model names once (stored), as after a sync.
  const first = await fetch(`${base}/api/v1/spend/reports/usage`, { headers: jwt });
  if (first.status !== 200) throw new Error(`usage report: ${first.status} ${await first.text()}`);
  const pk1 = await measure({ name: 'pk-select-1conn', method: 'GET', path: '/api/v1/client/bench/pk', connections: 1 });
  const report = await measure({ name: 'spend-usage-report', method: 'GET', path: '/api/v1/spend/reports/usage', connections: 1, auth: jwt });
  print(
    [
      { r: pk1 },
      { r: report, baseline: pk1, target: `p99 <= 1000 ms: ${report.p99 <= 1000 && report.errors + report.non2xx === 0 ? 'met' : 'MISSED'}` },
    ],
    `spend usage report: PostgreSQL, ${ready.spendRows.toLocaleString('en')} usage buckets (seeded in ${(ready.spendSeedMs / 1000).toFixed(1)} s), 1 connection, ${seconds}s each`,
  );
}

/**
 * spend-sync-30d: one POST …/sync of a 30-day window whose vendor reports SYNC_ROWS usage rows
 * (fetch, parse, merge, chunked delete + insert), in rows written per second of wall time, beside
 * the single-row insert route measured just before: first into an empty window, then again
 * (every row replaced, as the hourly job does).
 */
async function spendSync() {
  const insert = await measure({ name: 'insert', method: 'POST', path: '/api/v1/client/bench/insert', body: () => '{}' });
  const login = await fetch(`${base}/public/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ready.username, password: ready.password }) });
  const token = ((await login.json()) as { data: { token: string } }).data.token;
  console.log(`\nspend sync: PostgreSQL, ${SYNC_ROWS.toLocaleString('en')} vendor rows over 30 days, one request each`);
  console.log(`${'insert'.padEnd(22)} ${insert.rps.toFixed(0).padStart(9)} req/s (baseline)`);
  for (const name of ['spend-sync-30d', 'spend-resync-30d']) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/spend/connections/${ready.spendConnectionId}/sync?from=${SYNC_FROM}&to=${SYNC_TO}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { data?: { rowsWritten: number } };
    const elapsed = (performance.now() - started) / 1000;
    const rows = body.data?.rowsWritten ?? 0;
    const rate = rows / elapsed;
    const met = res.status === 200 && rows === SYNC_ROWS && rate >= 20_000;
    console.log(
      `${name.padEnd(22)} ${rate.toFixed(0).padStart(9)} rows/s  ${rows} rows in ${elapsed.toFixed(2)} s (HTTP ${res.status}), ` +
        `${(rate / insert.rps).toFixed(1)}x of insert   target >= 20000 rows/s: ${met ? 'met' : 'MISSED'}`,
    );
  }
}

try {
  await measure({ name: 'warmup', method: 'GET', path: '/api/v1/client/bench/pk' });
  if (process.env.BENCH_ONLY !== 'spend') await monetizationScenarios();
  await spendScenarios();
  await spendSync();
} finally {
  server.send('stop');
}

async function monetizationScenarios() {
  const pk = await measure({ name: 'pk-select', method: 'GET', path: '/api/v1/client/bench/pk' });
  const insert = await measure({ name: 'insert', method: 'POST', path: '/api/v1/client/bench/insert', body: () => '{}' });
  const health = await measure({ name: 'healthz', method: 'GET', path: '/healthz' });
  const idem = await measure({
    name: 'idempotent-insert',
    method: 'POST',
    path: '/api/v1/client/bench/insert',
    body: () => '{}',
    headers: () => ({ 'idempotency-key': randomUUID() }),
  });
  let n = 0;
  const nextCustomer = () => `bench-${n++ % ready.customers}`;
  const check = await measure({ name: 'entitlement-get', method: 'GET', path: () => `/api/v1/client/entitlements/${nextCustomer()}/${ready.featureKey}` });
  const checkNoRecord = await measure({ name: 'entitlement-get-norec', method: 'GET', path: () => `/api/v1/client/entitlements/${nextCustomer()}/${ready.featureKey}?record=false` });
  const evaluate = await measure({
    name: 'entitlement-evaluate',
    method: 'POST',
    path: '/api/v1/client/entitlements',
    body: () => JSON.stringify({ customerReferenceId: nextCustomer(), featureKey: ready.featureKey, usage: { usageUnits: 3, model: 'gpt' } }),
  });
  const ingest = await measure({
    name: 'ingest-spread',
    method: 'POST',
    path: '/api/v1/client/events',
    body: () => JSON.stringify({ eventName: 'msg', eventIdempotencyKey: randomUUID(), customerReferenceId: nextCustomer(), featureKey: ready.featureKey, usageUnits: 2, costInput: { model: 'gpt' } }),
  });
  const ingestHot = await measure({
    name: 'ingest-hot-customer',
    method: 'POST',
    path: '/api/v1/client/events',
    body: () => JSON.stringify({ eventName: 'msg', eventIdempotencyKey: randomUUID(), customerReferenceId: 'bench-0', featureKey: ready.featureKey, usageUnits: 2 }),
  });
  const creditSpread = await measure({
    name: 'credit-ingest-spread',
    method: 'POST',
    path: '/api/v1/client/events',
    body: () => JSON.stringify({ eventName: 'msg', eventIdempotencyKey: randomUUID(), customerReferenceId: `bench-credit-${n++ % ready.customers}`, featureKey: ready.creditFeatureKey, usageUnits: 2, costInput: { model: 'gpt' } }),
  });
  const creditHot = await measure({
    name: 'credit-ingest-hot',
    method: 'POST',
    path: '/api/v1/client/events',
    body: () => JSON.stringify({ eventName: 'msg', eventIdempotencyKey: randomUUID(), customerReferenceId: 'bench-credit-0', featureKey: ready.creditFeatureKey, usageUnits: 2, costInput: { model: 'gpt' } }),
  });
  const within = (r: Result, base: Result, share: number, p99: number) =>
    `>= ${share * 100}% of ${base.name}, p99 <= ${p99} ms: ${r.rps / base.rps >= share && r.p99 <= p99 ? 'met' : 'MISSED'}`;
  print([
    { r: pk },
    { r: insert },
    { r: health, baseline: pk },
    { r: idem, baseline: insert, target: 'informational: cost of Idempotency-Key' },
    { r: check, baseline: pk, target: within(check, pk, 0.5, 10) },
    { r: checkNoRecord, baseline: pk, target: 'informational: without the audit event' },
    { r: evaluate, baseline: pk, target: within(evaluate, pk, 0.5, 10) },
    { r: ingest, baseline: insert, target: within(ingest, insert, 0.4, 25) },
    { r: ingestHot, baseline: insert, target: 'informational: one customer, one counter row' },
    { r: creditSpread, baseline: ingest, target: `>= 60% of ingest-spread: ${creditSpread.rps / ingest.rps >= 0.6 ? 'met' : 'MISSED'}` },
    { r: creditHot, baseline: ingestHot, target: `>= 1000 events/s, no errors: ${creditHot.rps >= 1000 && creditHot.errors + creditHot.non2xx === 0 ? 'met' : 'MISSED'}` },
  ]);
}
