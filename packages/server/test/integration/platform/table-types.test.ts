import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import ts from 'typescript';
import type { Database } from '../../../src/platform/db/database.js';
import { backend, migratedTestDatabase } from '../../harness.js';

/**
 * The hand-written Kysely table types against the migrated schema (issue 30 item 3): every table of
 * the schema is declared in `DB` and every declared table exists; each declares exactly its columns;
 * a column is `… | null` in the type exactly when it is nullable in the database; no table is
 * declared twice. A migration without its types, or a type without its migration, fails here on both
 * engines. `DB` is the root `interface DB` of platform/db/tables.ts (the platform's tables) merged
 * with every `declare module '…/platform/db/tables.js' { interface DB { … } }` block of the
 * modules' tables.ts files (ADR 0031). The types are read from the source with the TypeScript
 * parser: a column's select type is the first argument of ColumnType, the argument of Generated, or
 * the type itself; a name is looked up in its own file, then in platform/db/tables.ts (the shared
 * column types), then in the one table file that declares it.
 */
const SRC = new URL('../../../src/', import.meta.url);
const PLATFORM_TABLES = 'platform/db/tables.ts';

/** platform/db/tables.ts and every modules/**\/tables.ts, relative to src/. */
function tableFiles(): string[] {
  const modules = readdirSync(new URL('modules/', SRC), { recursive: true, encoding: 'utf8' })
    .filter((p) => p === 'tables.ts' || p.endsWith('/tables.ts'))
    .map((p) => `modules/${p}`)
    .sort();
  return [PLATFORM_TABLES, ...modules];
}

type DeclaredColumn = { nullable: boolean };
type Declared = Map<string, Map<string, DeclaredColumn>>;
type TableFile = { path: string; source: ts.SourceFile; interfaces: Map<string, ts.InterfaceDeclaration>; aliases: Map<string, ts.TypeNode> };

function readDeclaredTables(): { tables: Declared; declaredIn: Map<string, string[]>; files: string[] } {
  const files: TableFile[] = tableFiles().map((path) => {
    const source = ts.createSourceFile(path, readFileSync(new URL(path, SRC), 'utf8'), ts.ScriptTarget.Latest, true);
    const interfaces = new Map<string, ts.InterfaceDeclaration>();
    const aliases = new Map<string, ts.TypeNode>();
    for (const statement of source.statements) {
      if (ts.isInterfaceDeclaration(statement) && statement.name.text !== 'DB') interfaces.set(statement.name.text, statement);
      if (ts.isTypeAliasDeclaration(statement)) aliases.set(statement.name.text, statement.type);
    }
    return { path, source, interfaces, aliases };
  });
  const platform = files[0]!;
  /** The declaration `name` means in `file`: its own, the platform's, else the only file declaring it. */
  const lookup = <T>(file: TableFile, name: string, kind: 'interfaces' | 'aliases'): [T, TableFile] | undefined => {
    for (const f of [file, platform]) {
      const d = f[kind].get(name);
      if (d) return [d as T, f];
    }
    const owners = files.filter((f) => f[kind].has(name));
    assert.ok(owners.length <= 1, `${name} (used in ${file.path}) is declared in ${owners.map((f) => f.path).join(' and ')}`);
    return owners[0] ? [owners[0][kind].get(name) as T, owners[0]] : undefined;
  };
  const includesNull = (file: TableFile, node: ts.TypeNode, seen = new Set<string>()): boolean => {
    if (ts.isLiteralTypeNode(node)) return node.literal.kind === ts.SyntaxKind.NullKeyword;
    if (ts.isUnionTypeNode(node)) return node.types.some((t) => includesNull(file, t, seen));
    if (ts.isParenthesizedTypeNode(node)) return includesNull(file, node.type, seen);
    if (ts.isTypeReferenceNode(node)) {
      const name = node.typeName.getText(file.source);
      // ColumnType<Select, Insert, Update> and Generated<T>: the select type decides.
      if ((name === 'ColumnType' || name === 'Generated') && node.typeArguments?.[0]) return includesNull(file, node.typeArguments[0], seen);
      const alias = seen.has(name) ? undefined : lookup<ts.TypeNode>(file, name, 'aliases');
      if (alias) return includesNull(alias[1], alias[0], new Set([...seen, name]));
    }
    return false;
  };
  const columnsOf = (file: TableFile, name: string): Map<string, DeclaredColumn> => {
    const found = lookup<ts.InterfaceDeclaration>(file, name, 'interfaces');
    assert.ok(found, `interface ${name} (used in ${file.path}) is declared in a tables.ts`);
    const [declaration, owner] = found;
    const columns = new Map<string, DeclaredColumn>();
    for (const heritage of declaration.heritageClauses ?? []) {
      for (const parent of heritage.types) for (const [c, d] of columnsOf(owner, parent.expression.getText(owner.source))) columns.set(c, d);
    }
    for (const member of declaration.members) {
      if (!ts.isPropertySignature(member) || !member.type) continue;
      columns.set(member.name.getText(owner.source), { nullable: includesNull(owner, member.type) });
    }
    return columns;
  };
  /** The `interface DB` blocks of a file: the platform's at top level, a module's inside its augmentation. */
  const dbBlocks = (file: TableFile): ts.InterfaceDeclaration[] => {
    const isDb = (s: ts.Statement): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'DB';
    if (file === platform) return file.source.statements.filter(isDb);
    const blocks: ts.InterfaceDeclaration[] = [];
    for (const statement of file.source.statements) {
      if (!ts.isModuleDeclaration(statement) || !ts.isStringLiteral(statement.name)) continue;
      assert.ok(statement.name.text.endsWith('platform/db/tables.js'), `${file.path} augments ${statement.name.text}, not platform/db/tables.js`);
      if (statement.body && ts.isModuleBlock(statement.body)) blocks.push(...statement.body.statements.filter(isDb));
    }
    return blocks;
  };
  const tables: Declared = new Map();
  const declaredIn = new Map<string, string[]>();
  for (const file of files) {
    const blocks = dbBlocks(file);
    if (file === platform) assert.equal(blocks.length, 1, 'platform/db/tables.ts declares interface DB');
    for (const db of blocks) {
      for (const member of db.members) {
        if (!ts.isPropertySignature(member) || !member.type || !ts.isTypeReferenceNode(member.type)) continue;
        const table = member.name.getText(file.source);
        declaredIn.set(table, [...(declaredIn.get(table) ?? []), file.path]);
        tables.set(table, columnsOf(file, member.type.typeName.getText(file.source)));
      }
    }
  }
  return { tables, declaredIn, files: files.map((f) => f.path) };
}

/** The differences between the declared types and the migrated schema, one line each. */
async function drift(db: Database['db']): Promise<string[]> {
  const { tables: declared, declaredIn } = readDeclaredTables();
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
  for (const [table, paths] of declaredIn) if (paths.length > 1) problems.push(`table ${table} is declared in DB more than once (${paths.join(', ')})`);
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
  const migrated = migratedTestDatabase();

  test('when every migration has run then each table, column and nullability declared in tables.ts is the database\'s', async () => {
    assert.deepEqual(await drift(migrated().db), []);
  });

  test('when a type is wrong then the comparison names it (the check can fail)', async () => {
    const { tables: declared, files } = readDeclaredTables();
    assert.ok(declared.size > 50, `read ${declared.size} tables`);
    assert.ok(files.includes('modules/catalog/tables.ts') && files.includes('modules/spend/tables.ts'), `read ${files.join(', ')}`);
    assert.deepEqual(declared.get('job_runs')?.get('finished_at'), { nullable: true }, 'a platform table');
    assert.deepEqual(declared.get('api_keys')?.get('revoked_at'), { nullable: true }, 'Date | null');
    assert.deepEqual(declared.get('api_keys')?.get('last_used_at'), { nullable: true }, 'ColumnType<Date | null, …>');
    assert.deepEqual(declared.get('users')?.get('role'), { nullable: false }, "Generated<'ADMIN'>");
    assert.deepEqual(declared.get('credit_pools')?.get('balance'), { nullable: false }, 'Numeric alias, imported from platform/db/tables.ts');
    assert.deepEqual(declared.get('spend_actor_metrics')?.get('sessions'), { nullable: true }, 'Int8 | null');
  });

  test('when the table files are read then no table is declared in DB twice, and each module declares its own', () => {
    const { declaredIn } = readDeclaredTables();
    assert.deepEqual([...declaredIn].filter(([, paths]) => paths.length > 1), []);
    assert.deepEqual(declaredIn.get('features'), ['modules/catalog/tables.ts']);
    assert.deepEqual(declaredIn.get('idempotency_records'), ['platform/db/tables.ts']);
  });
});
