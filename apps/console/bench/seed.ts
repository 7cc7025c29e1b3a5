/**
 * A realistic account for the console's benchmark and its README screenshots, built through the
 * public API like a seller's product would: features on usage pricing, three plans, customers
 * subscribed (some invoices paid, one past due), a credit pool with grants and draws, and `events`
 * usage events spread over the 30 days before the service's clock. Up to 2,000 go through the
 * batch route (1,000 per request, priced and counted as in production); past that, the rest are
 * copies of those in SQL (same customers, features and amounts, a new id, key and time in the
 * window): the batch route on the embedded database stores a few hundred events a second on this
 * busy machine, and the overview reads only usage_events.
 */
import { sql } from 'kysely';
import { monetization } from '../../../packages/server/test/factories.js';
import type { createTestAccount, TestService } from '../../../packages/server/test/harness.js';

type Account = Awaited<ReturnType<typeof createTestAccount>>;

const FEATURES = [
  { key: 'ai.chat', name: 'AI chat', unit: 'messages', price: '0.002' },
  { key: 'ai.search', name: 'Semantic search', unit: 'queries', price: '0.0005' },
  { key: 'ai.embeddings', name: 'Embeddings', unit: 'k-tokens', price: '0.0001' },
  { key: 'agent.run', name: 'Agent runs', unit: 'runs', price: '0.05' },
  { key: 'api.calls', name: 'API calls', unit: 'calls', price: '0.00002' },
];
const PLANS = [
  { key: 'starter', price: '29', customers: 9 },
  { key: 'growth', price: '149', customers: 7 },
  { key: 'scale', price: '599', customers: 4 },
];
const COMPANIES = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'wonka', 'tyrell', 'cyberdyne', 'soylent', 'vandelay', 'pied-piper', 'massive-dynamic', 'aperture', 'oscorp', 'gringotts', 'monarch', 'duff', 'nakatomi'];
const BATCH = 1000;
/** Events sent through the API; the rest of a larger seed are SQL copies of these. */
const THROUGH_API = 2000;

export type SeededAccount = { customers: string[]; customerIds: Record<string, string>; events: number; seedMs: number };

/** Seeds the account; `events` usage events, heavier customers first (a long tail, like real usage). */
export async function seedAccount(svc: TestService, account: Account, events: number): Promise<SeededAccount> {
  const started = performance.now();
  const m = monetization(svc, account);
  const features = [];
  for (const f of FEATURES) features.push({ ...f, id: (await m.feature({ key: f.key, name: f.name })).id as string });
  const customers: string[] = [];
  let c = 0;
  for (const p of PLANS) {
    const plan = await m.activePlan({
      key: p.key,
      price: p.price,
      features: features.map((f) => ({ id: f.id, value: { pricing: { model: 'usage', usage_unit_type: f.unit, price_per_unit: Number(f.price) } } })),
    });
    for (let i = 0; i < p.customers; i++, c++) {
      const ref = COMPANIES[c]!;
      await m.customer(ref);
      await m.subscribe(ref, plan.id);
      customers.push(ref);
    }
  }
  // Most invoices paid; the last customer's stays DUE and is past due once its date has passed.
  for (const ref of customers.slice(0, -1)) {
    const invoice = (await m.invoices(ref)).items[0];
    if (invoice && invoice.status === 'DUE') await m.markPaid(invoice.id);
  }
  const listed = await m.expectOk<{ id: string; customerReferenceId: string }[]>(m.admin('GET', '/customers?limit=100'));
  const customerIds = Object.fromEntries(listed.map((x) => [x.customerReferenceId, x.id]));
  await seedCredits(m, customerIds.acme!);
  const sent = Math.min(events, THROUGH_API);
  await sendEvents(m, svc, customers, sent);
  if (events > sent) await copyEvents(svc, account.accountId, events - sent);
  return { customers, customerIds, events, seedMs: performance.now() - started };
}

async function seedCredits(m: ReturnType<typeof monetization>, customerId: string) {
  await m.creditModel({ name: 'AI credits', denomination: 'credits' });
  const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'Prepaid credits', denomination: 'credits', customerId }), 201);
  await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 50000, grantType: 'MANUAL', expiresAt: '2027-01-01T00:00:00Z' }), 201);
  await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 10000, grantType: 'MANUAL' }), 201);
  for (const [amount, description] of [['1250.5', 'agent batch'], ['3400', 'support escalation'], ['812.25', 'nightly evals']] as const) {
    await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: pool.id, amount, description }));
  }
}

async function sendEvents(m: ReturnType<typeof monetization>, svc: TestService, customers: string[], total: number) {
  const end = svc.clock.now().getTime();
  const spanMs = 30 * 86_400_000;
  // Deterministic: the same account every run. Customer i gets weight 1/(i+1); later days a little busier.
  let seed = 42;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  const weights = customers.map((_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const pick = () => {
    let r = random() * sum;
    for (let i = 0; i < customers.length; i++) if ((r -= weights[i]!) <= 0) return customers[i]!;
    return customers[0]!;
  };
  const batches = Math.ceil(total / BATCH);
  let next = 0;
  const worker = async () => {
    for (let b = next++; b < batches; b = next++) {
      const events = Array.from({ length: Math.min(BATCH, total - b * BATCH) }, (_, i) => {
        const feature = FEATURES[Math.floor(random() ** 1.6 * FEATURES.length)]!;
        return {
          eventName: `${feature.key}.used`,
          eventIdempotencyKey: `seed-${b}-${i}`,
          customerReferenceId: pick(),
          featureKey: feature.key,
          usageUnits: 1 + Math.floor(random() * 20),
          occurredAt: new Date(end - 1 - Math.floor((1 - Math.sqrt(random())) * spanMs)).toISOString(),
        };
      });
      const res = await m.client('POST', '/events/batch', { events });
      if (res.status !== 200) throw new Error(`seeding events: ${res.status} ${res.text.slice(0, 300)}`);
      const refused = (res.body.data.results as { status: string }[]).filter((r) => r.status === 'refused').length;
      if (refused > 0) throw new Error(`seeding events: ${refused} refused`);
    }
  };
  await Promise.all([worker(), worker()]);
}

/**
 * `count` copies of the account's stored events (round robin), each with a new id and key and its
 * time moved by a prime stride inside the 30-day window, so days, features and customers keep the
 * shape the API gave them. Their keys are recorded too, like the ingest path's.
 */
async function copyEvents(svc: TestService, accountId: string, count: number) {
  const db = svc.ctx.db;
  const columns = (
    await sql<{ column_name: string }>`select column_name from information_schema.columns where table_name = 'usage_events' and table_schema = current_schema() order by ordinal_position`.execute(db)
  ).rows.map((r) => r.column_name);
  const end = svc.clock.now();
  const from = new Date(end.getTime() - 30 * 86_400_000);
  const list = columns.map((c) => `"${c}"`).join(', ');
  const stored = Number((await sql<{ n: string }>`select count(*)::text as n from usage_events where account_id = ${accountId}`.execute(db)).rows[0]!.n);
  const rounds = Math.ceil(count / stored);
  for (let g = 1; g <= rounds; g++) {
    const take = Math.min(stored, count - (g - 1) * stored);
    const replaced: Record<string, string> = {
      id: 'gen_random_uuid()',
      event_idempotency_key: `e.event_idempotency_key || '-copy-${g}'`,
      occurred_at: `'${from.toISOString()}'::timestamptz + make_interval(secs => mod(extract(epoch from e.occurred_at - '${from.toISOString()}'::timestamptz)::bigint + ${g * 7919}, ${30 * 86_400}))`,
    };
    const select = columns.map((c) => replaced[c] ?? `e."${c}"`).join(', ');
    await sql
      .raw(
        `with copied as (
           insert into usage_events (${list})
           select ${select}
           from (select * from usage_events where account_id = '${accountId}' and event_idempotency_key not like '%-copy-%' order by id limit ${take}) e
           returning account_id, event_idempotency_key, id, occurred_at
         )
         insert into usage_event_keys (account_id, event_idempotency_key, event_id, occurred_at) select * from copied`,
      )
      .execute(db);
  }
}
