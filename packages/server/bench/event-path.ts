/**
 * The path of one credit-backed event through the server's files (issue 30's measure): which source
 * files `POST /api/v1/client/events` enters and how many of their functions run, counted by V8's
 * precise coverage between two snapshots around one event (after warm-up events, so caches and the
 * remembered context are as in steady state). Run with coverage on:
 *
 *   NODE_V8_COVERAGE=/tmp/event-path node --import tsx bench/event-path.ts
 *
 * Prints one row per file: the functions that ran and how many calls. `--keyed` sends the event
 * under an Idempotency-Key (a transaction of its own, not the lane). Embedded database unless
 * TEST_DATABASE_URL is set (the test harness decides).
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { takeCoverage } from 'node:v8';
import { monetization } from '../test/factories.js';
import { createTestAccount, startTestService } from '../test/harness.js';

const dir = process.env.NODE_V8_COVERAGE;
if (!dir) {
  console.error('Set NODE_V8_COVERAGE to a directory: NODE_V8_COVERAGE=/tmp/event-path node --import tsx bench/event-path.ts');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
const src = fileURLToPath(new URL('../src/', import.meta.url));

const svc = await startTestService();
try {
  const m = monetization(svc, await createTestAccount(svc));
  const model = await m.creditModel({ denomination: 'path', hardLimit: false });
  const feature = await m.feature({ key: 'path.f' });
  const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'path', name: 'path', description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
  await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0.01 } } }), 201);
  await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=1000000`), 201);
  await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
  await m.customer('path-customer');
  await m.subscribe('path-customer', plan.id);
  const keyed = process.argv.includes('--keyed');
  const send = async (i: number) => {
    const body = { eventName: 'path', customerReferenceId: 'path-customer', featureKey: 'path.f', usageUnits: 2, eventIdempotencyKey: `path-${i}` };
    const r = keyed ? await m.client('POST', '/events', body, { 'idempotency-key': `path-key-${i}` }) : await m.event(body);
    if (r.status !== 201 || !r.body?.data?.creditsDeducted) throw new Error(`event ${i}: ${r.status} ${r.text}`);
  };
  for (let i = 0; i < 5; i++) await send(i);

  const before = new Set(readdirSync(dir));
  takeCoverage(); // resets the counters: what follows is one event
  await send(99);
  const [fresh] = readdirSync(dir).filter((f) => !before.has(f)).sort();
  takeCoverage();
  const after = readdirSync(dir).filter((f) => !before.has(f) && f !== fresh).sort();
  const report = JSON.parse(readFileSync(join(dir, after[0]!), 'utf8')) as {
    result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
  };
  const rows = report.result
    .filter((s) => s.url.startsWith('file://') && fileURLToPath(s.url).startsWith(src))
    .map((s) => {
      const ran = s.functions.filter((f) => f.ranges[0]!.count > 0);
      return { file: fileURLToPath(s.url).slice(src.length), functions: ran.length, calls: ran.reduce((n, f) => n + f.ranges[0]!.count, 0), names: ran.map((f) => f.functionName || '(anonymous)') };
    })
    .filter((r) => r.calls > 0);
  const modules = rows.filter((r) => r.file.startsWith('modules/'));
  console.log(`one credit-backed event, POST /api/v1/client/events${keyed ? ' under an Idempotency-Key' : ''}, after 5 warm-up events`);
  for (const r of [...modules, ...rows.filter((r) => !r.file.startsWith('modules/'))]) {
    console.log(`${r.file.padEnd(48)} ${String(r.functions).padStart(4)} functions ${String(r.calls).padStart(5)} calls  ${r.names.slice(0, 8).join(', ')}${r.names.length > 8 ? ', …' : ''}`);
  }
  const sum = (rs: typeof rows, k: 'functions' | 'calls') => rs.reduce((n, r) => n + r[k], 0);
  console.log(`modules/: ${modules.length} files, ${sum(modules, 'functions')} functions, ${sum(modules, 'calls')} calls; all of src/: ${rows.length} files, ${sum(rows, 'calls')} calls`);
} finally {
  await svc.close();
}
