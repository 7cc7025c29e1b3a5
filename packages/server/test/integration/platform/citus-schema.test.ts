import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { CITUS_LOCAL_TABLES, CITUS_PREPARE_SQL, CITUS_REFERENCE_TABLES, citusKindOf, readdForeignKey } from '../../../src/platform/db/citus.js';
import type { Database } from '../../../src/platform/db/database.js';
import { backend, migratedTestDatabase, ON_CITUS } from '../../harness.js';

/**
 * Tally on Citus, distributed by account_id (ADR 0023): the catalog of the migrated schema is held to
 * Citus's rules for the plan of platform/db/citus.ts, on both test databases (`npm run test:citus`
 * runs the whole suite on a real cluster, where `distributeOnCitus` applies it).
 * - Every table is classified: distributed by account_id (any table with the column, unless named),
 *   reference, or coordinator-local.
 * - A distributed table's unique keys (primary keys, unique constraints and unique indexes, partial
 *   or on expressions) all contain account_id as a key column.
 * - A distributed table's foreign keys map account_id to account_id (co-located), or point at a
 *   reference table; a reference table's only at reference tables; local tables have none.
 * Before citus/prepare.sql the only departures are the three it names and row-id primary keys it
 * re-keys; after it (run here on both databases) there are none. A migration adding a key without
 * account_id, or an unclassified table, fails this test.
 */
const prepareSql = readFileSync(CITUS_PREPARE_SQL, 'utf8');

type Kind = 'distributed' | 'reference' | 'local';

/** The departures from Citus's rules, one line each. */
async function violations(db: Database['db']): Promise<string[]> {
  const kinds = new Map<string, Kind>();
  const found: string[] = [];
  const { rows: tables } = await sql<{ name: string; has_account: boolean }>`
    select c.relname as name, exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id' and not a.attisdropped) as has_account
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition`.execute(db);
  for (const t of tables) {
    const kind = citusKindOf(t.name, t.has_account);
    if (!kind) found.push(`table ${t.name} has no account_id and is not classified in platform/db/citus.ts`);
    else kinds.set(t.name, kind);
  }
  for (const name of [...CITUS_REFERENCE_TABLES, ...CITUS_LOCAL_TABLES]) if (!tables.some((t) => t.name === name)) found.push(`platform/db/citus.ts names ${name}, which does not exist`);

  const { rows: uniques } = await sql<{ tbl: string; idx: string; def: string; has_account: boolean }>`
    select t.relname as tbl, i.relname as idx, pg_get_indexdef(ix.indexrelid) as def,
           coalesce(a.attnum = any ((ix.indkey::int2[])[0:ix.indnkeyatts - 1]), false) as has_account
      from pg_index ix
      join pg_class i on i.oid = ix.indexrelid
      join pg_class t on t.oid = ix.indrelid
      join pg_namespace n on n.oid = t.relnamespace
      left join pg_attribute a on a.attrelid = t.oid and a.attname = 'account_id' and not a.attisdropped
     where n.nspname = current_schema() and ix.indisunique and not t.relispartition`.execute(db);
  for (const u of uniques) {
    if (kinds.get(u.tbl) === 'distributed' && !u.has_account) found.push(`unique ${u.idx} on ${u.tbl} lacks account_id: ${u.def.replace(/^.* USING \w+ /, '')}`);
  }

  const { rows: fks } = await sql<{ tbl: string; name: string; ref: string; cols: string[]; ref_cols: string[] }>`
    select t.relname as tbl, c.conname as name, f.relname as ref,
           array(select a.attname::text from unnest(c.conkey) with ordinality k(attnum, i) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.i) as cols,
           array(select a.attname::text from unnest(c.confkey) with ordinality k(attnum, i) join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.attnum order by k.i) as ref_cols
      from pg_constraint c
      join pg_class t on t.oid = c.conrelid
      join pg_class f on f.oid = c.confrelid
      join pg_namespace n on n.oid = t.relnamespace
     where n.nspname = current_schema() and c.contype = 'f' and c.conparentid = 0 and not t.relispartition`.execute(db);
  for (const fk of fks) {
    const [from, to] = [kinds.get(fk.tbl), kinds.get(fk.ref)];
    const at = fk.cols.indexOf('account_id');
    const label = `foreign key ${fk.name} (${fk.tbl} → ${fk.ref})`;
    if (from === 'local' || to === 'local') found.push(`${label} touches a coordinator-local table`);
    else if (from === 'reference' && to !== 'reference') found.push(`${label}: a reference table may only reference reference tables`);
    else if (from === 'distributed' && to === 'distributed' && (at < 0 || fk.ref_cols[at] !== 'account_id')) found.push(`${label} does not map account_id to account_id`);
    else if (from === 'distributed' && to === 'reference' && at < 0) found.push(`${label} does not carry account_id`);
  }
  return found.sort();
}

// On a Citus run the harness has already prepared and distributed every test schema; there
// citus-cluster.test.ts distributes one itself and checks the result on the cluster.
describe(`the schema on Citus, distributed by account_id (${backend})`, { skip: ON_CITUS && 'each test schema is already distributed on a Citus run' }, () => {
  const migrated = migratedTestDatabase();

  test('when the migrated schema is read then its only departures are row-id primary keys and the three foreign keys citus/prepare.sql names', async () => {
    const found = await violations(migrated().db);
    const rowIdKeys = found.filter((v) => /^unique \w+_pkey on \w+ lacks account_id: \(id\)$/.test(v));
    assert.ok(rowIdKeys.length > 0);
    assert.deepEqual(
      found.filter((v) => !rowIdKeys.includes(v)),
      [
        'foreign key account_settings_account_id_agent_signup_default_plan_id_fkey (account_settings → plans): a reference table may only reference reference tables',
        'foreign key api_keys_account_id_customer_id_fkey (api_keys → customers): a reference table may only reference reference tables',
        'foreign key portal_sessions_account_id_customer_id_fkey (portal_sessions → customers): a reference table may only reference reference tables',
      ],
    );
  });

  test('when citus/prepare.sql has run then every unique key and foreign key of the tenant tables fits the distribution by account_id', async () => {
    await migrated().withSession((exec) => exec(`begin;\n${prepareSql}\ncommit;`));
    assert.deepEqual(await violations(migrated().db), []);
    // The re-keyed tables: each keeps one unique key on (account_id, id) a foreign key or a lookup can use.
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace s on s.oid = c.relnamespace
       where s.nspname = current_schema() and k.contype = 'p' and pg_get_constraintdef(k.oid) = 'PRIMARY KEY (id)'
         and c.relname not in ('accounts', 'users', 'api_keys', 'account_settings', 'spend_price_seed_state')`.execute(migrated().db);
    assert.equal(rows[0]!.n, 0, 'no tenant table is keyed by its row id alone');
  });
});

describe('a foreign key put back after distribution', () => {
  test('when it sets a column null on delete then it comes back without the action and a trigger on the referenced table does it', () => {
    const [fk, fn, trigger] = readdForeignKey({
      tbl: 'spend_units',
      ref: 'features',
      name: 'spend_units_account_id_feature_id_fkey',
      def: 'FOREIGN KEY (account_id, feature_id) REFERENCES features(account_id, id) ON DELETE SET NULL (feature_id)',
    });
    assert.equal(fk, 'alter table "spend_units" add constraint "spend_units_account_id_feature_id_fkey" foreign key (account_id, "feature_id") references "features" (account_id, "id")');
    assert.match(fn!, /update "spend_units" set "feature_id" = null where account_id = old.account_id and "feature_id" = old."id"/);
    assert.match(trigger!, /before delete on "features" for each row/);
  });

  test('when it has no such action then it comes back as it was', () => {
    const def = 'FOREIGN KEY (account_id, plan_id) REFERENCES plans(account_id, id) ON DELETE CASCADE';
    assert.deepEqual(readdForeignKey({ tbl: 'subscriptions', ref: 'plans', name: 'subscriptions_plan_fkey', def }), [`alter table "subscriptions" add constraint "subscriptions_plan_fkey" ${def}`]);
  });
});
