/**
 * Server benchmarks, 50 connections. `npm run bench` runs on PostgreSQL (BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test); `npm run bench -- --embedded`
 * runs on PGlite in a temp DATA_DIR (the two-command start). Each scenario is reported against
 * baselines measured in the same run (ratios, because machines are noisy):
 *   - the Tally baselines: tenant-key auth + one primary-key SELECT / one single-row INSERT
 *   - the raw baselines: plain Fastify + the plain driver, the same two statements, no Tally code
 *     (bench/raw-server.ts, its own process), throughput and p99 as ratios; a scenario with a
 *     target is compared with the raw baseline measured just before it when both pools of 50 fit
 *     in PostgreSQL's free connection slots (max_connections >= ~110; .ci/run sets 300), else with
 *     the run's first (the output says which)
 * Before every scenario the database is checkpointed (nothing left to write from earlier ones) and
 * the scenario runs unmeasured for BENCH_WARMUP_SECONDS (default 1), so it is measured warm like its
 * baselines. After every scenario the ledger audit runs and event routes compare the events stored
 * with the ones acknowledged. The run exits 1 when a target is missed or a check fails.
 * BENCH_SECONDS (default 5); BENCH_ONLY=name,name (suites to run, e.g. spend-report); BENCH_CITUS=1 when
 * BENCH_DATABASE_URL is a Citus coordinator (the bench schema is distributed before the run).
 * A new group of scenarios: a Suite in bench/scenarios/, one line in `suites` below, and its data
 * as one line in `seeds` of bench/server.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Harness, type Mode, type Ready, type Suite } from './harness.js';
import { cpuOf, forkReady, settleOf, stop } from './processes.js';
import { ingestBatch } from './scenarios/ingest-batch.js';
import { monetization } from './scenarios/monetization.js';
import { spendReport, spendSync } from './scenarios/spend.js';
import { spendEvaluate } from './scenarios/spend-evaluate.js';
import { spendAllocation } from './spend-allocation.js';

/** Every suite, in the order they run. */
const suites: Suite[] = [monetization, ingestBatch, spendReport, spendSync, spendEvaluate, spendAllocation];

const mode: Mode = process.argv.includes('--embedded') ? 'embedded' : 'postgres';
const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const selected = suites.filter((s) => s.modes.includes(mode) && (!only || only.includes(s.name) || (only.includes('spend') && s.name.startsWith('spend'))));

const tmp = mode === 'embedded' ? mkdtempSync(join(tmpdir(), 'tally-bench-')) : undefined;
const tally = await forkReady<Ready>('./server.ts', {
  BENCH_MODE: mode,
  BENCH_DATABASE_URL: url,
  ...(tmp ? { BENCH_DATA_DIR: join(tmp, 'data') } : {}),
  NODE_ENV: 'production',
  BENCH_SPEND: selected.some((s) => s.name.startsWith('spend')) ? 'on' : 'off',
});
const raw = await forkReady<{ port: number }>('./raw-server.ts', tmp ? { RAW_PGLITE_DIR: join(tmp, 'raw') } : { RAW_DATABASE_URL: url, RAW_SCHEMA: tally.ready.schema, RAW_ACCOUNT_ID: tally.ready.accountId });
const h = new Harness(mode, tally.ready, raw.ready.port, seconds, { tally: cpuOf(tally.child), raw: cpuOf(raw.child), settle: settleOf(tally.child) });
try {
  await h.warmup();
  for (const suite of selected) await suite.run(h);
} finally {
  await Promise.all([stop(tally.child), stop(raw.child)]);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
if (h.failures.length > 0) {
  console.log(`\n${h.failures.length} target(s) missed or check(s) failed:`);
  for (const f of h.failures) console.log(`  - ${f}`);
  process.exitCode = 1;
} else {
  console.log('\nall targets met, all checks clean');
}
