import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openDatabase } from '../../../src/platform/db/database.js';
import { ANTHROPIC_FAKE_KEY, startAnthropicFake, type AnthropicFake } from '../../fakes/vendors/anthropic.js';
import { startHttpFake, type HttpFake } from '../../fakes/vendors/http-fake.js';
import { Http, TEST_DATABASE_URL } from '../../harness.js';
import { createScratchDatabase, productionSecrets, startServerProcess, type ServerProcess } from '../../server-process.js';

const CONNECTIONS = '/api/v1/spend/connections';

/**
 * Anthropic behind a gate: while closed, every call waits. That makes an API request (a new
 * connection's key check) and a job slot (the initial sync's pull) slow on demand, with no
 * test-only code in the server.
 */
async function startGatedVendor(vendor: AnthropicFake) {
  let release: (() => void) | undefined;
  let opened: Promise<void> = Promise.resolve();
  const waiting: string[] = [];
  const proxy: HttpFake = await startHttpFake(async (req) => {
    waiting.push(req.path);
    await opened;
    const query = req.query.toString();
    const headers: Record<string, string> = {};
    for (const name of ['x-api-key', 'anthropic-version']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
    const res = await fetch(`${vendor.url}${req.path}${query ? `?${query}` : ''}`, { method: req.method, headers });
    return { status: res.status, text: await res.text(), headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } };
  });
  return {
    url: proxy.url,
    /** Calls that reached the vendor while the gate was closed, in order. */
    waiting,
    close() {
      waiting.length = 0;
      opened = new Promise<void>((resolve) => (release = resolve));
    },
    open() {
      release?.();
      opened = Promise.resolve();
    },
    stop: () => proxy.close(),
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function refusesConnections(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

type JobRun = { job_name: string; node_id: string; outcome: string | null; finished_at: unknown };

describe(`graceful shutdown of a server process (${TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let vendor: AnthropicFake;
  let gate: Awaited<ReturnType<typeof startGatedVendor>>;
  let env: Record<string, string>;
  let dropDatabase = async () => {};
  const started: ServerProcess[] = [];

  before(async () => {
    vendor = await startAnthropicFake();
    gate = await startGatedVendor(vendor);
    const common = {
      NODE_ENV: 'test',
      APP_SPEND_ANTHROPIC_BASE_URL: gate.url,
      APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true',
      APP_SPEND_VENDOR_MAX_RETRIES: '0',
    };
    if (TEST_DATABASE_URL) {
      const scratch = await createScratchDatabase(TEST_DATABASE_URL, 'tally_shutdown');
      dropDatabase = scratch.drop;
      env = { ...common, ...productionSecrets(), DATABASE_URL: scratch.url, DATABASE_POOL_SIZE: '5' };
    } else {
      const dataDir = mkdtempSync(join(tmpdir(), 'tally-shutdown-'));
      dropDatabase = async () => rmSync(dataDir, { recursive: true, force: true });
      env = { ...common, DATABASE_URL: '', DATA_DIR: dataDir };
    }
  });
  after(async () => {
    gate.open();
    for (const server of started) await server.kill();
    await gate.stop();
    await vendor.close();
    await dropDatabase();
  });

  const start = async (extra: Record<string, string>) => {
    const server = await startServerProcess({ ...env, ...extra });
    started.push(server);
    return server;
  };
  const login = async (http: Http) => {
    const res = await http.post('/public/v1/login', { body: { username: 'admin', password: 'admin' } });
    assert.equal(res.status, 200, res.text);
    return res.body.data.token as string;
  };
  const jobRuns = async (): Promise<JobRun[]> => {
    const sql = 'select job_name, node_id, outcome, finished_at from job_runs order by started_at, job_name';
    if (env.DATABASE_URL) {
      const client = new pg.Client({ connectionString: env.DATABASE_URL });
      await client.connect();
      try {
        return (await client.query<JobRun>(sql)).rows;
      } finally {
        await client.end();
      }
    }
    const database = await openDatabase({ kind: 'pglite', dataDir: env.DATA_DIR });
    try {
      return (await database.withSession((exec) => exec(sql))) as JobRun[];
    } finally {
      await database.close();
    }
  };
  const ranBy = (runs: JobRun[], server: ServerProcess) => runs.filter((r) => r.node_id.endsWith(`:${server.pid}`));

  test('when SIGTERM arrives mid-request and mid-job then new connections are refused, both finish, and the process exits 0', async () => {
    // A node without jobs adds a vendor connection: the next node's first scheduler tick syncs it.
    const setup = await start({ APP_JOBS_ENABLED: 'false' });
    const setupHttp = new Http(setup.url);
    const created = await setupHttp.post(CONNECTIONS, { auth: await login(setupHttp), body: { provider: 'ANTHROPIC', label: 'Job', adminKey: ANTHROPIC_FAKE_KEY } });
    assert.equal(created.status, 201, created.text);
    setup.signal('SIGTERM');
    assert.equal(await setup.exited, 0);

    gate.close();
    const node = await start({ APP_JOBS_ENABLED: 'true' });
    const http = new Http(node.url);
    const token = await login(http);
    await until('the initial-sync job to call the vendor', () => gate.waiting.length >= 1);

    // An API request that is in flight (its key check waits at the vendor) when the signal comes.
    const inFlight = http.post(CONNECTIONS, { auth: token, body: { provider: 'ANTHROPIC', label: 'Request', adminKey: ANTHROPIC_FAKE_KEY } });
    await until('the request to reach the vendor', () => gate.waiting.includes('/v1/organizations/me'));
    node.signal('SIGTERM');
    await node.waitForLine(/SIGTERM: shutting down/);
    await until('the listener to close', () => refusesConnections(node.url), 10_000);
    assert.equal(gate.waiting.length, 2, 'the job and the request were still waiting when new connections were refused');

    gate.open();
    const answer = await inFlight;
    assert.equal(answer.status, 201, answer.text);
    assert.equal(await node.exited, 0, node.lines.join('\n'));

    const runs = await jobRuns();
    const mine = ranBy(runs, node);
    const sync = mine.find((r) => r.job_name === 'spend-initial-sync');
    assert.ok(sync, `the node claimed the initial-sync slot: ${JSON.stringify(runs)}`);
    assert.equal(sync.outcome, 'SUCCEEDED');
    assert.ok(sync.finished_at, 'the running slot finished and was recorded before the pool closed');
    // Jobs after it in the same tick were not claimed: they are left to the other nodes.
    for (const later of ['idempotency-purge', 'platform-housekeeping']) {
      assert.ok(!mine.some((r) => r.job_name === later), `${later} was not claimed after SIGTERM`);
    }
  });

  test('when the stopped node left slots unclaimed then a second node on PostgreSQL runs them', { skip: !TEST_DATABASE_URL && 'one process per embedded database' }, async () => {
    const before = await jobRuns();
    const second = await start({ APP_JOBS_ENABLED: 'true' });
    await until('the second node to run the slots left unclaimed', async () => {
      const names = ranBy(await jobRuns(), second).filter((r) => r.finished_at).map((r) => r.job_name);
      return names.includes('idempotency-purge') && names.includes('platform-housekeeping');
    });
    second.signal('SIGTERM');
    assert.equal(await second.exited, 0, second.lines.join('\n'));
    const runs = await jobRuns();
    assert.ok(ranBy(runs, second).every((r) => r.outcome === 'SUCCEEDED'), JSON.stringify(ranBy(runs, second)));
    // The first node's finished slot is not run again.
    const initial = before.find((r) => r.job_name === 'spend-initial-sync')!;
    assert.equal(runs.filter((r) => r.job_name === 'spend-initial-sync' && r.node_id === initial.node_id).length, 1);
  });
});
