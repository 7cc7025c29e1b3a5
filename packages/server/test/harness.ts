import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.js';
import { createAccount } from '../src/modules/accounts/service.js';
import { FrozenClock } from '../src/platform/clock.js';
import { openDatabase, type Database } from '../src/platform/db/database.js';
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

export async function openTestDatabase(): Promise<{ database: Database; schema?: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) return { database: await openDatabase({ kind: 'pglite' }), drop: async () => {} };
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const database = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL, searchPath: schema, poolSize: TEST_POOL_SIZE });
  return {
    database,
    schema,
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop schema ${schema} cascade`);
      await c.end();
    },
  };
}

function testConfig(options: StartOptions) {
  return loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789',
    APP_SECRETS_KEY: 'test-secrets-key-0123456789abcdef012345678',
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
  const { database, schema, drop } = await openTestDatabase();
  return listen(testConfig(options), database, new FrozenClock(options.now ?? '2026-03-10T12:00:00Z'), options, drop, schema);
}

/**
 * A second node on the first one's database (PostgreSQL only: the same schema, its own pool,
 * clock at the same instant, and its own process-local state such as caches and queues). Closing
 * it leaves the database to the first node.
 */
export async function startSecondNode(first: TestService, options: StartOptions = {}): Promise<TestService> {
  if (!TEST_DATABASE_URL || !first.schema) throw new Error('a second node needs PostgreSQL (TEST_DATABASE_URL)');
  const database = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL, searchPath: first.schema, poolSize: TEST_POOL_SIZE });
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
