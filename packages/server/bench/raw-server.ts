/**
 * The raw baseline: plain Fastify and the plain driver, no Tally code, in its own process. One
 * primary-key SELECT (`GET /raw/select`) and one single-row INSERT (`POST /raw/insert`), the same
 * statements as the Tally bench routes.
 * - PostgreSQL (RAW_DATABASE_URL): a `pg` pool of 50 on the Tally bench schema (RAW_SCHEMA), reading
 *   the bench account (RAW_ACCOUNT_ID) and inserting into job_runs, as the Tally routes do.
 * - PGlite (RAW_PGLITE_DIR): its own data directory (the Tally process holds its own), with the two
 *   tables created here, default durability, the statements run straight on the one connection.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';

type Query = (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;

const insertSql = 'insert into job_runs (job_name, slot, node_id, started_at) values ($1, $2, $3, $4) on conflict do nothing';
const selectSql = 'select id, name from accounts where id = $1';

async function open(): Promise<{ query: Query; accountId: string; close(): Promise<void> }> {
  if (process.env.RAW_PGLITE_DIR) {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = new PGlite(process.env.RAW_PGLITE_DIR);
    await db.exec(`
      create table accounts (id uuid primary key, name text not null);
      create table job_runs (job_name text not null, slot timestamptz not null, node_id text not null, started_at timestamptz not null, primary key (job_name, slot));`);
    const accountId = randomUUID();
    await db.query('insert into accounts (id, name) values ($1, $2)', [accountId, 'raw']);
    return { query: (text, values) => db.query(text, values), accountId, close: () => db.close() };
  }
  const pg = (await import('pg')).default;
  // Idle connections close after a second: the Tally server needs the database's connection slots
  // while its own scenarios run.
  const pool = new pg.Pool({ connectionString: process.env.RAW_DATABASE_URL, max: 50, idleTimeoutMillis: 1000, options: `-c search_path=${process.env.RAW_SCHEMA}` });
  return { query: (text, values) => pool.query(text, values), accountId: process.env.RAW_ACCOUNT_ID!, close: () => pool.end() };
}

const db = await open();
const app = Fastify({ logger: false });
app.get('/raw/select', async () => ({ data: (await db.query(selectSql, [db.accountId])).rows[0] }));
app.post('/raw/insert', async () => {
  const now = new Date();
  await db.query(insertSql, [`raw:${db.accountId}`, now, randomUUID(), now]);
  return { data: { stored: true } };
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send!({ port: typeof address === 'object' && address ? address.port : 0 });

process.on('message', async (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuMicros: user + system });
    return;
  }
  if (message !== 'stop') return;
  await new Promise((r) => setTimeout(r, 500));
  await app.close();
  await db.close();
  process.exit(0);
});
