/**
 * Statements per request: runs each hot route a few times in-process (app.inject) and prints the
 * SQL each request sends, to see where round trips (and, on PGlite, commits) go. Diagnostic only.
 *   node --import tsx bench/statements.ts            # PGlite in a temp DATA_DIR
 *   node --import tsx bench/statements.ts --postgres # a fresh schema on BENCH_DATABASE_URL
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createAccount } from '../src/modules/accounts/index.js';
import { ok } from '../src/platform/http/envelope.js';
import { accountIdOf } from '../src/platform/http/principal.js';
import { createRuntime } from '../src/runtime.js';
import { BENCH_ENV, openBenchDatabase, seedCredits, seedMonetization } from './fixtures.js';

const postgres = process.argv.includes('--postgres');
const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
let log: string[] | undefined;
const record = (text: unknown) => void log?.push(String(typeof text === 'object' && text ? (text as { text: string }).text : text).replace(/\s+/g, ' ').slice(0, 140));
const pgQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as { query: unknown }).query = function (this: unknown, ...args: unknown[]) {
  record(args[0]);
  return pgQuery.apply(this, args);
};
for (const method of ['query', 'exec'] as const) {
  const original = PGlite.prototype[method] as (...args: unknown[]) => unknown;
  (PGlite.prototype as unknown as Record<string, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
    record(args[0]);
    return original.apply(this, args);
  };
}

// The embedded driver sends named statements as raw protocol (Parse once, then Bind): decode those.
const statementTexts = new Map<string, string>();
const cstring = (bytes: Uint8Array, at: number): [string, number] => {
  const end = bytes.indexOf(0, at);
  return [Buffer.from(bytes.subarray(at, end)).toString('utf8'), end + 1];
};
const execProtocol = PGlite.prototype.execProtocol as (...args: unknown[]) => unknown;
(PGlite.prototype as unknown as Record<string, unknown>).execProtocol = function (this: unknown, ...args: unknown[]) {
  const bytes = args[0] as Uint8Array;
  for (let at = 0; at < bytes.length; at += 1 + new DataView(bytes.buffer, bytes.byteOffset + at + 1, 4).getInt32(0)) {
    const type = bytes[at];
    if (type === 0x50) {
      const [name, next] = cstring(bytes, at + 5);
      statementTexts.set(name, cstring(bytes, next)[0]);
    } else if (type === 0x42) {
      const [, next] = cstring(bytes, at + 5);
      const name = cstring(bytes, next)[0];
      record(`${name ? '[prepared] ' : ''}${statementTexts.get(name) ?? '?'}`);
    } else if (type === 0x51) {
      record(cstring(bytes, at + 5)[0]);
    }
  }
  return execProtocol.apply(this, args);
};

const tmp = mkdtempSync(join(tmpdir(), 'tally-statements-'));
const bench = await openBenchDatabase({ postgres, url, dataDir: tmp, prefix: 'stmts', poolSize: 4 });
const { schema, database } = bench;
const config = loadConfig({ ...process.env, ...bench.env, ...BENCH_ENV, NODE_ENV: 'production' });
const runtime = await createRuntime(config, {
  ...(database ? { database } : {}),
  extraRoutes: (app) => {
    app.get('/api/v1/client/bench/pk', async (request) => ok(await runtime.ctx.db.selectFrom('accounts').select(['id', 'name']).where('id', '=', accountIdOf(request)).executeTakeFirst()));
  },
});
const { apiKey, accountId } = await createAccount(runtime.ctx, { accountName: 'stmts', username: `stmts-${schema}`, password: 'stmts password' });
const { featureKey } = await seedMonetization(runtime.ctx, accountId);
const { creditFeatureKey } = await seedCredits(runtime.ctx, accountId);

const event = (customer: string, feature: string) => ({ eventName: 'msg', eventIdempotencyKey: randomUUID(), customerReferenceId: customer, featureKey: feature, usageUnits: 2, costInput: { model: 'gpt' } });
const requests: [string, 'GET' | 'POST', string, () => unknown][] = [
  ['pk-select', 'GET', '/api/v1/client/bench/pk', () => undefined],
  ['entitlement-get', 'GET', `/api/v1/client/entitlements/bench-1/${featureKey}`, () => undefined],
  ['entitlement-get-norec', 'GET', `/api/v1/client/entitlements/bench-1/${featureKey}?record=false`, () => undefined],
  ['entitlement-evaluate', 'POST', '/api/v1/client/entitlements', () => ({ customerReferenceId: 'bench-1', featureKey, usage: { usageUnits: 3, model: 'gpt' } })],
  ['credit-entitlement-get', 'GET', `/api/v1/client/entitlements/bench-credit-1/${creditFeatureKey}`, () => undefined],
  ['credit-entitlement-evaluate', 'POST', '/api/v1/client/entitlements', () => ({ customerReferenceId: 'bench-credit-1', featureKey: creditFeatureKey, usage: { usageUnits: 3, model: 'gpt' } })],
  ['ingest', 'POST', '/api/v1/client/events', () => event('bench-1', featureKey)],
  ['credit-ingest', 'POST', '/api/v1/client/events', () => event('bench-credit-1', creditFeatureKey)],
  ['credit-ingest-keyed', 'POST', '/api/v1/client/events', () => event('bench-credit-1', creditFeatureKey)],
];
for (const [name, method, path, body] of requests) {
  for (let i = 0; i < 3; i++) {
    log = [];
    const payload = body();
    const keyed = name.endsWith('-keyed') ? { 'idempotency-key': randomUUID() } : {};
    const res = await runtime.app.inject({ method, url: path, headers: { 'x-api-key': apiKey, ...keyed }, ...(payload ? { payload: payload as object } : {}) });
    const statements = log;
    log = undefined;
    if (i < 2) continue; // warm: first calls resolve caches of their own (e.g. the tariff)
    console.log(`\n${name}: HTTP ${res.statusCode}, ${statements.length} statements`);
    for (const s of statements) console.log(`  ${s}`);
  }
}
await runtime.close();
await bench.drop();
rmSync(tmp, { recursive: true, force: true });
