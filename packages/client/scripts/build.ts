/**
 * Builds the package: ESM (per file, with .d.ts) by tsc into dist/, then CommonJS by esbuild into
 * dist/cjs/ (one bundle; dependencies stay `require`s) with the same declarations beside it and a
 * `{"type":"commonjs"}` marker, so `require` resolves types as CommonJS. Prints the size report.
 *
 *   npm run build -w @tally/client
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { reportSize } from './size.js';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(pkg, 'dist');
const cjs = join(dist, 'cjs');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

execFileSync(process.execPath, [tsc, '-p', join(pkg, 'tsconfig.json')], { stdio: 'inherit' });

rmSync(cjs, { recursive: true, force: true });
await build({
  entryPoints: [join(pkg, 'src', 'index.ts')],
  outfile: join(cjs, 'index.js'),
  bundle: true,
  packages: 'external',
  format: 'cjs',
  platform: 'neutral',
  target: 'es2022',
  logLevel: 'warning',
});
writeFileSync(join(cjs, 'package.json'), '{ "type": "commonjs" }\n');
const copyDeclarations = (from: string) => {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (source === cjs) continue;
    if (entry.isDirectory()) copyDeclarations(source);
    else if (entry.name.endsWith('.d.ts')) {
      const target = join(cjs, relative(dist, source));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(source, target);
    }
  }
};
copyDeclarations(dist);

await reportSize();
