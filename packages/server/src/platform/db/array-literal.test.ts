import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { arrayLiteral } from './array-literal.js';

test('when values become an array literal then PostgreSQL reads back exactly those values, nulls and quotes included', async () => {
  const values = ['plain', '', 'NULL', null, 'with "quotes"', 'back\\slash\\', '{braces}, commas', ' spaces ', '{"json":"\\"x\\""}', 'ünï😀'];
  assert.equal(arrayLiteral([]), '{}');
  assert.equal(arrayLiteral(['a', null]), '{"a",NULL}');
  const db = new PGlite();
  try {
    const { rows } = await db.query<{ v: string | null }>('select unnest($1::text[]) as v', [arrayLiteral(values)]);
    assert.deepEqual(rows.map((r) => r.v), values);
    const json = await db.query<{ v: unknown }>('select unnest($1::jsonb[]) as v', [arrayLiteral(['{"a":[1,"\\\\"]}', '2'])]);
    assert.deepEqual(json.rows.map((r) => r.v), [{ a: [1, '\\'] }, 2]);
  } finally {
    await db.close();
  }
});
