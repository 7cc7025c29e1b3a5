/**
 * Spend (PostgreSQL only):
 *   - spend-usage-report: GET /api/v1/spend/reports/usage (JWT) over 1,002,000 usage buckets
 *     (30 days × 200 models × 167 actors), one connection, against pk-select on one connection
 *   - spend-sync-30d / spend-resync-30d: POST …/sync of 30 days whose vendor (a loopback stand-in)
 *     reports 100,000 usage rows, in rows written per second, against the single-row insert
 */
import type { Suite } from '../harness.js';
import { SYNC_FROM, SYNC_ROWS, SYNC_TO } from '../spend-sync.js';

/** The usage report, one request at a time (a report is a single heavy statement, not a throughput path). */
export const spendReport: Suite = {
  name: 'spend-report',
  modes: ['postgres'],
  async run(h) {
    const jwt = await h.adminAuth();
    // The first call resolves the 200 vendor model names once (stored), as after a sync.
    const first = await fetch(`${h.base}/api/v1/spend/reports/usage`, { headers: jwt });
    if (first.status !== 200) throw new Error(`usage report: ${first.status} ${await first.text()}`);
    const raw1 = await h.raw('select', 1);
    const pk1 = await h.measure({ name: 'pk-select-1conn', method: 'GET', path: '/api/v1/client/bench/pk', connections: 1 });
    const report = await h.measure({ name: 'spend-usage-report', method: 'GET', path: '/api/v1/spend/reports/usage', connections: 1, auth: jwt });
    const { spendRows, spendSeedMs } = h.ready as unknown as { spendRows: number; spendSeedMs: number };
    h.print(`spend usage report: PostgreSQL, ${spendRows.toLocaleString('en')} usage buckets (seeded in ${(spendSeedMs / 1000).toFixed(1)} s), 1 connection, ${h.seconds}s each`, [
      { r: raw1 },
      { r: pk1, raw: raw1 },
      { r: report, baseline: pk1, raw: raw1, target: h.target(report.name, 'p99 <= 1000 ms, no errors', report.p99 <= 1000 && report.errors === 0) },
    ]);
  },
};

/**
 * One POST …/sync of a 30-day window whose vendor reports SYNC_ROWS usage rows (fetch, parse,
 * merge, chunked delete + insert), in rows written per second of wall time, beside the single-row
 * insert routes: first into an empty window, then again (every row replaced, as the hourly job does).
 */
export const spendSync: Suite = {
  name: 'spend-sync',
  modes: ['postgres'],
  async run(h) {
    const rawInsert = await h.raw('insert');
    const insert = await h.measure({ name: 'insert', method: 'POST', path: '/api/v1/client/bench/insert', body: () => '{}' });
    const auth = await h.adminAuth();
    const { spendConnectionId } = h.ready as unknown as { spendConnectionId: string };
    console.log(`\nspend sync: PostgreSQL, ${SYNC_ROWS.toLocaleString('en')} vendor rows over 30 days, one request each`);
    console.log(`${'raw-insert'.padEnd(22)} ${rawInsert.rps.toFixed(0).padStart(9)} req/s (raw baseline)`);
    console.log(`${'insert'.padEnd(22)} ${insert.rps.toFixed(0).padStart(9)} req/s (baseline)`);
    for (const name of ['spend-sync-30d', 'spend-resync-30d']) {
      const started = performance.now();
      const res = await fetch(`${h.base}/api/v1/spend/connections/${spendConnectionId}/sync?from=${SYNC_FROM}&to=${SYNC_TO}`, { method: 'POST', headers: auth });
      const body = (await res.json()) as { data?: { rowsWritten: number } };
      const elapsed = (performance.now() - started) / 1000;
      const rows = body.data?.rowsWritten ?? 0;
      const rate = rows / elapsed;
      const target = h.target(name, 'target >= 20000 rows/s', res.status === 200 && rows === SYNC_ROWS && rate >= 20_000);
      console.log(
        `${name.padEnd(22)} ${rate.toFixed(0).padStart(9)} rows/s  ${rows} rows in ${elapsed.toFixed(2)} s (HTTP ${res.status}), ` +
          `${(rate / insert.rps).toFixed(1)}x of insert, ${(rate / rawInsert.rps).toFixed(1)}x of raw insert   ${target.text}`,
      );
    }
  },
};
