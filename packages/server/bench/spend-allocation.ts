/**
 * spend-allocation-report (PostgreSQL): GET /api/v1/spend/reports/allocation (JWT, default window)
 * over the spend-report suite's 1,002,000 usage buckets with 500 units and 2,000 attribution rules,
 * one request at a time (timed here: one report may outlast an autocannon window), against
 * pk-select on one connection; the Tally server's RSS is sampled
 * before, during (peak) and after, to show the report's memory stays flat (it reads one row per
 * unit, never the buckets).
 */
import { readFileSync } from 'node:fs';
import type { Insertable } from 'kysely';
import type { AppContext } from '../src/platform/context.js';
import type { SpendRulesTable, SpendUnitsTable } from '../src/modules/spend/index.js';
import { newId } from '../src/platform/ids.js';
import type { Measured, Suite } from './harness.js';
import { SPEND_ACTORS } from './spend-report.js';

export const ALLOCATION_UNITS = 500;
export const ALLOCATION_RULES = 2000;
/** Buckets carry workspace `ws-(actor % 25)` and API key `key-<actor>` (bench/spend-report.ts). */
const MATCHED_WORKSPACES = 20;

/**
 * 20 TEAMs, 80 sub-TEAMs, 400 PROJECTs; rules on both providers: an ACTOR rule for two actors in
 * three, an API-key rule for every second actor (priorities interleave, so either kind wins some
 * actors), a WORKSPACE_ID catch-all for 20 of the 25 workspaces (the other five stay unattributed),
 * and rules that match nothing up to 2,000 (still walked by every lookup).
 */
export async function seedSpendAllocation(ctx: AppContext, accountId: string): Promise<Record<string, unknown>> {
  const now = ctx.clock.now();
  const unit = (type: 'TEAM' | 'PROJECT', name: string, parent: string | null): Insertable<SpendUnitsTable> => ({
    id: newId(), account_id: accountId, type, name, email: null, github_login: null, parent_id: parent, feature_id: null, created_at: now, modified_at: now,
  });
  const teams = Array.from({ length: 20 }, (_, i) => unit('TEAM', `team-${i}`, null));
  const squads = Array.from({ length: 80 }, (_, i) => unit('TEAM', `squad-${i}`, teams[i % 20]!.id));
  const projects = Array.from({ length: ALLOCATION_UNITS - 100 }, (_, i) => unit('PROJECT', `project-${i}`, squads[i % 80]!.id));
  for (const level of [teams, squads, projects]) await ctx.db.insertInto('spend_units').values(level).execute();

  const rules: Insertable<SpendRulesTable>[] = [];
  const rule = (unitId: string, provider: 'ANTHROPIC' | 'OPENAI', kind: SpendRulesTable['match_kind'], value: string, priority: number) =>
    rules.push({ id: newId(), account_id: accountId, spend_unit_id: unitId, provider, match_kind: kind, match_value: value, priority, created_at: now });
  for (const provider of ['ANTHROPIC', 'OPENAI'] as const) {
    for (let a = 1; a <= SPEND_ACTORS; a++) {
      if (a % 3 !== 0) rule(projects[(a * 7) % projects.length]!.id!, provider, 'ACTOR', `dev${a}@bench.example`, 40 + (a % 7));
      if (a % 2 === 0) rule(projects[(a * 11) % projects.length]!.id!, provider, 'API_KEY_ID', `key-${a}`, (a % 5) * 20);
    }
    for (let w = 0; w < MATCHED_WORKSPACES; w++) rule(squads[w]!.id!, provider, 'WORKSPACE_ID', `ws-${w}`, 90);
  }
  for (let i = 0; rules.length < ALLOCATION_RULES; i++) {
    rule(projects[i % projects.length]!.id!, i % 2 === 0 ? 'ANTHROPIC' : 'OPENAI', 'ACTOR', `ghost-${i}@bench.example`, i % 100);
  }
  await ctx.db.insertInto('spend_rules').values(rules).execute();
  // The bench server's pid: the suite reads its RSS from /proc (the seed runs inside that process).
  return { allocationUnits: ALLOCATION_UNITS, allocationRules: rules.length, serverPid: process.pid };
}

/** Resident set size of a process in MB (Linux /proc), or null elsewhere. */
function rssMb(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

/**
 * The report one request at a time, at least 3 times and for at least `seconds` (autocannon would
 * count none if one report outlasted its window), as a Measured row: p50 and p99 (= the slowest of
 * so few) in ms.
 */
async function timeSequentially(url: string, headers: Record<string, string>, seconds: number): Promise<Measured> {
  const ms: number[] = [];
  let errors = 0;
  const started = performance.now();
  while (ms.length < 3 || performance.now() - started < seconds * 1000) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    ms.push(performance.now() - t);
    if (res.status !== 200) errors++;
  }
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
  return { name: 'spend-allocation-report', rps: (ms.length * 1000) / (performance.now() - started), p50: at(0.5), p99: at(0.99), errors, acked: 0, cutOff: 0, answered: ms.length };
}

const mb = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(0)} MB`);

export const spendAllocation: Suite = {
  name: 'spend-allocation',
  modes: ['postgres'],
  async run(h) {
    const jwt = await h.adminAuth();
    const path = '/api/v1/spend/reports/allocation';
    // The first call resolves the vendor model names once (stored), as after a sync; its answer is checked.
    const first = await fetch(h.base + path, { headers: jwt });
    if (first.status !== 200) throw new Error(`allocation report: ${first.status} ${await first.text()}`);
    const body = (await first.json()) as { data: { rows: { ownCents: number }[]; unattributedCents: number } };
    const attributed = body.data.rows.filter((r) => r.ownCents > 0).length;
    const { serverPid, spendRows, allocationUnits, allocationRules } = h.ready as unknown as { serverPid: number; spendRows: number; allocationUnits: number; allocationRules: number };

    const raw1 = await h.raw('select', 1);
    const pk1 = await h.measure({ name: 'pk-select-1conn', method: 'GET', path: '/api/v1/client/bench/pk', connections: 1 });
    const before = rssMb(serverPid);
    let peak = before ?? 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(serverPid) ?? 0)), 50);
    const report = await timeSequentially(h.base + path, jwt, h.seconds);
    clearInterval(sampler);
    const after = rssMb(serverPid);
    h.print(
      `spend allocation report: PostgreSQL, ${spendRows.toLocaleString('en')} usage buckets, ${allocationUnits} units, ${allocationRules.toLocaleString('en')} rules ` +
        `(${attributed} units with own spend), 1 connection, ${h.seconds}s each`,
      [
        { r: raw1 },
        { r: pk1, raw: raw1 },
        { r: report, baseline: pk1, raw: raw1, target: h.target(report.name, 'p99 <= 2000 ms, no errors', report.p99 <= 2000 && report.errors === 0 && attributed > 0) },
      ],
    );
    const growth = before === null || after === null ? null : Math.max(peak, after) - before;
    const flat = h.target('spend-allocation-memory', 'server RSS growth <= 64 MB', growth === null || growth <= 64);
    console.log(`server RSS: ${mb(before)} before, ${mb(peak)} peak during, ${mb(after)} after (${growth === null ? 'not measured' : `+${growth.toFixed(0)} MB`})   ${flat.text}`);
  },
};
