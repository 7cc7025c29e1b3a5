/**
 * The metering hot paths against the Tally baselines (tenant-key auth + one pk SELECT / one INSERT)
 * and the raw baselines (plain Fastify + driver), with the targets of issue 31 (item 4):
 *   PostgreSQL: entitlement check >= 0.6x raw pk SELECT; plain ingestion and one hot customer
 *   drawing credits >= 0.5x raw INSERT; credit ingestion over 50 customers >= 0.4x raw INSERT; each
 *   with p99 <= 3x its raw baseline's p99.
 *   PGlite: entitlement check >= 2,000 req/s; plain ingestion >= 1,000 events/s with p99 < 100 ms.
 * Each scenario with a target (and the Tally baselines) is compared with the raw baseline measured
 * just before it (`h.measure(s, 'select' | 'insert')`); the raw rows at the top are the run's first.
 */
import { randomUUID } from 'node:crypto';
import type { Harness, Measured, Suite, Target } from '../harness.js';

/** A single event is acknowledged by a 2xx answer, or by 409 conflict (already stored) on a retry. */
const oneEvent = (status: number) => (status < 300 || status === 409 ? 1 : 0);

export const monetization: Suite = {
  name: 'monetization',
  modes: ['postgres', 'embedded'],
  async run(h) {
    const { featureKey, creditFeatureKey, customers } = h.ready as unknown as { featureKey: string; creditFeatureKey: string; customers: number };
    const rawPk = await h.raw('select');
    const rawInsert = await h.raw('insert');
    const pk = await h.measure({ name: 'pk-select', method: 'GET', path: '/api/v1/client/bench/pk' }, 'select');
    const insert = await h.measure({ name: 'insert', method: 'POST', path: '/api/v1/client/bench/insert', body: () => '{}' }, 'insert');
    const health = await h.measure({ name: 'healthz', method: 'GET', path: '/healthz' });
    const authOnly = await h.measure({ name: 'auth-only', method: 'GET', path: '/api/v1/client/bench/auth' });
    const idem = await h.measure({ name: 'idempotent-insert', method: 'POST', path: '/api/v1/client/bench/insert', body: () => '{}', headers: () => ({ 'idempotency-key': randomUUID() }) });
    let n = 0;
    const nextCustomer = () => `bench-${n++ % customers}`;
    const check = await h.measure({ name: 'entitlement-get', method: 'GET', path: () => `/api/v1/client/entitlements/${nextCustomer()}/${featureKey}` }, 'select');
    const checkNoRecord = await h.measure({ name: 'entitlement-get-norec', method: 'GET', path: () => `/api/v1/client/entitlements/${nextCustomer()}/${featureKey}?record=false` }, 'select');
    const evaluate = await h.measure({
      name: 'entitlement-evaluate',
      method: 'POST',
      path: '/api/v1/client/entitlements',
      body: () => JSON.stringify({ customerReferenceId: nextCustomer(), featureKey, usage: { usageUnits: 3, model: 'gpt' } }),
    }, 'select');
    const event = (customer: () => string, feature: string, cost: boolean) => () =>
      JSON.stringify({ eventName: 'msg', eventIdempotencyKey: randomUUID(), customerReferenceId: customer(), featureKey: feature, usageUnits: 2, ...(cost ? { costInput: { model: 'gpt' } } : {}) });
    const ingest = await h.measure({ name: 'ingest-spread', method: 'POST', path: '/api/v1/client/events', body: event(nextCustomer, featureKey, true), events: oneEvent }, 'insert');
    const ingestHot = await h.measure({ name: 'ingest-hot-customer', method: 'POST', path: '/api/v1/client/events', body: event(() => 'bench-0', featureKey, false), events: oneEvent }, 'insert');
    const creditSpread = await h.measure({
      name: 'credit-ingest-spread',
      method: 'POST',
      path: '/api/v1/client/events',
      body: event(() => `bench-credit-${n++ % customers}`, creditFeatureKey, true),
      events: oneEvent,
    }, 'insert');
    const creditHot = await h.measure({ name: 'credit-ingest-hot', method: 'POST', path: '/api/v1/client/events', body: event(() => 'bench-credit-0', creditFeatureKey, true), events: oneEvent }, 'insert');
    // Under an Idempotency-Key a credit-backed event is a transaction of its own (no lane, ADR 0032).
    const creditKeyed = await h.measure({
      name: 'credit-ingest-keyed',
      method: 'POST',
      path: '/api/v1/client/events',
      body: event(() => `bench-credit-${n++ % customers}`, creditFeatureKey, true),
      headers: () => ({ 'idempotency-key': randomUUID() }),
      events: oneEvent,
    });

    const t = targets(h);
    h.print(`monetization: ${h.databaseLabel}, ${h.connections} connections, ${h.seconds}s each; x raw = throughput / raw, p99 x raw = p99 / raw p99`, [
      { r: rawPk },
      { r: rawInsert },
      { r: pk, raw: pk.raw },
      { r: insert, raw: insert.raw },
      { r: health, baseline: pk, raw: rawPk },
      { r: authOnly, baseline: pk, raw: rawPk, target: { text: 'informational: tenant-key authentication, no work', met: true } },
      { r: idem, baseline: insert, raw: rawInsert, target: { text: 'informational: cost of Idempotency-Key', met: true } },
      { r: check, baseline: pk, raw: check.raw, target: t.check(check) },
      { r: checkNoRecord, baseline: pk, raw: checkNoRecord.raw, target: { text: 'informational: without the audit event', met: true } },
      { r: evaluate, baseline: pk, raw: evaluate.raw, target: t.check(evaluate) },
      { r: ingest, baseline: insert, raw: ingest.raw, target: t.ingest(ingest) },
      { r: ingestHot, baseline: insert, raw: ingestHot.raw, target: { text: 'informational: one customer, one counter row', met: true } },
      { r: creditSpread, baseline: ingest, raw: creditSpread.raw, target: t.creditSpread(creditSpread) },
      { r: creditHot, baseline: ingestHot, raw: creditHot.raw, target: t.creditHot(creditHot) },
      { r: creditKeyed, baseline: creditSpread, raw: rawInsert, target: { text: 'informational: a credit event under an Idempotency-Key, a transaction of its own', met: true } },
    ]);
  },
};

/** The targets; each scenario is compared with the raw baseline measured beside it (`r.raw`). */
function targets(h: Harness) {
  const clean = (r: Measured) => r.errors === 0;
  if (h.mode === 'embedded') {
    return {
      check: (r: Measured): Target => h.target(r.name, '>= 2000 req/s, no errors', r.rps >= 2000 && clean(r)),
      ingest: (r: Measured): Target => h.target(r.name, '>= 1000 events/s, p99 < 100 ms, no errors', r.rps >= 1000 && r.p99 < 100 && clean(r)),
      creditSpread: (): Target => ({ text: 'informational', met: true }),
      creditHot: (): Target => ({ text: 'informational: one hot credit pool', met: true }),
    };
  }
  /** At least `ratio` of the raw baseline's rate, p99 at most 3x its p99, no errors. */
  const vsRaw = (r: Measured, ratio: number) => {
    const raw = r.raw!;
    return h.target(r.name, `>= ${ratio}x raw ${raw.name.replace(/^raw-/, '')}, p99 <= 3x its p99`, r.rps >= ratio * raw.rps && r.p99 <= 3 * raw.p99 && clean(r));
  };
  return {
    check: (r: Measured): Target => vsRaw(r, 0.6),
    ingest: (r: Measured): Target => vsRaw(r, 0.5),
    creditSpread: (r: Measured): Target => vsRaw(r, 0.4),
    creditHot: (r: Measured): Target => vsRaw(r, 0.5),
  };
}
