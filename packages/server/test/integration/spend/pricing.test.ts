import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type RawBuilder } from 'kysely';
import type { Database } from '../../../src/platform/db/database.js';
import { dec, type Decimal } from '../../../src/platform/money.js';
import { cacheRatesKnown, cacheRatesKnownSql, meteredCents, meteredCentsSql, pricedSql, pricesEvery, TOKEN_CLASSES, type TokenClass, type Tokens } from '../../../src/modules/spend/prices/cost.js';
import type { Rates } from '../../../src/modules/spend/prices/seed.js';
import { SPEND_PROVIDERS } from '../../../src/modules/spend/providers.js';
import { backend, migratedTestDatabase, openTestDatabase, ON_CITUS } from '../../harness.js';

/**
 * The one metered-cost rule (spend/prices/cost.ts) as TypeScript and as SQL agree: the same cases
 * through `meteredCents` / `pricesEvery` / `cacheRatesKnown` and through the SQL the reports,
 * allocation and simulate run. And the provider registry equals the migrated provider checks.
 */

const CLASSES = Object.keys(TOKEN_CLASSES) as TokenClass[];
const RATE_NAMES = ['input', 'output', 'cacheRead', 'cacheWrite5m', 'cacheWrite1h'] as const satisfies readonly (keyof Rates)[];
const TOKEN_VALUES = ['0', '1', '1234567', '999999999999'];
const RATE_VALUES = [null, '3', '0.3', '15.0000000001', '0'];

type Case = { tokens: Tokens<Decimal>; rates: Rates; batch: boolean };

/** A deterministic spread of cases: every class present or absent, rates known or missing. */
function cases(): Case[] {
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const out: Case[] = [];
  for (let i = 0; i < 120; i++) {
    const tokens: Tokens<Decimal> = {};
    for (const c of CLASSES) if (next(4) > 0) tokens[c] = dec(TOKEN_VALUES[next(TOKEN_VALUES.length)]!);
    const rates = Object.fromEntries(RATE_NAMES.map((r) => [r, (v => (v === null ? null : dec(v)))(RATE_VALUES[next(RATE_VALUES.length)]!)])) as Rates;
    out.push({ tokens, rates, batch: next(2) === 0 });
  }
  return out;
}

const numeric = (v: Decimal | null): RawBuilder<unknown> => (v === null ? sql`null::numeric` : sql`${v.toFixed()}::numeric`);

describe(`the metered-cost rule in TypeScript and in SQL agree (${backend})`, () => {
  let database: Database;
  let drop: () => Promise<void>;
  before(async () => {
    ({ database, drop } = await openTestDatabase());
  });
  after(async () => {
    await database.close();
    await drop();
  });

  test('metered cents, priced and cache-rates-known, case by case', async () => {
    for (const c of cases()) {
      const tokens = Object.fromEntries(Object.entries(c.tokens).map(([k, v]) => [k, numeric(v)])) as Tokens<RawBuilder<unknown>>;
      const rates = Object.fromEntries(RATE_NAMES.map((r) => [r, numeric(c.rates[r])])) as Record<keyof Rates, RawBuilder<unknown>>;
      const cache = CLASSES.some((k) => TOKEN_CLASSES[k].fallback !== null && c.tokens[k] !== undefined);
      const empty = Object.keys(c.tokens).length === 0;
      if (empty) continue;
      const { rows } = await sql<{ metered: string | number; priced: boolean; unbooked: boolean; cache_known: boolean | null }>`
        select ${meteredCentsSql(tokens, rates, sql`${c.batch}::boolean`)} as metered,
               ${pricedSql(tokens, rates, sql`1`)} as priced,
               ${pricedSql(tokens, rates, sql`null::int`)} as unbooked,
               ${cache ? cacheRatesKnownSql(tokens, rates) : sql`null::boolean`} as cache_known`.execute(database.db);
      const row = rows[0]!;
      const label = JSON.stringify(c);
      assert.ok(dec(String(row.metered)).equals(meteredCents(c.tokens, c.rates, c.batch)), `metered ${row.metered} ≠ ${meteredCents(c.tokens, c.rates, c.batch).toFixed()}: ${label}`);
      assert.equal(row.priced, pricesEvery(c.tokens, c.rates), `priced: ${label}`);
      assert.equal(row.unbooked, Object.values(c.tokens).every((t) => t.isZero()), `no book row: ${label}`);
      if (cache) assert.equal(row.cache_known, cacheRatesKnown(c.tokens, c.rates), `cache known: ${label}`);
    }
  });

  test('the per-person rows (no batch factor) are the same rule', async () => {
    const tokens = { uncachedInput: dec(1000), cacheWrite5m: dec(2000), output: dec(3000) };
    const r: Rates = { input: dec(3), output: dec(15), cacheRead: null, cacheWrite5m: null, cacheWrite1h: null };
    const { rows } = await sql<{ m: string | number }>`
      select ${meteredCentsSql({ uncachedInput: sql`1000::numeric`, cacheWrite5m: sql`2000::numeric`, output: sql`3000::numeric` }, Object.fromEntries(RATE_NAMES.map((n) => [n, numeric(r[n])])) as Record<keyof Rates, RawBuilder<unknown>>)} as m`.execute(database.db);
    assert.equal(dec(String(rows[0]!.m)).toFixed(), meteredCents(tokens, r).toFixed());
    assert.equal(meteredCents(tokens, r).toFixed(), '5.4');
  });
});

describe(`the provider registry equals the migrated provider checks (${backend})`, () => {
  const migrated = migratedTestDatabase();

  test("every spend table's provider check lists exactly the registry's providers", async () => {
    const { rows } = await sql<{ table_name: string; definition: string }>`
      select c.conrelid::regclass::text as table_name, pg_get_constraintdef(c.oid) as definition
        from pg_constraint c
        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any (c.conkey)
       where c.contype = 'c' and a.attname = 'provider' and c.conrelid::regclass::text like '%spend%'
         and c.connamespace = (select oid from pg_namespace where nspname = current_schema())`.execute(migrated().db);
    // The price book (spend_price_seed) holds the seeded vendors only; every other provider column is a spend vendor.
    // (On Citus the coordinator's catalog also lists the shards it holds: a table named with a shard id.)
    const checked = rows.filter((r) => !r.table_name.endsWith('spend_price_seed') && !(ON_CITUS && /_\d+$/.test(r.table_name)));
    assert.ok(checked.length >= 4, `provider checks found: ${rows.map((r) => r.table_name).join(', ')}`);
    for (const r of checked) {
      const listed = [...r.definition.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]);
      assert.deepEqual([...new Set(listed)].sort(), [...SPEND_PROVIDERS].sort(), `${r.table_name}: ${r.definition}`);
    }
  });
});
