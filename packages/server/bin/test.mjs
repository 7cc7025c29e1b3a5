#!/usr/bin/env node
/* global process, URL */
/**
 * `npm test` for the server (ADR 0044): bundles every test file (bin/bundle-tests.mjs) into a
 * directory of its own under .test-bundle/ (two runs side by side, as CI's direct and pooled
 * PostgreSQL runs, never share one), runs them with `node --test` at TEST_CONCURRENCY files at a
 * time (default 2), removes the bundle and exits with the runner's code.
 *   node bin/test.mjs [--package DIR] [node --test options…]
 * --package: the tests of another workspace package (the console's `npm test`: apps/console), bundled
 * the same way; the bundle still goes under packages/server/.test-bundle, where Node resolves the
 * server's own dependencies, which the console's tests load through the server's test harness.
 * TEST_FILES_PER_PROCESS: see groupFiles below (default 6 for the server, 1 for the console).
 * TEST_ONLY: whitespace-separated test files (relative to the package) to run instead of all;
 * a name that is not a test file fails the run (CI's pooled run names its files, ADR 0021).
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleTests } from './bundle-tests.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, '.test-bundle', `run-${process.pid}`);
const only = process.env.TEST_ONLY?.split(/\s+/).filter(Boolean);
const args = process.argv.slice(2);
const at = args.indexOf('--package');
const base = at >= 0 ? resolve(args.splice(at, 2)[1]) : root;
const bundled = await bundleTests(outdir, only && only.length > 0 ? only : undefined, base);
// The server's files six to a process; the console's each alone (their browser harness keeps one session per process).
const files = groupFiles(bundled, Number(process.env.TEST_FILES_PER_PROCESS ?? (base === root ? 6 : 1)));
const child = spawn(process.execPath, ['--test', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, ...args, ...files], { stdio: 'inherit' });

/**
 * TEST_FILES_PER_PROCESS=n: n test files (in path order) share one process, an entry that imports
 * them in turn, so the start of a process (loading the modules, compiling PGlite's WebAssembly) is
 * paid once per n files; node:test runs their suites one after another, as within a file. A test
 * file therefore changes nothing process-wide (no top-level hooks, no process.env writes, no global
 * fetch; the lint suite's source-shape test checks it). 1: a process per file.
 */
function groupFiles(entries, perProcess) {
  if (!(perProcess > 1)) return entries;
  const groups = [];
  for (let i = 0; i < entries.length; i += perProcess) groups.push(entries.slice(i, i + perProcess));
  return groups.map((group, i) => {
    const file = join(outdir, `group-${String(i).padStart(3, '0')}.mjs`);
    writeFileSync(file, group.map((entry) => `import ${JSON.stringify(`./${relative(outdir, entry)}`)};\n`).join(''));
    return file;
  });
}
const cleanup = () => rmSync(outdir, { recursive: true, force: true });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  cleanup();
  process.exit(code ?? (signal ? 1 : 0));
});
