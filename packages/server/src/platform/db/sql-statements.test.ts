import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readMigrations } from './migrator.js';
import { splitSqlStatements } from './sql-statements.js';

test('when a script has strings, identifiers, comments and function bodies with semicolons then it splits only at the top-level ones', () => {
  const script = `-- a comment; not a split
create table "a;b" (x text default 'it''s; fine');
/* block; /* nested; */ still; */ select 1;
create function f() returns int language plpgsql as $f$ begin return 1; end $f$;
do $$ begin perform 1; end $$;
select 'x' -- trailing; comment
;
;`;
  assert.deepEqual(splitSqlStatements(script), [
    `-- a comment; not a split\ncreate table "a;b" (x text default 'it''s; fine')`,
    '/* block; /* nested; */ still; */ select 1',
    'create function f() returns int language plpgsql as $f$ begin return 1; end $f$',
    'do $$ begin perform 1; end $$',
    "select 'x' -- trailing; comment",
  ]);
});

test("when every migration is split then no statement is empty and the pieces put back together hold all of the script's code", () => {
  for (const m of readMigrations()) {
    const parts = splitSqlStatements(m.sql);
    assert.ok(parts.length > 0, m.name);
    const squash = (s: string) => s.replace(/--[^\n]*/g, '').replace(/[\s;]+/g, '');
    assert.equal(squash(parts.join(';')), squash(m.sql), m.name);
  }
});
