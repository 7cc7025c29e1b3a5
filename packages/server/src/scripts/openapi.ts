/**
 * Writes the OpenAPI document the service serves at /v3/api-docs to a file, without listening and
 * without touching a configured database (in-memory PGlite): `npm run openapi -- <out.json>`.
 * `npm run lint` lints that file with Redocly (redocly.yaml).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.js';
import { openDatabase } from '../platform/db/database.js';
import { createRuntime } from '../runtime.js';

const out = process.argv[2] ?? join(mkdtempSync(join(tmpdir(), 'tally-openapi-')), 'openapi.json');
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'development',
  DATABASE_URL: '',
  JWT_SECRET: 'openapi-document-only-0123456789abcdef',
  APP_SECRETS_KEY: 'openapi-document-only-0123456789abcdef',
  APP_JOBS_ENABLED: 'false',
  LOG_LEVEL: 'silent',
});
const runtime = await createRuntime(config, { database: await openDatabase({ kind: 'pglite' }) });
try {
  await runtime.app.ready();
  writeFileSync(out, `${JSON.stringify(runtime.app.swagger(), null, 2)}\n`);
  console.log(out);
} finally {
  await runtime.close();
}
