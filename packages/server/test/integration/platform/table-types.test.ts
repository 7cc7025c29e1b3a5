import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import ts from 'typescript';
import type { Database } from '../../../src/platform/db/database.js';
import { migrate } from '../../../src/platform/db/migrator.js';
import { backend, openTestDatabase } from '../../harness.js';

/**
 * The hand-written Kysely table types (platform/db/tables.ts) against the migrated schema (issue 30
 * item 3): every table of the schema is declared in `DB` and every declared table exists; each
 * declares exactly its columns; a column is `… | null` in the type exactly when it is nullable in
 * the database. A migration without its types, or a type without its migration, fails here on both
 * engines. The types are read from the source with the TypeScript parser: a column's select type is
 * the first argument of ColumnType, the argument of Generated, or the type itself.
 */
const TABLES_FILE = new URL('../../../src/platform/db/tables.ts', import.meta.url);

type DeclaredColumn = { nullable: boolean };
type Declared = Map<string, Map<string, DeclaredColumn>>;

function readDeclaredTables(): Declared {
  const source = ts.createSourceFile('tables.ts', readFileSync(TABLES_FILE, 'utf8'), ts.ScriptTarget.Latest, true);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  const aliases = new Map<string, ts.TypeNode>();
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement)) interfaces.set(statement.name.text, statement);
    if (ts.isTypeAliasDeclaration(statement)) aliases.set(statement.name.text, statement.type);
  }
  const includesNull = (node: ts.TypeNode, seen = new Set<string>()): boolean => {
    if (ts.isLiteralTypeNode(node)) return node.literal.kind === ts.SyntaxKind.NullKeyword;
    if (ts.isUnionTypeNode(node)) return node.types.some((t) => includesNull(t, seen));
    if (ts.isParenthesizedTypeNode(node)) return includesNull(node.type, seen);
    if (ts.isTypeReferenceNode(node)) {
      const name = node.typeName.getText(source);
      // ColumnType<Select, Insert, Update> and Generated<T>: the select type decides.
      if ((name === 'ColumnType' || name === 'Generated') && node.typeArguments?.[0]) return includesNull(node.typeArguments[0], seen);
      const alias = aliases.get(name);
      if (alias && !seen.has(name)) return includesNull(alias, new Set([...seen, name]));
    }
    return false;
  };
  const columnsOf = (name: string): Map<string, DeclaredColumn> => {
    const declaration = interfaces.get(name);
    assert.ok(declaration, `interface ${name} is declared in tables.ts`);
    const columns = new Map<string, DeclaredColumn>();
    for (const heritage of declaration.heritageClauses ?? []) {
      for (const parent of heritage.types) for (const [c, d] of columnsOf(parent.expression.getText(source))) columns.set(c, d);
    }
    for (const member of declaration.members) {
      if (!ts.isPropertySignature(member) || !member.type) continue;
      columns.set(member.name.getText(source), { nullable: includesNull(member.type) });
    }
    return columns;
  };
  const db = interfaces.get('DB');
  assert.ok(db, 'tables.ts declares interface DB');
  const tables: Declared = new Map();
  for (const member of db.members) {
    if (!ts.isPropertySignature(member) || !member.type || !ts.isTypeReferenceNode(member.type)) continue;
    tables.set(member.name.getText(source), columnsOf(member.type.typeName.getText(source)));
  }
  return tables;
}

/** The differences between the declared types and the migrated schema, one line each. */
async function drift(db: Database['db']): Promise<string[]> {
  const declared = readDeclaredTables();
  const { rows } = await sql<{ table_name: string; column_name: string; is_nullable: string }>`
    select col.table_name, col.column_name, col.is_nullable
      from information_schema.columns col
      join pg_namespace n on n.nspname = col.table_schema
      join pg_class c on c.relnamespace = n.oid and c.relname = col.table_name
     where col.table_schema = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
     order by col.table_name, col.ordinal_position`.execute(db);
  const actual = new Map<string, Map<string, boolean>>();
  for (const r of rows) {
    if (!actual.has(r.table_name)) actual.set(r.table_name, new Map());
    actual.get(r.table_name)!.set(r.column_name, r.is_nullable === 'YES');
  }
  const problems: string[] = [];
  for (const table of actual.keys()) if (!declared.has(table)) problems.push(`table ${table} is migrated but not declared in DB`);
  for (const [table, columns] of declared) {
    const migrated = actual.get(table);
    if (!migrated) {
      problems.push(`table ${table} is declared but not migrated`);
      continue;
    }
    for (const [column, { nullable }] of columns) {
      if (!migrated.has(column)) problems.push(`${table}.${column} is declared but not migrated`);
      else if (migrated.get(column) !== nullable) problems.push(`${table}.${column} is ${migrated.get(column) ? 'nullable' : 'NOT NULL'} in the database but ${nullable ? 'allows' : 'excludes'} null in its type`);
    }
    for (const column of migrated.keys()) if (!columns.has(column)) problems.push(`${table}.${column} is migrated but not declared`);
  }
  return problems;
}

describe(`table types match the migrated schema (${backend})`, () => {
  let database: Database;
  let drop: () => Promise<void>;
  before(async () => {
    ({ database, drop } = await openTestDatabase());
    await migrate(database);
  });
  after(async () => {
    await database.close();
    await drop();
  });

  test('when every migration has run then each table, column and nullability declared in tables.ts is the database\'s', async () => {
    assert.deepEqual(await drift(database.db), []);
  });

  test('when a type is wrong then the comparison names it (the check can fail)', async () => {
    const declared = readDeclaredTables();
    assert.ok(declared.size > 50, `read ${declared.size} tables`);
    assert.deepEqual(declared.get('api_keys')?.get('revoked_at'), { nullable: true }, 'Date | null');
    assert.deepEqual(declared.get('api_keys')?.get('last_used_at'), { nullable: true }, 'ColumnType<Date | null, …>');
    assert.deepEqual(declared.get('users')?.get('role'), { nullable: false }, "Generated<'ADMIN'>");
    assert.deepEqual(declared.get('credit_pools')?.get('balance'), { nullable: false }, 'Numeric alias');
  });
});
