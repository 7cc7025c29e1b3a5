import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { arrayLiteral, distinctDocuments } from './array-literal.js';

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

test('when a jsonb column goes as distinct documents then each row reads back its own document, nulls included, and each document is sent once', async () => {
  const values = ['{"allowed":true}', null, '{"allowed":false,"reason":"x"}', '{"allowed":true}', '{"q":"\\"a\\""}', null, '{"allowed":true}'];
  const { docs, index } = distinctDocuments(values);
  assert.equal(docs, arrayLiteral(['{"allowed":true}', '{"allowed":false,"reason":"x"}', '{"q":"\\"a\\""}']));
  assert.equal(index, '{"1",NULL,"2","1","3",NULL,"1"}');
  assert.deepEqual(distinctDocuments([]), { docs: '{}', index: '{}' });
  const db = new PGlite();
  try {
    const { rows } = await db.query<{ v: unknown }>('select ($1::jsonb[])[i] as v from unnest($2::int[]) with ordinality as u(i, n) order by n', [docs, index]);
    assert.deepEqual(rows.map((r) => r.v), values.map((v) => (v === null ? null : JSON.parse(v))));
  } finally {
    await db.close();
  }
});
