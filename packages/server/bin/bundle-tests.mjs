#!/usr/bin/env node
/* global process, console, URL */
/**
 * Bundles the server's test files for `npm test` (ADR 0044). Under `node --import tsx` every module
 * a test process loads goes through tsx's loader hooks, which Node 20 runs on another thread: a test
 * file that starts the service spent 5–6 s of CPU loading ~1,500 modules before its first test, and
 * the suite has ~220 files, run three times in CI. Here esbuild compiles them once into
 * `.test-bundle/` (the tests' entry points and shared chunks of our code, third-party packages left
 * to Node), which plain `node --test` loads without hooks.
 *
 * Each of our modules keeps its own `import.meta.url` (its source file's URL, inlined), so paths a
 * module computes from its location (PACKAGE_ROOT, fixtures, the console's dist) are those of the
 * sources, as under tsx. `node --import tsx --test <file>` keeps working for a single file.
 *   node bin/bundle-tests.mjs [outdir]   (default .test-bundle); prints the entry points it wrote.
 * `npm test` runs bin/test.mjs, which bundles into a directory of its own and runs the result.
 */
import { build } from 'esbuild';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Inlines each of our modules' own URL where it reads `import.meta.url`. */
const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.tsx?$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const source = readFileSync(args.path, 'utf8');
      const contents = source.includes('import.meta.url') ? source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)) : source;
      return { contents, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

/**
 * Writes the bundle of every test file of a package (`base`, default packages/server: the `*.test.ts`
 * under its src/ and test/; or of those `only` names, paths relative to `base`) to `outdir`; returns
 * the entry points' paths there. The console's tests are bundled from apps/console the same way.
 * Third-party packages stay imports, so `outdir` must be where Node resolves the server's own
 * dependencies: under packages/server.
 */
export async function bundleTests(outdir, only, base = root) {
  const all = ['src', 'test'].flatMap((dir) => (existsSync(join(base, dir)) ? testFiles(join(base, dir)) : [])).sort();
  const wanted = only && new Set(only.map((file) => resolve(base, file)));
  const missing = wanted ? [...wanted].filter((file) => !all.includes(file)) : [];
  if (missing.length > 0) throw new Error(`no such test file: ${missing.map((file) => relative(base, file)).join(', ')}`);
  const entryPoints = wanted ? all.filter((file) => wanted.has(file)) : all;
  rmSync(outdir, { recursive: true, force: true });
  await build({
  entryPoints,
  outdir,
  outbase: base,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  plugins: [ownImportMetaUrl],
  });
  return entryPoints.map((entry) => join(outdir, relative(base, entry)).replace(/\.ts$/, '.mjs'));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const file of await bundleTests(resolve(root, process.argv[2] ?? '.test-bundle'))) console.log(relative(process.cwd(), file));
}
