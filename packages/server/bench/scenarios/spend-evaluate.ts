/**
 * Spend budget evaluation (PostgreSQL only): POST /api/v1/spend/budgets/evaluate for an account of
 * its own with 500 units (50 teams × 9 projects under them, plus the teams), each with a workspace
 * rule and a daily and monthly budget, and 80,000 usage buckets (40 days × 4 models × 500
 * workspaces). Timed: the first evaluation (which fires and records the alerts) and then repeated
 * evaluations on one connection (nothing new to fire: the steady state of the hourly job), against
 * pk-select on one connection in the same run. Target: ≤ 1 s per evaluation.
 */
import { sql } from 'kysely';
import type { AppContext } from '../../src/platform/context.js';
import { createAccount } from '../../src/modules/accounts/index.js';
import { buildSeedRows } from '../../src/modules/spend/index.js';
import { newId } from '../../src/platform/ids.js';
import type { Suite } from '../harness.js';

export const EVALUATE_UNITS = 500;
const TEAMS = 50;
const DAYS = 40;
const MODELS = 4;

/** The evaluation bench's account and data; returned into `ready` as evaluate*. */
export async function seedSpendEvaluate(ctx: AppContext): Promise<Record<string, unknown>> {
  const started = Date.now();
  const username = `bench-evaluate-${newId().slice(-8)}`;
  const password = 'bench password';
  const { accountId } = await createAccount(ctx, { accountName: 'bench evaluate', username, password });
  const now = ctx.clock.now();
  const teams = Array.from({ length: TEAMS }, () => newId());
  const units = Array.from({ length: EVALUATE_UNITS }, (_, i) => ({
    id: i < TEAMS ? teams[i]! : newId(),
    type: i < TEAMS ? 'TEAM' : 'PROJECT',
    name: `${i < TEAMS ? 'Team' : 'Project'} ${String(i).padStart(3, '0')}`,
    parent: i < TEAMS ? null : teams[i % TEAMS]!,
  }));
  await sql`
    insert into spend_units (id, account_id, type, name, parent_id, created_at, modified_at)
    select u.id, ${accountId}::uuid, u.type, u.name, u.parent, ${now}, ${now}
      from unnest(${units.map((u) => u.id)}::uuid[], ${units.map((u) => u.type)}::text[], ${units.map((u) => u.name)}::text[], ${units.map((u) => u.parent)}::uuid[]) as u(id, type, name, parent)`.execute(ctx.db);
  await sql`
    insert into spend_rules (id, account_id, spend_unit_id, provider, match_kind, match_value, priority, created_at)
    select gen_random_uuid(), ${accountId}::uuid, u.id, 'ANTHROPIC', 'WORKSPACE_ID', 'ws-' || u.n, 100, ${now}
      from unnest(${units.map((u) => u.id)}::uuid[]) with ordinality as u(id, n)`.execute(ctx.db);
  // Ceilings spread so that a share of the units crosses each (alerts of every kind on the first run).
  await sql`
    insert into spend_budgets (account_id, spend_unit_id, daily_cents, monthly_cents, alert_threshold, monthly_mode, created_at, modified_at)
    select ${accountId}::uuid, u.id, 100 + (u.n % 10) * 20, 2000 + (u.n % 20) * 200, 80, 'ALERT', ${now}, ${now}
      from unnest(${units.map((u) => u.id)}::uuid[]) with ordinality as u(id, n)`.execute(ctx.db);
  const connectionId = newId();
  await ctx.db
    .insertInto('spend_connections')
    .values({ id: connectionId, account_id: accountId, provider: 'ANTHROPIC', label: 'bench evaluate', admin_key_sealed: null, key_hint: 'beef', scope: null, status: 'ACTIVE', created_at: now, modified_at: now })
    .execute();
  const models = [...new Set(buildSeedRows().filter((r) => r.provider === 'ANTHROPIC').map((r) => r.model))].slice(0, MODELS);
  const today = now.toISOString().slice(0, 10);
  await sql`
    insert into spend_usage_buckets (account_id, connection_id, provider, day, model, workspace_id, uncached_input_tokens, cache_read_tokens,
                                     cache_write_5m_tokens, cache_write_1h_tokens, output_tokens)
    select ${accountId}::uuid, ${connectionId}::uuid, 'ANTHROPIC', ${today}::date - d, m, 'ws-' || w,
           (random() * 60000)::bigint, (random() * 100000)::bigint, 0, 0, (random() * 5000)::bigint
      from generate_series(0, ${DAYS - 1}) d, unnest(${models}::text[]) m, generate_series(1, ${EVALUATE_UNITS}) w`.execute(ctx.db);
  await sql`analyze spend_usage_buckets`.execute(ctx.db);
  return { evaluateUsername: username, evaluatePassword: password, evaluateBuckets: DAYS * MODELS * EVALUATE_UNITS, evaluateSeedMs: Date.now() - started };
}

export const spendEvaluate: Suite = {
  name: 'spend-evaluate',
  modes: ['postgres'],
  async run(h) {
    const ready = h.ready as unknown as { evaluateUsername: string; evaluatePassword: string; evaluateBuckets: number; evaluateSeedMs: number };
    const login = await fetch(`${h.base}/public/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ready.evaluateUsername, password: ready.evaluatePassword }) });
    if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`);
    const jwt = { authorization: `Bearer ${((await login.json()) as { data: { token: string } }).data.token}` };
    // Resolve the model names once (stored per account), as the first report after a sync does.
    const warm = await fetch(`${h.base}/api/v1/spend/reports/allocation`, { headers: jwt });
    if (warm.status !== 200) throw new Error(`allocation: ${warm.status} ${await warm.text()}`);

    const started = performance.now();
    const first = await fetch(`${h.base}/api/v1/spend/budgets/evaluate`, { method: 'POST', headers: jwt });
    const firstMs = performance.now() - started;
    const fired = first.status === 200 ? ((await first.json()) as { data: unknown[] }).data.length : -1;

    const raw1 = await h.raw('select', 1);
    const pk1 = await h.measure({ name: 'pk-select-1conn', method: 'GET', path: '/api/v1/client/bench/pk', connections: 1 });
    const again = await h.measure({ name: 'spend-evaluate-500', method: 'POST', path: '/api/v1/spend/budgets/evaluate', connections: 1, auth: jwt });
    h.print(`spend budget evaluation: PostgreSQL, ${EVALUATE_UNITS} units with budgets, ${ready.evaluateBuckets.toLocaleString('en')} usage buckets (seeded in ${(ready.evaluateSeedMs / 1000).toFixed(1)} s), 1 connection, ${h.seconds}s each`, [
      { r: raw1 },
      { r: pk1, raw: raw1 },
      { r: again, baseline: pk1, raw: raw1, target: h.target(again.name, 'p99 <= 1000 ms, no errors', again.p99 <= 1000 && again.errors === 0) },
    ]);
    const target = h.target('spend-evaluate-first', 'first run <= 1000 ms', first.status === 200 && firstMs <= 1000);
    console.log(`${'spend-evaluate-first'.padEnd(24)} ${firstMs.toFixed(0)} ms, HTTP ${first.status}, ${fired} alerts fired and recorded, ${(firstMs / Math.max(1, pk1.p50)).toFixed(0)}x pk-select p50   ${target.text}`);
  },
};
