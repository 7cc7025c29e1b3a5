/**
 * Batch ingestion: POST /api/v1/client/events/batch with 500 credit-backed events per request over
 * the 50 credit customers. Target on PostgreSQL (issue 31 item 3): >= 1.5x the raw single-row
 * INSERT's rate, in events/s, for both shapes:
 *   - batch-ingest: each batch is one customer's 500 events, customers in turn (an SDK per
 *     customer flushing its buffer);
 *   - batch-ingest-mixed: each batch spreads its 500 events over all 50 customers (a collector
 *     batching for every customer), so every batch locks 50 counters and 50 pools.
 * One hot customer drawing credits through single events is `credit-ingest-hot` in the
 * monetization suite (hot-pool grouping, ADR 0011). After each run the harness audits the ledger
 * and compares the stored events with the acknowledged ones (`stored` and `duplicate` results).
 */
import { randomUUID } from 'node:crypto';
import type { Measured, Suite } from '../harness.js';

const BATCH = 500;
/** Batches per scenario (two per connection). */
const BATCHES = 100;

/** Events a batch answer acknowledges as stored: `stored`, and `duplicate` (stored by an earlier, cut-off attempt). */
const batchEvents = (status: number, body: string) =>
  status === 200 ? (JSON.parse(body) as { data: { results: { status: string }[] } }).data.results.filter((r) => r.status !== 'refused').length : 0;

export const ingestBatch: Suite = {
  name: 'ingest-batch',
  modes: ['postgres', 'embedded'],
  async run(h) {
    const { creditFeatureKey, customers } = h.ready as unknown as { creditFeatureKey: string; customers: number };
    const event = (ref: string) => ({ eventName: 'msg', eventIdempotencyKey: randomUUID(), customerReferenceId: ref, featureKey: creditFeatureKey, usageUnits: 2, costInput: { model: 'gpt' } });
    let n = 0;
    const batch = (refOf: (i: number) => string) => () => JSON.stringify({ events: Array.from({ length: BATCH }, (_, i) => event(refOf(i))) });
    const perCustomer = await h.measure({
      name: 'batch-ingest',
      method: 'POST',
      path: '/api/v1/client/events/batch',
      body: () => {
        const ref = `bench-credit-${n++ % customers}`;
        return batch(() => ref)();
      },
      events: batchEvents,
      amount: BATCHES,
    }, 'insert');
    const mixed = await h.measure({ name: 'batch-ingest-mixed', method: 'POST', path: '/api/v1/client/events/batch', body: batch((i) => `bench-credit-${i % customers}`), events: batchEvents, amount: BATCHES }, 'insert');
    // A batch of 500 takes longer than a load window counts answers in: each scenario sends BATCHES
    // batches (every one answered) and its rate is the events stored over the time they all took.
    const eventsPerSecond = (r: Measured) => r.storedPerSecond ?? r.rps * BATCH;
    const rate = (r: Measured) => `${eventsPerSecond(r).toFixed(0)} events/s`;
    // Each against the raw single-row INSERT measured just before it.
    const bulk = (r: Measured, shape: string) =>
      h.target(r.name, `${rate(r)} = ${(eventsPerSecond(r) / r.raw!.rps).toFixed(2)}x raw insert (${shape}); >= 1.5x, no errors`, eventsPerSecond(r) >= 1.5 * r.raw!.rps && r.errors === 0);
    h.print(`batch ingestion: ${h.databaseLabel}, ${h.connections} connections, ${h.seconds}s each, ${BATCHES} requests of ${BATCH} credit-backed events (events/s: events stored / time for all ${BATCHES})`, [
      {
        r: perCustomer,
        raw: perCustomer.raw,
        target:
          h.mode === 'postgres' ? bulk(perCustomer, 'one customer a batch') : { text: `${rate(perCustomer)}; informational`, met: true },
      },
      {
        r: mixed,
        raw: mixed.raw,
        target: h.mode === 'postgres' ? bulk(mixed, `every batch over all ${customers} customers`) : { text: `${rate(mixed)}; informational`, met: true },
      },
    ]);
  },
};
