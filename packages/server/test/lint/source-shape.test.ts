import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The shape issue 30 asked for, held: no import cycle between source files of the server or the
 * client (type-only imports count too: a cycle of types is still two files that cannot be read
 * apart), one file that writes the credit ledger (ADR 0032), and no source file over 600 lines.
 * Tests and generated files are outside the rule.
 */
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const ROOTS = ['packages/server/src', 'packages/client/src'].map((r) => path.join(repoRoot, r));
const MAX_LINES = 600;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'generated' && name !== 'node_modules') sourceFiles(full, out);
    } else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts')) {
      out.push(full);
    }
  }
  return out;
}

/** The server's test files and test helpers (run grouped, several files to a process: bin/test.mjs). */
function serverTestFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) serverTestFiles(full, out);
    else if (name.endsWith('.ts') && (full.includes(`${path.sep}test${path.sep}`) || name.endsWith('.test.ts'))) out.push(full);
  }
  return out;
}

/**
 * What a test file must not do when it shares its process with other test files: hooks at the top
 * level (they would run around every file's tests), writes to process.env, a replaced global fetch
 * or dispatcher, mocked timers. Each finding is "line: text".
 */
const PROCESS_WIDE = [/^(before|after|beforeEach|afterEach)\(/, /process\.env(\.\w+|\[[^\]]+\])\s*=(?!=)/, /delete\s+process\.env/, /globalThis\.fetch\s*=(?!=)/, /setGlobalDispatcher\(/, /mock\.timers/];
function processWideChanges(text: string): string[] {
  return text.split('\n').flatMap((line, i) => (PROCESS_WIDE.some((re) => re.test(line)) ? [`${i + 1}: ${line.trim()}`] : []));
}

/** The relative imports and re-exports of one file, resolved to the files they name. */
function importsOf(file: string, known: Set<string>): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const targets: string[] = [];
  for (const statement of source.statements) {
    const specifier = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    const base = path.resolve(path.dirname(file), specifier.text).replace(/\.js$/, '');
    const target = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((candidate) => known.has(candidate));
    if (target) targets.push(target);
  }
  return targets;
}

/** Strongly connected components of more than one file (Tarjan), each a cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('source shape', () => {
  const files = ROOTS.flatMap((root) => sourceFiles(root));
  const known = new Set(files);
  const relative = (f: string) => path.relative(repoRoot, f);

  test('when the server and client sources are read then no file imports itself through other files', () => {
    assert.ok(files.length > 100, `read ${files.length} files`);
    const graph = new Map(files.map((f) => [f, importsOf(f, known)]));
    assert.deepEqual(cycles(graph).map((c) => c.map(relative).sort()), []);
  });

  test('when a cycle is planted then the check finds it', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    assert.deepEqual(cycles(graph).map((c) => c.sort()), [['a', 'b', 'c']]);
  });

  test('when the sources are searched then credit_transactions rows are inserted from credits/ledger.ts only', () => {
    const writers = files.filter((f) => /insert\s+into\s+credit_transactions\b|insertInto\(\s*'credit_transactions'/i.test(readFileSync(f, 'utf8'))).map(relative);
    assert.deepEqual(writers, ['packages/server/src/modules/credits/ledger.ts']);
    // And every one of its inserts claims the row's (pool, seq) in the same statement (migration 0036).
    const ledger = readFileSync(files.find((f) => relative(f) === writers[0])!, 'utf8');
    const count = (re: RegExp) => ledger.match(re)?.length ?? 0;
    assert.equal(count(/insert into credit_transaction_seqs\b/g), count(/insert into credit_transactions\b/g));
  });

  test("when a module declares tables then a file of the module imports them (a program that reads the module's rows sees its DB augmentation)", () => {
    const graph = new Map(files.map((f) => [f, importsOf(f, known)]));
    const declared = files.filter((f) => path.basename(f) === 'tables.ts' && f.includes(`${path.sep}modules${path.sep}`));
    assert.ok(declared.length >= 10, `found ${declared.length} tables.ts files`);
    const unimported = declared.filter((t) => ![...graph.entries()].some(([from, to]) => from !== t && to.includes(t))).map(relative);
    assert.deepEqual(unimported, []);
  });

  test('when the server\'s test files are read then none changes its process for the files it shares it with (bin/test.mjs groups them)', () => {
    const serverRoot = path.join(repoRoot, 'packages/server');
    const tests = [...serverTestFiles(path.join(serverRoot, 'src')), ...serverTestFiles(path.join(serverRoot, 'test'))];
    assert.ok(tests.length >= 200, `found ${tests.length} test files`);
    const findings = tests.flatMap((f) => processWideChanges(readFileSync(f, 'utf8')).map((hit) => `${relative(f)}:${hit}`));
    assert.deepEqual(findings, []);
  });

  test('when a test file with a top-level hook and an environment write is planted then the check finds both', () => {
    // Put together, so that this file itself holds no such line.
    const [hook, write] = ['after' + '(() => {});', 'process' + ".env.STRIPE_API_BASE = 'x';"];
    const planted = ["import { after } from 'node:test';", hook, write, "if (process.env.X === 'y') {}", '  after(() => {});'].join('\n');
    assert.deepEqual(processWideChanges(planted), [`2: ${hook}`, `3: ${write}`]);
  });

  test(`when the sources are measured then none is over ${MAX_LINES} lines`, () => {
    const long = files.map((f) => ({ file: relative(f), lines: readFileSync(f, 'utf8').split('\n').length })).filter((f) => f.lines > MAX_LINES);
    assert.deepEqual(long, []);
  });
});
