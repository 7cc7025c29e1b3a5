/**
 * `npm run doctor`: checks a configuration without starting the server and prints every problem in
 * one list (exit 1 if any). It reads the same environment as the server (config.ts) and never
 * writes: no generated secrets, no migrations, and the embedded database is opened only when no
 * Tally process holds DATA_DIR's lock.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { apiKeyEnvironmentOf, configProblems, dataDirOf, MIN_SECRET_LENGTH, OUTBOUND_URL_VARIABLES, REQUIRED_SECRETS } from '../config.js';
import { openDatabase } from '../platform/db/database.js';
import { DataDirLockedError } from '../platform/db/data-dir-lock.js';
import { readMigrations } from '../platform/db/migrator.js';

/** A secret with fewer different characters than this is a placeholder, not a random value. */
const MIN_DISTINCT_SECRET_CHARACTERS = 10;
const CONNECT_TIMEOUT_MS = 5_000;
/** How long the notification check waits for its own NOTIFY. */
const NOTIFY_TIMEOUT_MS = 3_000;

type Report = { ok(line: string): void; note(line: string): void; problem(line: string): void };

const env = process.env;
const value = (name: string) => (env[name] ?? '').trim();
const isProduction = value('NODE_ENV') === 'production';
const problems: string[] = [];
const report: Report = {
  ok: (line) => console.log(`  ok    ${line}`),
  note: (line) => console.log(`  note  ${line}`),
  problem: (line) => {
    problems.push(line);
    console.log(`  FAIL  ${line}`);
  },
};

console.log(`Tally doctor (NODE_ENV=${value('NODE_ENV') || 'development'})`);
const found = configProblems(env);
checkConfiguration(report, found);
checkKeyEnvironment(report);
checkSecrets(report);
checkOutboundUrls(report, found);
if (isProduction && value('APP_METRICS_TOKEN') === '') {
  report.note('APP_METRICS_TOKEN is not set: /metrics answers anyone who can reach the node');
}
await checkDatabase(report);

if (problems.length > 0) {
  console.log(`\n${problems.length} problem${problems.length === 1 ? '' : 's'}:`);
  for (const p of problems) console.log(`  - ${p}`);
  process.exit(1);
}
console.log('\nNo problems found.');
process.exit(0);

function checkConfiguration(r: Report, found: string[]): void {
  if (found.length === 0) r.ok('configuration: every variable parses');
  for (const p of found) r.problem(p);
}

/** Which key prefixes new keys get, and why: an operator should never be surprised by sk_test_ in production. */
function checkKeyEnvironment(r: Report): void {
  const keys = apiKeyEnvironmentOf(env);
  const why = value('APP_API_KEY_ENVIRONMENT') ? 'APP_API_KEY_ENVIRONMENT' : `the default for NODE_ENV=${value('NODE_ENV') || 'development'}`;
  const line = `API key environment: ${keys} (new keys are sk_${keys}_…, ck_${keys}_…; ${why})`;
  if (isProduction && keys === 'test') r.note(`${line}: production is issuing test keys`);
  else r.ok(line);
}

/** Present (or kept in DATA_DIR by the embedded database), long enough, random-looking, distinct. */
function checkSecrets(r: Report): void {
  const external = value('DATABASE_URL') !== '';
  const seen = new Map<string, string>();
  for (const [name, file] of Object.entries(REQUIRED_SECRETS)) {
    let secret = value(name);
    let where = 'set';
    if (secret === '') {
      if (external) continue; // configProblems already says it is required
      const path = join(dataDirOf(env), file);
      if (!existsSync(path)) {
        r.note(`${name} is not set: the embedded database generates one into ${path} at first start (set it before exposing this install)`);
        continue;
      }
      secret = readFileSync(path, 'utf8').trim();
      where = `kept in ${path}`;
    }
    if (secret.length < MIN_SECRET_LENGTH) continue; // configProblems (or the generator) covers length
    if (new Set(secret).size < MIN_DISTINCT_SECRET_CHARACTERS) {
      r.problem(`${name}: fewer than ${MIN_DISTINCT_SECRET_CHARACTERS} different characters, a placeholder rather than a random value (e.g. openssl rand -base64 48)`);
      continue;
    }
    const twin = seen.get(secret);
    if (twin) {
      r.problem(`${name}: the same value as ${twin}; each secret must be its own random value`);
      continue;
    }
    seen.set(secret, name);
    r.ok(`${name}: ${where}, ${secret.length} characters`);
  }
}

/** Well-formedness is config.ts's (configProblems, listed above); here: plain http to another host in production. */
function checkOutboundUrls(r: Report, found: string[]): void {
  const plain: string[] = [];
  for (const name of OUTBOUND_URL_VARIABLES) {
    const url = value(name);
    if (url === '' || !URL.canParse(url)) continue;
    const { protocol, hostname } = new URL(url);
    if (protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(hostname)) plain.push(`${name}=${url}`);
  }
  const malformed = OUTBOUND_URL_VARIABLES.filter((name) => found.some((p) => p.startsWith(`${name}:`)));
  if (malformed.length === 0 && (plain.length === 0 || !isProduction)) {
    r.ok(`outbound URLs: ${OUTBOUND_URL_VARIABLES.length} well-formed (${OUTBOUND_URL_VARIABLES.join(', ')})`);
  }
  if (isProduction) for (const p of plain) r.problem(`${p}: plain http in production sends credentials unencrypted; use https`);
  else for (const p of plain) r.note(`${p}: plain http (a problem with NODE_ENV=production)`);
}

async function checkDatabase(r: Report): Promise<void> {
  const url = value('DATABASE_URL');
  if (url !== '') {
    let reachable = await checkPostgres(r, 'DATABASE_URL', url, true);
    const listenUrl = value('DATABASE_LISTEN_URL');
    if (listenUrl !== '' && listenUrl !== url) reachable = (await checkPostgres(r, 'DATABASE_LISTEN_URL', listenUrl, false)) && reachable;
    if (reachable) await checkNotifications(r, url, listenUrl || url);
    return;
  }
  const dataDir = dataDirOf(env);
  if (!existsSync(join(dataDir, 'pgdata'))) {
    r.note(`embedded database: none yet in ${dataDir}; the server creates and migrates it at first start`);
    return;
  }
  let database;
  try {
    database = await openDatabase({ kind: 'pglite', dataDir });
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      r.note(`embedded database in ${dataDir} is open in a running Tally process: not opened (only one process may); database checks skipped`);
    } else {
      r.problem(`embedded database in ${dataDir} does not open: ${(err as Error).message}`);
    }
    return;
  }
  try {
    r.ok(`database: embedded PGlite in ${dataDir} opens`);
    await checkMigrations(r, (sql) => database.withSession((exec) => exec(sql)));
  } finally {
    await database.close();
  }
}

/** Reachable (5 s connect timeout); on the main database (not the cache's LISTEN one) also the migrations. */
async function checkPostgres(r: Report, name: string, url: string, main: boolean): Promise<boolean> {
  let target: string;
  try {
    const u = new URL(url);
    if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new Error('not a postgres:// URL');
    target = `${u.hostname}:${u.port || 5432}${u.pathname}`; // never the password
  } catch (err) {
    r.problem(`${name}: not a PostgreSQL connection URL (postgres://user:password@host:5432/db): ${(err as Error).message}`);
    return false;
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await client.connect();
  } catch (err) {
    r.problem(`${main ? 'database' : name}: PostgreSQL at ${target} unreachable: ${(err as Error).message}`);
    await client.end().catch(() => {});
    return false;
  }
  try {
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    r.ok(`${main ? 'database' : name}: PostgreSQL ${rows[0]?.server_version} at ${target} answers`);
    if (main) await checkMigrations(r, async (sql) => (await client.query(sql)).rows);
  } finally {
    await client.end().catch(() => {});
  }
  return true;
}

/**
 * The node cache's invalidations (ADR 0013) are NOTIFYs sent through DATABASE_URL and heard on a
 * LISTEN session at DATABASE_LISTEN_URL (default DATABASE_URL). A LISTEN through a transaction
 * pooler, or on another database, hears nothing: the server then keeps its cache off (ADR 0021).
 */
async function checkNotifications(r: Report, url: string, listenUrl: string): Promise<void> {
  const channel = `tally_doctor_${randomBytes(6).toString('hex')}`;
  const listener = new pg.Client({ connectionString: listenUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  const sender = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await Promise.all([listener.connect(), sender.connect()]);
    const heard = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), NOTIFY_TIMEOUT_MS);
      listener.on('notification', (n) => n.channel === channel && (clearTimeout(timer), resolve(true)));
    });
    await listener.query(`listen ${channel}`);
    await sender.query('select pg_notify($1, $2)', [channel, 'doctor']);
    if (await heard) r.ok('cache notifications: a NOTIFY sent through DATABASE_URL is heard on the LISTEN session');
    else {
      r.problem(
        `cache notifications: a NOTIFY sent through DATABASE_URL is not heard on ${listenUrl === url ? 'DATABASE_URL' : 'DATABASE_LISTEN_URL'}; ` +
          'set DATABASE_LISTEN_URL to PostgreSQL itself (same database, not through a transaction pooler), or each node keeps its cache off',
      );
    }
  } catch (err) {
    r.problem(`cache notifications: could not be checked: ${(err as Error).message}`);
  } finally {
    await Promise.all([listener.end().catch(() => {}), sender.end().catch(() => {})]);
  }
}

/** Current: every migration of this build applied, and none the build does not know (a newer Tally's). */
async function checkMigrations(r: Report, query: (sql: string) => Promise<Record<string, unknown>[]>): Promise<void> {
  const known = readMigrations();
  const [{ present } = { present: false }] = await query(`select to_regclass('schema_migrations') is not null as present`);
  if (!present) {
    r.note(`migrations: a new, empty database; the server applies all ${known.length} when it first starts`);
    return;
  }
  const applied = await query('select version, name from schema_migrations order by version');
  const appliedNames = new Map(applied.map((row) => [String(row.version), String(row.name)]));
  const knownNames = new Map(known.map((m) => [m.version, m.name]));
  const pending = known.filter((m) => !appliedNames.has(m.version)).map((m) => `${m.version}_${m.name}`);
  const unknown = [...appliedNames].filter(([version, name]) => knownNames.get(version) !== name).map(([v, n]) => `${v}_${n}`);
  if (pending.length === 0 && unknown.length === 0) r.ok(`migrations: current (${known.length} applied)`);
  if (pending.length > 0) {
    r.problem(`migrations: ${pending.length} pending (${summary(pending)}); the server applies them when it starts`);
  }
  if (unknown.length > 0) {
    r.problem(`migrations: the database has ${unknown.length} this build does not know (${summary(unknown)}): it was migrated by another version of Tally`);
  }
}

function summary(names: string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 2).join(', ')}, … ${names.at(-1)}`;
}
