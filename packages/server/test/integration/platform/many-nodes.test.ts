import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../../src/config.js';
import { createAccount } from '../../../src/modules/accounts/service.js';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { createContext } from '../../../src/runtime.js';
import { monetization } from '../../factories.js';
import { backend, createTestDatabase, Http, type TestService } from '../../harness.js';
import { metricValue } from '../../metrics-text.js';

/**
 * Three server processes (src/main.ts under tsx, as `npm start` runs it) on one PostgreSQL database,
 * jobs on, node caches that would keep a key for a minute: each job slot runs once, a rotated or
 * revoked key is refused everywhere at once, a hot pool hammered through all three stays exact, and a
 * node killed with SIGKILL mid-batch loses nothing it acknowledged (issue 19 item 5).
 */
const SERVER_DIR = fileURLToPath(new URL('../../../', import.meta.url));
const SECRETS = { JWT_SECRET: 'nodes-jwt-secret-0123456789abcdef0123456789', APP_SECRETS_KEY: 'nodes-secrets-key-0123456789abcdef012345678' };
const START_TIMEOUT_MS = 180_000;

type Node = { name: string; url: string; http: Http; child: ChildProcess; output: () => string; exited: Promise<void> };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startNode(name: string, env: Record<string, string>): Promise<Node> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      APP_JOBS_ENABLED: 'true',
      // Its identity across restarts: node c, killed and started again, is still c (ADR 0033).
      APP_NODE_ID: `node-${name}`,
      // A minute-long cache: only the LISTEN/NOTIFY invalidation can make another node refuse a key at once.
      APP_CACHE_TTL_MS: '60000',
      // Three nodes beside another test file's services stay well under PostgreSQL's 100 connections.
      DATABASE_POOL_SIZE: '5',
      APP_STRIPE_API_BASE: 'http://127.0.0.1:9',
      APP_SPEND_ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      APP_SPEND_OPENAI_BASE_URL: 'http://127.0.0.1:9',
      APP_SPEND_CURSOR_BASE_URL: 'http://127.0.0.1:9',
      APP_SPEND_GITHUB_BASE_URL: 'http://127.0.0.1:9',
      APP_RESEND_BASE_URL: 'http://127.0.0.1:9',
      ...SECRETS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const node: Node = { name, url, http: new Http(url), child, output: () => output, exited };
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`node ${name} exited (${child.exitCode}):\n${output}`);
    try {
      if ((await node.http.get('/readyz')).status === 200) return node;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`node ${name} did not become ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function within(ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const skip = backend !== 'postgres' ? 'three server processes share one PostgreSQL: run with TEST_DATABASE_URL' : false;

describe('many nodes: three server processes on one PostgreSQL', { skip }, () => {
  let store: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: Database;
  let nodes: Node[] = [];
  let account: { accountId: string; apiKey: string; username: string; password: string; token: string };

  /** The monetization factory speaking to one node. */
  const through = (node: Node) => monetization({ http: node.http, clock: { now: () => new Date() } } as unknown as TestService, account);

  before(async () => {
    store = await createTestDatabase();
    // Started together on an empty database: the three migrate it at once (one applies each migration).
    nodes = await Promise.all(['a', 'b', 'c'].map((name) => startNode(name, store.env)));
    database = await openDatabase({ kind: 'postgres', url: store.env.DATABASE_URL!, poolSize: 4, preparedStatements: store.env.DATABASE_PREPARED_STATEMENTS !== 'false' });
    const ctx = createContext(loadConfig({ ...SECRETS, DATABASE_URL: store.env.DATABASE_URL! }), database);
    const username = 'nodes-operator';
    const password = 'correct horse battery nodes';
    const created = await createAccount(ctx, { accountName: 'Nodes', username, password });
    const login = await nodes[0]!.http.post('/public/v1/login', { body: { username, password } });
    assert.equal(login.status, 200, login.text);
    account = { ...created, username, password, token: login.body.data.token };
  });

  after(async () => {
    for (const node of nodes) if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGTERM');
    await Promise.all(nodes.map((n) => Promise.race([n.exited, new Promise((r) => setTimeout(r, 20_000))])));
    for (const node of nodes) if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
    await database?.close();
    await store?.drop();
  });

  test('when the three schedulers tick then each job slot is run by exactly one node', async () => {
    // Every node ticks within 5 s of its start. A slot's run is counted on the node that claimed it
    // once it has finished: compare when no claimed slot is still running.
    await new Promise((r) => setTimeout(r, 7_000));
    let last = '';
    await within(60_000, async () => {
      const claims = await database.db.selectFrom('job_runs').select(['job_name', 'finished_at']).execute();
      if (claims.length < 3 || claims.some((c) => c.finished_at === null)) return false;
      const texts = await Promise.all(nodes.map(async (node) => (await node.http.get('/metrics')).text));
      const mismatches = [...new Set(claims.map((c) => c.job_name))].flatMap((job) => {
        const slots = claims.filter((c) => c.job_name === job).length;
        const runs = texts.reduce((sum, text) => sum + ['succeeded', 'failed'].reduce((n, outcome) => n + (metricValue(text, 'tally_job_runs_total', { job, outcome }) ?? 0), 0), 0);
        return runs === slots ? [] : [`${job}: ${runs} runs across the nodes for ${slots} claimed slots`];
      });
      last = mismatches.join('; ');
      return mismatches.length === 0;
    }).catch(() => assert.fail(`job runs differ from claimed slots: ${last}`));
  });

  test('when a key is rotated or revoked on one node then the other nodes refuse it at once', async () => {
    const [a, b, c] = nodes as [Node, Node, Node];
    const asKey = (node: Node, key: string, path: string) => node.http.get(`/api/v1/client${path}`, { headers: { 'x-api-key': key } });
    const m = through(a);
    await m.customer('roaming');
    const customerKey = await m.customerKey('roaming', ['read']);
    // Warm every node's cache with both keys.
    for (const node of [b, c]) {
      for (let i = 0; i < 2; i++) {
        assert.equal((await asKey(node, account.apiKey, '/customers?limit=1')).status, 200);
        assert.equal((await asKey(node, customerKey, '/customers/roaming')).status, 200);
      }
    }

    const keyId = (await m.expectOk(m.client('GET', '/customers/roaming/keys'))).items.at(-1).id;
    await m.expectOk(m.client('DELETE', `/customers/roaming/keys/${keyId}`));
    for (const node of [b, c]) await within(1_000, async () => (await asKey(node, customerKey, '/customers/roaming')).status === 401);

    const rotated = await a.http.post('/api/v1/account/api-key', { auth: account.token });
    assert.equal(rotated.status, 200, rotated.text);
    for (const node of [b, c]) {
      await within(1_000, async () => (await asKey(node, account.apiKey, '/customers?limit=1')).status === 401);
      assert.equal((await asKey(node, rotated.body.data.apiKey, '/customers?limit=1')).status, 200);
    }
    account.apiKey = rotated.body.data.apiKey;
  });

  test('when one hard-limit pool is hammered through all three nodes then it stays exact and the audit is clean', async () => {
    const EVENTS = 300;
    const BALANCE = 200; // covers 100 two-credit events
    const m = through(nodes[0]!);
    const model = await m.creditModel({ denomination: 'nodes', hardLimit: true });
    const feature = await m.feature({ key: 'nodes.f' });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'nodes', name: 'nodes', description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=${BALANCE}`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    await m.customer('hot');
    await m.subscribe('hot', plan.id);
    const poolId = (await m.expectOk(m.client('GET', '/credits/hot/pools'))).items[0].id;

    const results = await Promise.all(
      Array.from({ length: EVENTS }, (_, i) =>
        through(nodes[i % 3]!).event({ customerReferenceId: 'hot', featureKey: 'nodes.f', usageUnits: 2, eventIdempotencyKey: `hot-${i}` }),
      ),
    );
    const created = results.filter((r) => r.status === 201).length;
    const refused = results.filter((r) => r.status === 409 && r.body.error.code === 'insufficient_credits').length;
    assert.equal(created + refused, EVENTS, results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => r.text).slice(0, 3).join(' | '));
    assert.equal(created, BALANCE / 2);
    const pool = await m.expectOk(m.admin('GET', `/credits/pools/${poolId}`));
    assert.equal(pool.balance, 0);
    await m.audit();
  });

  test('when a node is killed with SIGKILL mid-batch then every acknowledged event is stored, and once it is back the retries of the rest succeed at once, each event stored exactly once', async () => {
    const [a, , c] = nodes as [Node, Node, Node];
    const m = through(a);
    const feature = await m.feature({ key: 'nodes.kill' });
    await m.activePlan({ price: 0, features: [{ id: feature.id }] }).then((plan) => m.customer('killed').then(() => m.subscribe('killed', plan.id)));
    const BATCHES = 40;
    const PER_BATCH = 25;
    const keysOf = (b: number) => Array.from({ length: PER_BATCH }, (_, i) => `kill-${b}-${i}`);
    const body = (b: number) => ({ events: keysOf(b).map((key) => ({ eventName: 'chat.message', customerReferenceId: 'killed', featureKey: 'nodes.kill', usageUnits: 1, eventIdempotencyKey: key })) });

    const acknowledged = new Set<string>();
    const unacknowledged = new Set<number>();
    let answered = 0;
    let settled = 0;
    const killed = new Promise<void>((resolve) => {
      // All at once: when the third answer arrives the other batches are in flight (their keys claimed,
      // their transactions queued on the node's pool of 5). Spread 15 ms apart, a fast run could answer
      // each before the next was sent, and the kill then left no lease behind.
      const sends = Array.from({ length: BATCHES }, async (_, b) => {
        try {
          const res = await c.http.post('/api/v1/client/events/batch', { auth: account.apiKey, body: body(b), headers: { 'idempotency-key': `kill-batch-${b}` } });
          if (res.status !== 200) throw new Error(`batch ${b}: ${res.status} ${res.text}`);
          for (const r of res.body.data.results as { status: string; eventIdempotencyKey: string }[]) {
            if (r.status === 'stored' || r.status === 'duplicate') acknowledged.add(r.eventIdempotencyKey);
          }
          answered += 1;
          settled += 1;
          if (answered === 3) {
            c.child.kill('SIGKILL');
            resolve();
          }
        } catch {
          unacknowledged.add(b);
          settled += 1;
        }
      });
      void Promise.all(sends).then(() => resolve());
    });
    await killed;
    await c.exited;
    // Whatever was in flight when the node died fails now.
    await within(30_000, async () => settled === BATCHES);
    assert.ok(acknowledged.size > 0, 'some batches were acknowledged before the kill');
    assert.ok(unacknowledged.size > 0, 'some batches were cut by the kill');

    const storedKeys = async () =>
      new Set((await database.db.selectFrom('usage_events').select('event_idempotency_key').where('event_idempotency_key', 'like', 'kill-%').execute()).map((r) => r.event_idempotency_key));
    const stored = await storedKeys();
    for (const key of acknowledged) assert.ok(stored.has(key), `acknowledged event ${key} is not stored`);

    // Node c comes back (same APP_NODE_ID): the Idempotency-Key leases its killed process held are free
    // at once, so the client's retries of every batch it got no answer for, on a surviving node with the
    // same keys, run now instead of answering 409 until the leases (a minute) run out.
    const inFlight = await database.db.selectFrom('idempotency_records').select('idempotency_key').where('state', '=', 'IN_PROGRESS').where('owner_node', '=', 'node-c').execute();
    assert.ok(inFlight.length > 0, 'the killed node left leases behind');
    const restarted = await startNode('c', store.env);
    nodes[2] = restarted;
    for (const b of unacknowledged) {
      const res = await a.http.post('/api/v1/client/events/batch', { auth: account.apiKey, body: body(b), headers: { 'idempotency-key': `kill-batch-${b}` } });
      assert.equal(res.status, 200, res.text);
      for (const r of res.body.data.results as { status: string; eventIdempotencyKey: string }[]) {
        assert.ok(r.status === 'stored' || (r.status === 'duplicate' && stored.has(r.eventIdempotencyKey)), `${r.eventIdempotencyKey}: ${r.status}`);
      }
    }
    const counts = await sql<{ key: string; n: string }>`
      select event_idempotency_key as key, count(*)::text as n from usage_events where event_idempotency_key like 'kill-%' group by 1`.execute(database.db);
    assert.equal(counts.rows.length, BATCHES * PER_BATCH, 'every event stored');
    assert.deepEqual(counts.rows.filter((r) => r.n !== '1'), [], 'each exactly once');
    const used = await sql<{ used: string }>`
      select coalesce(sum(c.used), 0)::text as used from usage_counters c join features f on f.account_id = c.account_id and f.id = c.feature_id where f.key = 'nodes.kill'`.execute(database.db);
    assert.equal(Number(used.rows[0]!.used), BATCHES * PER_BATCH, 'the usage counter holds every event once');
  });
});
