/**
 * The README's quickstart cannot rot (issue 29): its block is docs/quickstart.sh line for line, and
 * the script runs with bash against a fresh server process with the dev seed, on a temp DATA_DIR
 * (PGlite) or on a PostgreSQL database of its own (TEST_DATABASE_URL), the way a user runs it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { backend, createTestDatabase } from '../harness.js';
import { productionSecrets, SERVER_DIR, startServerProcess, type ServerProcess } from '../server-process.js';

const REPO_DIR = join(SERVER_DIR, '../..');
const SCRIPT = join(REPO_DIR, 'docs/quickstart.sh');

/** The script's body: every line after `set -euo pipefail` and the blank line below it. */
function scriptBody(): string[] {
  const lines = readFileSync(SCRIPT, 'utf8').trimEnd().split('\n');
  const start = lines.indexOf('set -euo pipefail');
  assert.ok(start > 0, 'docs/quickstart.sh has a `set -euo pipefail` line');
  return lines.slice(lines[start + 1] === '' ? start + 2 : start + 1);
}

/** The first ```sh block under the README's "Quickstart" heading. */
function readmeBlock(): string[] {
  const lines = readFileSync(join(REPO_DIR, 'README.md'), 'utf8').split('\n');
  const heading = lines.findIndex((l) => /^#{2,4} Quickstart\b/.test(l));
  assert.ok(heading >= 0, 'the README has a Quickstart heading');
  const open = lines.indexOf('```sh', heading);
  const close = lines.indexOf('```', open + 1);
  assert.ok(open > heading && close > open, 'the Quickstart section has a ```sh block');
  return lines.slice(open + 1, close);
}

type Run = { code: number | null; stdout: string; stderr: string };

function runScript(env: Record<string, string>, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT], { cwd: REPO_DIR, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`docs/quickstart.sh did not finish within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe(`quickstart: docs/quickstart.sh against a fresh server (${backend})`, () => {
  let server: ServerProcess;
  let drop = async () => {};

  before(async () => {
    // The dev seed (admin/admin, sk_test_000…) as `npm start` makes it; no jobs, which the script needs none of.
    const common = { NODE_ENV: 'development', APP_JOBS_ENABLED: 'false' };
    if (backend === 'postgres') {
      const store = await createTestDatabase();
      drop = store.drop;
      server = await startServerProcess({ ...common, ...productionSecrets(), ...store.env, DATABASE_POOL_SIZE: '5' });
    } else {
      const dataDir = mkdtempSync(join(tmpdir(), 'tally-quickstart-'));
      drop = async () => rmSync(dataDir, { recursive: true, force: true });
      server = await startServerProcess({ ...common, DATABASE_URL: '', DATA_DIR: dataDir });
    }
  });
  after(async () => {
    await server?.kill();
    await drop();
  });

  test('when the README shows the quickstart then its block is the script below `set -euo pipefail`, line for line', () => {
    const block = readmeBlock();
    const body = scriptBody();
    const differs = body.findIndex((line, i) => block[i] !== line);
    assert.ok(
      differs === -1 && block.length === body.length,
      `README.md's Quickstart block differs from docs/quickstart.sh at its line ${differs === -1 ? body.length + 1 : differs + 1}:\n` +
        `  README: ${JSON.stringify(block[differs === -1 ? body.length : differs])}\n  script: ${JSON.stringify(body[differs])}\n` +
        'copy the script from the line after `set -euo pipefail` into the block',
    );
  });

  test('when run against a fresh server then every step answers and it exits 0 with the story printed', async () => {
    const run = await runScript({ TALLY_URL: server.url });
    assert.equal(run.code, 0, `exit ${run.code}\n${run.stdout}\n${run.stderr}`);
    const out = run.stdout;
    for (const line of [
      /^feature ai-chat-\w+: [0-9a-f-]{36}$/m,
      /^plan ACTIVE$/m,
      /^customer user-\w+$/m,
      /^invoice PAID 49 USD$/m,
      /^check: \{"allowed":true,"usage":\{"used":0,"limit":1000000,"remaining":1000000,/m,
      /^event: 3 credits, 997 left$/m,
      /^batch: stored, stored$/m,
      /^grant: 500 PROMOTIONAL$/m,
      /^held 10 credits under flow [0-9a-f-]{36}$/m,
      /^streamed event: 6\.5 credits, 1487\.5 left$/m,
      /^ledger: GRANT 1000, DEDUCTION -3, DEDUCTION -2, DEDUCTION -1, GRANT 500, HOLD -10 .*RELEASE 3\.5\b/m,
      /^usage: \{"features":\[\{"featureKey":"ai-chat-\w+","used":5000,"limit":1000000,"remaining":995000/m,
      /"balance":1487\.5,"totalConsumed":12\.5/,
      /^invoices: IN_ADVANCE_INITIAL PAID 49 USD$/m,
    ]) {
      assert.match(out, line);
    }
  });

  test('when run again on the same server then it passes again (every name carries the run suffix)', async () => {
    const run = await runScript({ TALLY_URL: server.url });
    assert.equal(run.code, 0, `exit ${run.code}\n${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^streamed event: 6\.5 credits, 1487\.5 left$/m);
  });

  test('when a call is refused then it stops with a non-zero exit and prints the answer', async () => {
    const run = await runScript({ TALLY_URL: server.url, TALLY_PASSWORD: 'not-the-password' });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /"code":"unauthorized"/);
    assert.equal(run.stdout, '', 'nothing after the failed sign-in ran');
  });
});
