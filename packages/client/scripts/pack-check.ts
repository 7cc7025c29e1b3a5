/**
 * What a user installs (issue 29 item 10). Packs the package as `npm publish` would (`prepack` builds
 * from an empty dist/), checks the tarball's files and package.json, installs the tarball in an empty
 * folder (its dependencies from the registry or npm's cache) and loads it by `import` and by
 * `require`, one call through each against a local server, then type-checks the README's example
 * against it, ESM and CommonJS. Prints what it checked; exits 1 naming every failure.
 *
 *   npm run pack:check -w @tally/client
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(pkgDir, '..', '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Files a user needs; anything else in the tarball (build info, maps, sources, tests) is a failure. */
const ALLOWED = /^(package\.json|README\.md|LICENSE|dist\/cjs\/package\.json|dist\/.+\.(js|d\.ts))$/;
const REQUIRED = ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json'];
/** Exports a user reaches for first; each must be a function by `import` and by `require`. */
const ENTRY_EXPORTS = ['Tally', 'TallyCustomer', 'createCore', 'Transport', 'Batcher', 'meter', 'TallyError', 'TallyApiError'];

const failures: string[] = [];
const check = (ok: boolean, what: string) => {
  if (!ok) failures.push(what);
};

// `npm run -w` hands its workspace context down through the environment; the consumer must not see it.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^npm_(lifecycle_|package_|command$|config_(local_prefix|workspaces?|include_workspace_root|call)$)/i.test(key)),
);

function run(cmd: string, args: string[], cwd: string): string {
  const result = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${result.status ?? result.signal}:\n${result.stdout}${result.stderr}`);
  }
  return result.stdout;
}

function checkFiles(files: string[]): void {
  for (const file of files) check(ALLOWED.test(file), `the tarball holds ${file}, which a user does not need`);
  for (const file of REQUIRED) check(files.includes(file), `the tarball lacks ${file}`);
  const rootLicense = join(repoRoot, 'LICENSE');
  const license = readFileSync(join(pkgDir, 'LICENSE'), 'utf8');
  check(license.includes('Apache License') && license.includes('Version 2.0, January 2004'), 'LICENSE is not the Apache License 2.0');
  if (existsSync(rootLicense)) check(readFileSync(rootLicense, 'utf8') === license, "LICENSE differs from the repository's");
}

/** The files an `exports` map names: its string values (a subpath key such as "./webhooks" is not a file). */
function exportTargets(exports: unknown): string[] {
  if (typeof exports === 'string') return [exports];
  if (!exports || typeof exports !== 'object') return [];
  return Object.values(exports).flatMap(exportTargets);
}

function checkManifest(manifest: Record<string, any>, files: string[]): void {
  check(manifest.license === 'Apache-2.0', `license is ${manifest.license}, not Apache-2.0`);
  check(typeof manifest.repository?.url === 'string' && manifest.repository.directory === 'packages/client', 'repository (url, directory) missing');
  check(manifest.engines?.node === '>=20.19', `engines.node is ${manifest.engines?.node}, not >=20.19`);
  check(manifest.sideEffects === false, 'sideEffects is not false');
  const targets = [manifest.main, manifest.module, manifest.types, ...exportTargets(manifest.exports)];
  for (const target of targets) check(files.includes(target.replace(/^\.\//, '')), `${target} (named in package.json) is not in the tarball`);
  for (const [name, spec] of Object.entries<string>(manifest.dependencies ?? {})) {
    check(!/^(file|link|workspace|git|https?):/.test(spec), `dependency ${name}@${spec} cannot come from the registry`);
  }
}

/** One call through `Tally` and one through `createCore` (openapi-fetch) against a local server. */
const LOAD_BODY = `
  const missing = ${JSON.stringify(ENTRY_EXPORTS)}.filter((name) => typeof client[name] !== 'function');
  if (missing.length) throw new Error('not exported as functions: ' + missing.join(', '));
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(req.url.includes('entitlements') ? '{"allowed":true,"featureKey":"ai.chat","balance":12.5}' : '{"data":[],"pagination":{}}');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = 'http://127.0.0.1:' + server.address().port;
  const checked = await new client.Tally({ baseUrl, apiKey: 'sk_test_pack', maxRetries: 0 }).check('user_1', 'ai.chat', { units: '4000' });
  const core = await client.createCore({ baseUrl }).GET('/api/v1/client/customers', {});
  server.close();
  if (checked.allowed !== true || checked.balance !== '12.5') throw new Error('check answered ' + JSON.stringify(checked));
  if (core.response.status !== 200) throw new Error('createCore GET answered ' + core.response.status);
  console.log(${JSON.stringify(ENTRY_EXPORTS.length)} + ' exports are functions; check() allowed, balance "12.5"; createCore GET 200');`;

function checkLoads(consumer: string): void {
  const esm = `import * as client from '@tally/client'; import http from 'node:http';
    console.log('resolved ' + import.meta.resolve('@tally/client')); ${LOAD_BODY}`;
  const cjs = `const client = require('@tally/client'); const http = require('node:http');
    console.log('resolved ' + require.resolve('@tally/client')); (async () => { ${LOAD_BODY} })().catch((e) => { console.error(e); process.exit(1); });`;
  for (const [how, args, entry] of [['import', ['--input-type=module', '-e', esm], 'dist/index.js'], ['require', ['-e', cjs], 'dist/cjs/index.js']] as const) {
    try {
      const out = run(process.execPath, [...args], consumer).trim();
      check(out.includes(`@tally/client/${entry}`), `${how} resolved elsewhere than ${entry}: ${out}`);
      console.log(`  ${how}: ${out.replace(/\n/g, '; ')}`);
    } catch (error) {
      failures.push(`${how} failed: ${(error as Error).message}`);
    }
  }
}

/** The README's example (what a user copies first) and a CommonJS importer, against the installed types. */
function checkTypes(consumer: string): void {
  const readme = readFileSync(join(pkgDir, 'README.md'), 'utf8');
  check(/^## Install\b/m.test(readme) && readme.indexOf('## Install') === readme.indexOf('\n## ') + 1, 'README: "## Install" is not the first section');
  const example = /## Example[^\n]*\n+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!example) return void failures.push('README: no ```ts block under "## Example"');
  const prelude = `declare const process: { env: Record<string, string | undefined> };
declare const messages: unknown;
declare function callTheModel(messages: unknown): Promise<{ usage: { total_tokens: number } }>;\n`;
  writeFileSync(join(consumer, 'example.mts'), prelude + example);
  writeFileSync(join(consumer, 'require.cts'), `import { Tally, type EventResult } from '@tally/client';
const tally = new Tally({ baseUrl: 'http://localhost:8080', apiKey: 'sk_test_pack' });
export const track = (eventName: string): Promise<EventResult> => tally.track({ eventName, featureKey: 'ai.chat', customerReferenceId: 'user_1' });\n`);
  const compilerOptions = { module: 'nodenext', target: 'es2022', lib: ['es2023', 'dom'], types: [], strict: true, noEmit: true, skipLibCheck: false };
  writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['example.mts', 'require.cts'] }));
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--listFiles'], { cwd: consumer, encoding: 'utf8' });
  // --listFiles prints every file it read (absolute paths) among the diagnostics.
  const diagnostics = result.stdout.split('\n').filter((line) => line && !line.startsWith('/')).join('\n');
  if (result.status !== 0) return void failures.push(`type check (tsc -p ${consumer}) failed:\n${diagnostics}${result.stderr}`);
  for (const entry of ['dist/index.d.ts', 'dist/cjs/index.d.ts']) check(result.stdout.includes(`@tally/client/${entry}`), `tsc did not resolve ${entry}`);
  console.log('  tsc --noEmit (strict, skipLibCheck off): the README example (ESM) and a require (CommonJS) type-check');
}

const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'tally-client-pack-'));
try {
  run('npm', ['pack', '-w', '@tally/client', '--pack-destination', work, '--loglevel=warn'], repoRoot);
  const tarball = join(work, readdirSync(work).find((name) => name.endsWith('.tgz'))!);
  const files = run('tar', ['-tzf', tarball], work).split('\n').filter((line) => line && !line.endsWith('/')).map((line) => line.replace(/^package\//, '')).sort();
  console.log(`npm pack -w @tally/client → ${files.length} files:\n${files.map((file) => `  ${file}`).join('\n')}`);
  checkFiles(files);
  run('tar', ['-xzf', tarball, 'package/package.json'], work);
  checkManifest(JSON.parse(readFileSync(join(work, 'package', 'package.json'), 'utf8')), files);

  const consumer = join(work, 'consumer');
  mkdirSync(consumer);
  run('npm', ['init', '-y'], consumer);
  run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], consumer);
  console.log(`installed in an empty folder: ${readdirSync(join(consumer, 'node_modules')).join(', ')}`);
  checkLoads(consumer);
  checkTypes(consumer);
} catch (error) {
  failures.push((error as Error).message);
}

const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (failures.length) {
  console.error(`pack:check FAILED (${seconds} s; files kept in ${work}):\n${failures.map((f) => `  - ${f}`).join('\n')}`);
  process.exit(1);
}
rmSync(work, { recursive: true, force: true });
console.log(`pack:check OK (${seconds} s)`);
