import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { PassThrough } from 'node:stream';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.js';
import { createAccount } from '../src/modules/accounts/service.js';
import { FrozenClock } from '../src/platform/clock.js';
import { openDatabase, type Database } from '../src/platform/db/database.js';
import { distributeOnCitus } from '../src/platform/db/citus.js';
import { migrate, readMigrations } from '../src/platform/db/migrator.js';
import { PACKAGE_ROOT } from '../src/platform/paths.js';
import { createRuntime, type Runtime } from '../src/runtime.js';

/**
 * Test harness: each call gets a fresh database (an in-memory PGlite, or a new schema on the
 * PostgreSQL named by TEST_DATABASE_URL), the real migrations, and the service listening on a
 * loopback port. Tests talk to it over HTTP.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
export const backend = TEST_DATABASE_URL ? 'postgres' : 'pglite';
/**
 * Connections per service pool on PostgreSQL. Test files run two at a time (`TEST_CONCURRENCY`) and
 * a few start a second node, so the sum must stay under the server's max_connections (100 on CI).
 */
const TEST_POOL_SIZE = Number(process.env.TEST_POOL_SIZE ?? 20);

export type TestService = Runtime & {
  baseUrl: string;
  clock: FrozenClock;
  /** The PostgreSQL schema of the service's database (absent on PGlite). */
  schema?: string;
  logs: () => string;
  http: Http;
  close(): Promise<void>;
};

export type StartOptions = {
  env?: Record<string, string>;
  now?: string;
  extraRoutes?: (app: FastifyInstance) => unknown;
  /** The console build to serve (default apps/console/dist). */
  consoleDir?: string;
};

/**
 * Behind a transaction pooler (`.ci/run`'s PgBouncer run) a schema per service cannot be chosen by the
 * connection's `search_path` option: PgBouncer refuses the `options` startup parameter (and would
 * only drop it with `ignore_startup_parameters`). There each service gets a database of its own with
 * `ALTER DATABASE … SET search_path`, which the server applies to every connection it opens to that
 * database, pooled or not (ADR 0021). The schema name stays the service's identity either way.
 */
const ISOLATION = process.env.TEST_DATABASE_ISOLATION === 'database' ? 'database' : 'schema';
/** Where LISTEN and the harness's own administration connect: PostgreSQL itself, not the pooler. */
const DIRECT_URL = process.env.TEST_DATABASE_LISTEN_URL || TEST_DATABASE_URL;
export const PREPARED_STATEMENTS = process.env.DATABASE_PREPARED_STATEMENTS !== 'false';
/** This run goes through a transaction pooler (TEST_DATABASE_LISTEN_URL names PostgreSQL itself). */
export const BEHIND_POOLER = Boolean(process.env.TEST_DATABASE_LISTEN_URL) && process.env.TEST_DATABASE_LISTEN_URL !== TEST_DATABASE_URL;

/**
 * `npm run test:citus` (ADR 0023): TEST_DATABASE_URL names a database on a Citus coordinator, and
 * every test database is a schema there, migrated and distributed by account_id before the test uses
 * it, so each test runs on the distributed engine (its shards on the two workers).
 */
export const ON_CITUS = process.env.TEST_CITUS === '1';

/**
 * Migrates a new test database and, on Citus, distributes it, as an operator does. Two test files
 * migrating, distributing or dropping their schemas at once contend on the cluster's catalogs (a
 * distributed deadlock or a concurrently updated catalog row: a before hook failing in CI after
 * 1.8 s). Each migration and the distribution are transactions and both are idempotent, so a failed
 * attempt left nothing half-done and runs again, a few times, saying why on stderr.
 */
async function migrateForCitus(database: Database): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await migrate(database);
      await database.withSession((exec) => distributeOnCitus(exec));
      return;
    } catch (err) {
      if (attempt >= 4) throw err;
      const cause = (err as { cause?: { code?: string } }).cause;
      process.stderr.write(`# citus: migrating a test schema failed (attempt ${attempt}, ${cause?.code ?? (err as { code?: string }).code ?? '-'}): ${(err as Error).message}\n`);
      await new Promise((resolve) => setTimeout(resolve, 300 * attempt));
    }
  }
}

/** The URL with another database name. */
export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function adminQuery(url: string, ...statements: string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const statement of statements) await runAdminStatement(admin, statement);
  } finally {
    await admin.end();
  }
}

/**
 * One administration statement. On Citus, a `drop schema … cascade` is distributed DDL, and two test
 * files dropping or distributing schemas at once can make the cluster pick one as a deadlock victim
 * (40P01, seen in CI). The statement rolled back whole, so it runs again, a few times.
 */
async function runAdminStatement(admin: pg.Client, statement: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await admin.query(statement);
      return;
    } catch (err) {
      if (!ON_CITUS || (err as { code?: string }).code !== '40P01' || attempt >= 5) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/** Opens (another pool on) the PostgreSQL of the test service whose schema is `schema`. */
export function openTestPostgres(schema: string, poolSize = TEST_POOL_SIZE, preparedStatements = PREPARED_STATEMENTS): Promise<Database> {
  if (!TEST_DATABASE_URL) throw new Error('PostgreSQL only (TEST_DATABASE_URL)');
  const common = { kind: 'postgres' as const, poolSize, preparedStatements };
  return ISOLATION === 'database'
    ? openDatabase({ ...common, url: withDatabaseName(TEST_DATABASE_URL, schema), listenUrl: withDatabaseName(DIRECT_URL!, schema) })
    : openDatabase({ ...common, url: TEST_DATABASE_URL, searchPath: schema, listenUrl: DIRECT_URL! });
}

/**
 * A PostgreSQL database of its own (search_path left at `public`) for tests that run the server as
 * separate processes: `env` is what such a node takes (DATABASE_URL through the pooler when the run
 * has one, DATABASE_LISTEN_URL to PostgreSQL directly, DATABASE_PREPARED_STATEMENTS as the run's).
 */
export async function createTestDatabase(): Promise<{ name: string; env: Record<string, string>; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error('PostgreSQL only (TEST_DATABASE_URL)');
  const name = `t_${randomBytes(6).toString('hex')}`;
  if (ON_CITUS) {
    // On Citus a schema of the cluster's database, distributed before the nodes start; the nodes
    // reach it through the connection's search_path option.
    await adminQuery(DIRECT_URL!, `create schema ${name}`);
    const database = await openTestPostgres(name, 2);
    await migrateForCitus(database).finally(() => database.close());
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${name}`);
    return {
      name,
      env: { DATABASE_URL: url.toString(), DATABASE_LISTEN_URL: url.toString(), DATABASE_PREPARED_STATEMENTS: String(PREPARED_STATEMENTS) },
      drop: () => adminQuery(DIRECT_URL!, `drop schema ${name} cascade`),
    };
  }
  await adminQuery(DIRECT_URL!, `create database ${name}`);
  return {
    name,
    env: {
      DATABASE_URL: withDatabaseName(TEST_DATABASE_URL, name),
      DATABASE_LISTEN_URL: withDatabaseName(DIRECT_URL!, name),
      DATABASE_PREPARED_STATEMENTS: String(PREPARED_STATEMENTS),
    },
    drop: () => adminQuery(DIRECT_URL!, `drop database ${name} with (force)`),
  };
}

export async function openTestDatabase(): Promise<{ database: Database; schema?: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) return { database: await openDatabase({ kind: 'pglite' }), drop: async () => {} };
  const schema = `t_${randomBytes(6).toString('hex')}`;
  if (ISOLATION === 'database') {
    await adminQuery(DIRECT_URL!, `create database ${schema}`);
    await adminQuery(withDatabaseName(DIRECT_URL!, schema), `create schema ${schema}`, `alter database ${schema} set search_path = ${schema}`);
  } else {
    await adminQuery(DIRECT_URL!, `create schema ${schema}`);
  }
  const database = await openTestPostgres(schema);
  if (ON_CITUS) await migrateForCitus(database);
  return {
    database,
    schema,
    async drop() {
      await adminQuery(DIRECT_URL!, ISOLATION === 'database' ? `drop database ${schema} with (force)` : `drop schema ${schema} cascade`);
    },
  };
}

/**
 * PGlite's initdb costs seconds per in-memory database, more than all the migrations. So a test
 * database that starts migrated starts from one image: the data directory of a database that ran
 * every migration, dumped once and kept in node_modules/.cache under a key of the migrations' text
 * and PGlite's version (a changed migration builds a new one). Test files run as processes of their
 * own; the first to need the image writes it (atomically, by rename) and the rest read it.
 */
let pgliteImage: Promise<Blob> | undefined;
function migratedPgliteImage(): Promise<Blob> {
  return (pgliteImage ??= loadOrBuildPgliteImage());
}

async function loadOrBuildPgliteImage(): Promise<Blob> {
  // Its package.json is not among its exports: read beside the entry point's dist/.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pgliteVersion = String(JSON.parse(readFileSync(join(entry.slice(0, entry.lastIndexOf('/dist/')), 'package.json'), 'utf8')).version);
  const key = createHash('sha256').update(pgliteVersion).update(JSON.stringify(readMigrations())).digest('hex').slice(0, 16);
  const dir = join(PACKAGE_ROOT, '../../node_modules/.cache/tally-test');
  const file = join(dir, `pglite-migrated-${key}.tar`);
  try {
    return new Blob([readFileSync(file)]);
  } catch {
    const database = await openDatabase({ kind: 'pglite' });
    try {
      await migrate(database);
      const image = await database.dumpImage!();
      mkdirSync(dir, { recursive: true });
      const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
      writeFileSync(partial, new Uint8Array(await image.arrayBuffer()));
      renameSync(partial, file);
      // Images of earlier migration sets are not read again.
      for (const old of readdirSync(dir)) if (old.startsWith('pglite-migrated-') && join(dir, old) !== file && !old.includes('.tar.')) rmSync(join(dir, old), { force: true });
      return image;
    } finally {
      await database.close();
    }
  }
}

/**
 * A test database on which every migration has run or will run at the service's start: on PGlite
 * opened from the migrated image, on PostgreSQL a new schema (or database) as `openTestDatabase`.
 */
async function openMigratedTestDatabase(): ReturnType<typeof openTestDatabase> {
  if (TEST_DATABASE_URL) return openTestDatabase();
  return { database: await openDatabase({ kind: 'pglite', image: await migratedPgliteImage() }), drop: async () => {} };
}

/**
 * A database of its own with every migration run, for the tests of the enclosing describe block:
 * opened before them, closed and dropped after. Call it in the block; read the database in a test.
 */
export function migratedTestDatabase(): () => Database {
  let database: Database | undefined;
  let drop = async () => {};
  before(async () => {
    ({ database, drop } = await openMigratedTestDatabase());
    await migrate(database);
  });
  after(async () => {
    await database?.close();
    await drop();
  });
  return () => database!;
}

/** The in-process services' secrets: a server process of a test takes them to open what a service sealed, and the reverse. */
export const TEST_SECRETS = { JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789', APP_SECRETS_KEY: 'test-secrets-key-0123456789abcdef012345678' };

function testConfig(options: StartOptions) {
  return loadConfig({
    NODE_ENV: 'test',
    ...TEST_SECRETS,
    LOG_LEVEL: 'info',
    APP_JOBS_ENABLED: 'false',
    // Never the real processor: a test that needs Stripe starts the fake and passes its origin.
    APP_STRIPE_API_BASE: 'http://127.0.0.1:9',
    // Nor the real AI vendors or e-mail provider: spend tests start the fakes and pass their origins.
    APP_SPEND_ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    APP_SPEND_OPENAI_BASE_URL: 'http://127.0.0.1:9',
    APP_SPEND_CURSOR_BASE_URL: 'http://127.0.0.1:9',
    APP_SPEND_GITHUB_BASE_URL: 'http://127.0.0.1:9',
    APP_RESEND_BASE_URL: 'http://127.0.0.1:9',
    ...options.env,
  });
}

export async function startTestService(options: StartOptions = {}): Promise<TestService> {
  const { database, schema, drop } = await openMigratedTestDatabase();
  return listen(testConfig(options), database, new FrozenClock(options.now ?? '2026-03-10T12:00:00Z'), options, drop, schema);
}

/**
 * A second node on the first one's database (PostgreSQL only: the same schema, its own pool,
 * clock at the same instant, and its own process-local state such as caches and queues). Closing
 * it leaves the database to the first node.
 */
export async function startSecondNode(first: TestService, options: StartOptions = {}): Promise<TestService> {
  if (!TEST_DATABASE_URL || !first.schema) throw new Error('a second node needs PostgreSQL (TEST_DATABASE_URL)');
  const database = await openTestPostgres(first.schema);
  return listen(testConfig(options), database, new FrozenClock(first.clock.now().toISOString()), options, async () => {}, first.schema);
}

/** The service on a database the caller opened (tests that reopen it afterwards); closing the service closes it. */
export async function startServiceOn(database: Database, options: StartOptions = {}, schema?: string): Promise<TestService> {
  return listen(testConfig(options), database, new FrozenClock(options.now ?? '2026-03-10T12:00:00Z'), options, async () => {}, schema);
}

async function listen(config: ReturnType<typeof loadConfig>, database: Database, clock: FrozenClock, options: StartOptions, drop: () => Promise<void>, schema: string | undefined): Promise<TestService> {
  const logStream = new PassThrough();
  let logText = '';
  logStream.on('data', (chunk: Buffer) => (logText += chunk.toString()));
  // TEST_LOG_ERRORS=1: the services' error lines on stderr (a run on another engine, e.g. Citus).
  if (process.env.TEST_LOG_ERRORS === '1') {
    logStream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (/"level":(50|60)/.test(line)) process.stderr.write(`${line}\n`);
    });
  }
  const runtime = await createRuntime(config, {
    database,
    clock,
    logStream,
    ...(options.extraRoutes ? { extraRoutes: options.extraRoutes } : {}),
    ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
  });
  // A deep accept queue: the hammer tests open a thousand connections at once.
  await runtime.app.listen({ port: 0, host: '127.0.0.1', backlog: 2048 });
  const address = runtime.app.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    ...runtime,
    baseUrl,
    clock,
    ...(schema ? { schema } : {}),
    logs: () => logText,
    http: new Http(baseUrl),
    async close() {
      await runtime.close();
      await drop();
    },
  };
}

export type HttpResponse = { status: number; headers: Headers; body: any; text: string };
export type RequestOptions = {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Sent as `Authorization: Bearer <auth>`. */
  auth?: string;
};

export class Http {
  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.auth) headers.authorization = `Bearer ${options.auth}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(this.baseUrl + path, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  get = (path: string, options?: RequestOptions) => this.request('GET', path, options);
  post = (path: string, options?: RequestOptions) => this.request('POST', path, options);
  put = (path: string, options?: RequestOptions) => this.request('PUT', path, options);
  patch = (path: string, options?: RequestOptions) => this.request('PATCH', path, options);
  delete = (path: string, options?: RequestOptions) => this.request('DELETE', path, options);
}

let accountCounter = 0;

/** Factory: an account with an admin login and tenant key, plus a logged-in JWT. */
export async function createTestAccount(service: TestService, overrides: { username?: string; password?: string } = {}) {
  accountCounter += 1;
  const username = overrides.username ?? `operator${accountCounter}-${randomBytes(3).toString('hex')}`;
  const password = overrides.password ?? 'correct horse battery';
  const { accountId, apiKey } = await createAccount(service.ctx, { accountName: `Account ${accountCounter}`, username, password });
  const login = await service.http.post('/public/v1/login', { body: { username, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.text}`);
  return { accountId, apiKey, username, password, token: login.body.data.token as string };
}
