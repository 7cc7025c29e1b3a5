/**
 * Builds the package: ESM (per file, with .d.ts) by tsc into dist/, then CommonJS by esbuild into
 * dist/cjs/ (one bundle per entry, the root and `./webhooks`; dependencies stay `require`s) with the same declarations beside it and a
 * `{"type":"commonjs"}` marker, so `require` resolves types as CommonJS. Prints the size report.
 * `--clean` (npm's `prepack`) empties dist/ first, so a tarball holds nothing a removed source left.
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

// tsc's build info stays in dist/, so emptying dist/ forces a full emit (tsc -b and -p); `files` keeps
// it out of the tarball. Without --clean dist/ is rewritten in place: a test run may be importing it.
rmSync(process.argv.includes('--clean') ? dist : cjs, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(pkg, 'tsconfig.json')], { stdio: 'inherit' });

// One CommonJS bundle per entry: the package's root, and `@tally/client/webhooks` (verifyWebhook:
// a receiver's import, kept out of the root so the metering client does not carry standardwebhooks).
mkdirSync(cjs, { recursive: true });
for (const entry of ['index', 'webhooks']) {
  const { outputFiles } = await build({
    entryPoints: [join(pkg, 'src', `${entry}.ts`)],
    outfile: join(cjs, `${entry}.js`),
    bundle: true,
    packages: 'external',
    format: 'cjs',
    platform: 'neutral',
    target: 'es2022',
    logLevel: 'warning',
    write: false,
  });
  // src/ is Node ESM ("type": "module"), so esbuild gives each external `require` Node's ESM-imports-
  // CommonJS interop (`__toESM(…, 1)`: `default` is the whole `module.exports`). This bundle is CommonJS
  // requiring CommonJS, where `__esModule` decides; else openapi-fetch's default (`createClient`) comes
  // out as its exports object. `npm run pack:check` calls `createCore` through `require`.
  const bundle = outputFiles[0]!.text.replace(/__toESM\((require\("[^"]+"\)), 1\)/g, '__toESM($1)');
  if (/__toESM\([^;]*, 1\)/.test(bundle)) throw new Error(`dist/cjs/${entry}.js: an external import is left in Node ESM interop mode`);
  writeFileSync(join(cjs, `${entry}.js`), bundle);
}
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
