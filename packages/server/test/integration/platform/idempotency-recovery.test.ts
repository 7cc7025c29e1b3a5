import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { withTransaction } from '../../../src/platform/db/transaction.js';
import { ok } from '../../../src/platform/http/envelope.js';
import { IDEMPOTENCY_LEASE_MS } from '../../../src/platform/http/idempotency.js';
import { newId } from '../../../src/platform/ids.js';
import { registerBoot } from '../../../src/platform/node-boot.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startSecondNode, startTestService, type TestService } from '../../harness.js';

/** A promise the test resolves by hand: a request parked on it is "hung" (or, for its client, dead). */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  return { open, opened, arrive, arrived };
}

type Gate = ReturnType<typeof gate>;

/**
 * Item 15: an Idempotency-Key whose first request died mid-flight. The test route writes one row per
 * execution of its transaction into a scratch table, so "executed once" is counted in the database.
 */
describe('Idempotency-Key: a request that died mid-flight', () => {
  let svc: TestService;
  let key: string;
  let accountId: string;
  let transactions = 0;
  const holdBefore = new Map<string, Gate>();
  const holdAfter = new Map<string, Gate>();
  const crashAfterCommit = new Set<string>();

  const routes: FastifyPluginAsyncZod = async (app) => {
    app.post('/api/v1/client/test/orders', { schema: { body: z.object({ item: z.string() }) } }, async (request, reply) => {
      const { item } = request.body;
      const before = holdBefore.get(item);
      if (before) {
        holdBefore.delete(item);
        before.arrive();
        await before.opened;
      }
      const order = await withTransaction(svc.ctx.db, async (tx) => {
        transactions += 1;
        const id = newId();
        await sql`insert into test_orders (id, item, placed_at) values (${id}, ${item}, ${svc.clock.now()})`.execute(tx);
        return { id, item, placedAt: svc.clock.now(), execution: transactions };
      });
      const afterCommit = holdAfter.get(item);
      if (afterCommit) {
        holdAfter.delete(item);
        afterCommit.arrive();
        await afterCommit.opened;
      }
      if (crashAfterCommit.delete(item)) throw new Error('the process died after its commit');
      return reply.code(201).send(ok(order));
    });
    // Two transactions: the order, then its shipment.
    app.post('/api/v1/client/test/shipped-orders', { schema: { body: z.object({ item: z.string() }) } }, async (request, reply) => {
      const { item } = request.body;
      const insert = (kind: string) =>
        withTransaction(svc.ctx.db, async (tx) => {
          transactions += 1;
          const id = newId();
          await sql`insert into test_orders (id, item, placed_at) values (${id}, ${`${kind}:${item}`}, ${svc.clock.now()})`.execute(tx);
          return id;
        });
      const orderId = await insert('order');
      if (crashAfterCommit.delete(item)) throw new Error('the process died between its two transactions');
      const shipmentId = await insert('shipment');
      return reply.code(201).send(ok({ orderId, shipmentId }));
    });
  };

  before(async () => {
    svc = await startTestService({ extraRoutes: (app) => app.register(routes) });
    await sql`create table test_orders (id uuid primary key, item text not null, placed_at timestamptz not null)`.execute(svc.ctx.db);
    ({ apiKey: key, accountId } = await createTestAccount(svc));
  });
  after(() => svc.close());

  const order = (idemKey: string, item: string) =>
    svc.http.post('/api/v1/client/test/orders', { auth: key, body: { item }, headers: { 'idempotency-key': idemKey } });
  const ordersOf = async (item: string) =>
    (await sql<{ id: string }>`select id from test_orders where item = ${item}`.execute(svc.ctx.db)).rows.map((r) => r.id);
  const record = (idemKey: string) =>
    svc.ctx.db.selectFrom('idempotency_records').selectAll().where('idempotency_key', '=', idemKey).executeTakeFirst();

  test('when a request hangs before its transaction then a retry gets 409 within the lease, takes over after it and executes once', async () => {
    const hang = gate();
    holdBefore.set('apple', hang);
    const first = order('k-hung', 'apple');
    await hang.arrived;

    const early = await order('k-hung', 'apple');
    assert.equal(early.status, 409);
    assert.equal(early.body.error.code, 'idempotency_conflict');
    assert.equal(early.body.error.message, 'Request with this Idempotency-Key is still in progress');
    svc.clock.advanceMs(IDEMPOTENCY_LEASE_MS - 1);
    const stillEarly = await order('k-hung', 'apple');
    assert.equal(stillEarly.status, 409);
    assert.equal(stillEarly.body.error.code, 'idempotency_conflict');
    assert.deepEqual(await ordersOf('apple'), []);

    svc.clock.advanceMs(1);
    const retry = await order('k-hung', 'apple');
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), null);
    assert.deepEqual(await ordersOf('apple'), [retry.body.data.id]);

    // The first owner wakes up: its transaction is fenced out and rolled back, its reply is not stored.
    hang.open();
    const late = await first;
    assert.equal(late.status, 409);
    assert.equal(late.body.error.code, 'idempotency_conflict');
    assert.deepEqual(await ordersOf('apple'), [retry.body.data.id]);
    const again = await order('k-hung', 'apple');
    assert.equal(again.status, 201);
    assert.equal(again.text, retry.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
  });

  test('when a killed process left its record IN_PROGRESS with nothing committed then a retry after the lease executes', async () => {
    const now = svc.clock.now();
    const body = JSON.stringify({ item: 'pear' });
    await svc.ctx.db
      .insertInto('idempotency_records')
      .values({
        account_id: accountId,
        scope: 'POST /api/v1/client/test/orders',
        idempotency_key: 'k-killed',
        request_hash: (await import('node:crypto')).createHash('sha256').update(body).digest('hex'),
        state: 'IN_PROGRESS',
        attempt_id: newId(),
        lease_until: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS),
        created_at: now,
      })
      .execute();
    const early = await order('k-killed', 'pear');
    assert.equal(early.status, 409);
    assert.equal(early.body.error.code, 'idempotency_conflict');
    svc.clock.advanceMs(IDEMPOTENCY_LEASE_MS);
    const before = transactions;
    const retry = await order('k-killed', 'pear');
    assert.equal(retry.status, 201, retry.text);
    assert.equal(transactions, before + 1);
    assert.deepEqual(await ordersOf('pear'), [retry.body.data.id]);
    assert.equal((await record('k-killed'))?.state, 'COMPLETED');
  });

  test('when the handler committed and then failed before answering then a retry replays the committed outcome without executing again', async () => {
    crashAfterCommit.add('fig');
    const first = await order('k-crash', 'fig');
    assert.equal(first.status, 500);
    assert.equal(first.body.error.code, 'internal_error');
    const [committed] = await ordersOf('fig');
    assert.ok(committed, 'the first attempt committed its row');
    const kept = await record('k-crash');
    assert.equal(kept?.state, 'IN_PROGRESS', 'a 5xx after a commit keeps the key');

    const before = transactions;
    const retry = await order('k-crash', 'fig');
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(transactions, before, 'the committed transaction did not run again');
    assert.equal(retry.body.data.id, committed);
    assert.equal(retry.body.data.execution, before, 'the reply is rebuilt from what the first attempt committed');
    assert.deepEqual(await ordersOf('fig'), [committed]);

    const again = await order('k-crash', 'fig');
    assert.equal(again.status, 201);
    assert.equal(again.text, retry.text);
  });

  test('when the process dies after its commit then a retry within the lease gets 409 and after it replays the outcome', async () => {
    const hang = gate();
    holdAfter.set('kiwi', hang);
    const first = order('k-dead-after', 'kiwi');
    await hang.arrived;
    const [committed] = await ordersOf('kiwi');
    assert.ok(committed);

    const early = await order('k-dead-after', 'kiwi');
    assert.equal(early.status, 409);
    assert.equal(early.body.error.code, 'idempotency_conflict');
    svc.clock.advanceMs(IDEMPOTENCY_LEASE_MS);
    const before = transactions;
    const retry = await order('k-dead-after', 'kiwi');
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.body.data.id, committed);
    assert.equal(transactions, before);

    hang.open();
    const late = await first;
    assert.equal(late.status, 201);
    assert.equal(late.text, retry.text, 'both answers describe the one committed order');
    assert.deepEqual(await ordersOf('kiwi'), [committed]);
  });

  test('when the first of two transactions committed and the request died then a retry replays the first and runs only the second', async () => {
    crashAfterCommit.add('melon');
    const send = () => svc.http.post('/api/v1/client/test/shipped-orders', { auth: key, body: { item: 'melon' }, headers: { 'idempotency-key': 'k-two' } });
    const first = await send();
    assert.equal(first.status, 500);
    const orders = await ordersOf('order:melon');
    assert.equal(orders.length, 1);
    assert.deepEqual(await ordersOf('shipment:melon'), []);

    const before = transactions;
    const retry = await send();
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(transactions, before + 1, 'only the second transaction ran');
    assert.equal(retry.body.data.orderId, orders[0]);
    assert.deepEqual(await ordersOf('order:melon'), orders);
    assert.deepEqual(await ordersOf('shipment:melon'), [retry.body.data.shipmentId]);
  });

  test('when a retry after the lease carries a different body then 409 and nothing executes', async () => {
    const hang = gate();
    holdBefore.set('plum', hang);
    const first = order('k-other-body', 'plum');
    await hang.arrived;
    svc.clock.advanceMs(IDEMPOTENCY_LEASE_MS);
    const other = await order('k-other-body', 'quince');
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, 'idempotency_conflict');
    assert.equal(other.body.error.message, "Idempotency-Key 'k-other-body' was already used with a different request body");
    assert.deepEqual(await ordersOf('quince'), []);
    hang.open();
    assert.equal((await first).status, 201);
    assert.equal((await ordersOf('plum')).length, 1);
  });

  test('when 10 retries arrive together after the lease then exactly one takes the key over', async () => {
    const hang = gate();
    holdBefore.set('lime', hang);
    const first = order('k-race', 'lime');
    await hang.arrived;
    svc.clock.advanceMs(IDEMPOTENCY_LEASE_MS);
    const results = await Promise.all(Array.from({ length: 10 }, () => order('k-race', 'lime')));
    for (const r of results) assert.ok(r.status === 201 || (r.status === 409 && r.body.error.code === 'idempotency_conflict'), `status ${r.status}`);
    assert.ok(results.some((r) => r.status === 201));
    hang.open();
    assert.equal((await first).status, 409);
    assert.equal((await ordersOf('lime')).length, 1);
  });
});

describe('Idempotency-Key on Client API writes whose outcome was lost (customers, subscriptions, usage)', () => {
  let svc: TestService;
  let f: ReturnType<typeof monetization>;

  before(async () => {
    svc = await startTestService();
    f = monetization(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  /** What a process killed between its commit and storing the reply leaves behind. */
  const loseOutcome = async (idemKey: string) => {
    const now = svc.clock.now();
    const lost = await svc.ctx.db
      .updateTable('idempotency_records')
      .set({ state: 'IN_PROGRESS', attempt_id: newId(), lease_until: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS), response_status: null, response_content_type: null, response_body: null })
      .where('idempotency_key', '=', idemKey)
      .returning('committed_results')
      .executeTakeFirstOrThrow();
    assert.notEqual(lost.committed_results, '[]', 'the statement recorded its result');
  };

  test('when a customer was created but the outcome was lost then a retry after the lease replays the same customer', async () => {
    const send = () => f.client('POST', '/customers', { customerReferenceId: 'cust-lost', email: 'lost@example.com' }, { 'idempotency-key': 'cust-lost' });
    const first = await send();
    assert.equal(first.status, 201, first.text);
    await loseOutcome('cust-lost');
    svc.clock.advanceMs(IDEMPOTENCY_LEASE_MS);
    const retry = await send();
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.text, first.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    const rows = await svc.ctx.db.selectFrom('customers').select('id').where('customer_reference_id', '=', 'cust-lost').execute();
    assert.equal(rows.length, 1);
  });

  test('when a subscription was created but the outcome was lost then a retry after the lease replays it from the recorded transaction', async () => {
    const feature = await f.feature();
    const plan = await f.activePlan({ price: 0, features: [{ id: feature.id }] });
    const customer = await f.customer();
    const send = () => f.client('POST', '/subscriptions', { customerReferenceId: customer.customerReferenceId, planId: plan.id }, { 'idempotency-key': 'sub-lost' });
    const first = await send();
    assert.equal(first.status, 201, first.text);
    await loseOutcome('sub-lost');
    svc.clock.advanceMs(IDEMPOTENCY_LEASE_MS);
    const retry = await send();
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(retry.body.data, first.body.data);
    const subscriptions = await svc.ctx.db.selectFrom('subscriptions').select('id').where('plan_id', '=', plan.id).execute();
    assert.deepEqual(subscriptions.map((r) => r.id), [first.body.data.subscription.id]);
    const invoices = await svc.ctx.db.selectFrom('invoices').select('id').where('subscription_id', '=', first.body.data.subscription.id).execute();
    assert.equal(invoices.length, 1);
  });

  test('when an event committed but its outcome was lost then a retry after the lease replays the same receipt and counts it once', async () => {
    const feature = await f.feature();
    const plan = await f.activePlan({ price: 0, features: [{ id: feature.id }] });
    const customer = await f.customer();
    await f.subscribe(customer.customerReferenceId, plan.id);
    const send = () => f.client('POST', '/events', { eventName: 'chat.message', customerReferenceId: customer.customerReferenceId, featureKey: feature.key, usageUnits: 3 }, { 'idempotency-key': 'ev-lost' });
    const first = await send();
    assert.equal(first.status, 201, first.text);

    await loseOutcome('ev-lost');

    const early = await send();
    assert.equal(early.status, 409);
    assert.equal(early.body.error.code, 'idempotency_conflict');
    svc.clock.advanceMs(IDEMPOTENCY_LEASE_MS);
    const retry = await send();
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.text, first.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');

    const events = await svc.ctx.db.selectFrom('usage_events').select(['id', 'usage_units']).where('feature_id', '=', feature.id).execute();
    assert.deepEqual(events.map((e) => e.id), [first.body.data.eventId]);
    const counters = await svc.ctx.db.selectFrom('usage_counters').select('used').where('feature_id', '=', feature.id).execute();
    assert.deepEqual(counters.map((c) => Number(c.used)), [3]);
  });
});

/**
 * Issue 31 item 5 (ADR 0033): a lease names the node identity and boot epoch of the process holding
 * it. When that identity boots again (its process was killed and restarted), a retry takes the key
 * over at once; a lease held by a live node is never taken before it runs out.
 */
describe('Idempotency-Key: a lease held by a process that is gone', () => {
  let svc: TestService;
  let key: string;
  const hold = new Map<string, Gate>();
  let executions = 0;

  const routes: FastifyPluginAsyncZod = async (app) => {
    app.post('/api/v1/client/test/bookings', { schema: { body: z.object({ item: z.string() }) } }, async (request, reply) => {
      const gateOf = hold.get(request.body.item);
      if (gateOf) {
        hold.delete(request.body.item);
        gateOf.arrive();
        await gateOf.opened;
      }
      const booking = await withTransaction(svc.ctx.db, async () => ({ item: request.body.item, execution: (executions += 1) }));
      return reply.code(201).send(ok(booking));
    });
  };

  before(async () => {
    svc = await startTestService({ extraRoutes: (app) => app.register(routes) });
    ({ apiKey: key } = await createTestAccount(svc));
  });
  after(() => svc.close());

  const book = (idemKey: string, item: string) => svc.http.post('/api/v1/client/test/bookings', { auth: key, body: { item }, headers: { 'idempotency-key': idemKey } });
  const record = (idemKey: string) => svc.ctx.db.selectFrom('idempotency_records').selectAll().where('idempotency_key', '=', idemKey).executeTakeFirstOrThrow();

  test('when a node listens then its boot is registered and the leases it takes name its identity and epoch', async () => {
    const address = new URL(svc.baseUrl);
    const boot = await svc.ctx.db.selectFrom('node_boots').selectAll().where('node_id', 'like', `%:${address.port}`).executeTakeFirstOrThrow();
    const res = await book('k-owner', 'fig');
    assert.equal(res.status, 201, res.text);
    const hang = gate();
    hold.set('date', hang);
    const pending = book('k-owned', 'date');
    await hang.arrived;
    const held = await record('k-owned');
    assert.equal(held.state, 'IN_PROGRESS');
    assert.equal(held.owner_node, boot.node_id);
    assert.equal(String(held.owner_epoch), String(boot.epoch));
    hang.open();
    assert.equal((await pending).status, 201);
  });

  test('when another node boots then a lease held by this live node is not taken over', async () => {
    const hang = gate();
    hold.set('kiwi', hang);
    const first = book('k-live', 'kiwi');
    await hang.arrived;
    await registerBoot(svc.ctx.db, 'another-node:8080', svc.clock.now());
    const retry = await book('k-live', 'kiwi');
    assert.equal(retry.status, 409);
    assert.equal(retry.body.error.code, 'idempotency_conflict');
    hang.open();
    const answered = await first;
    assert.equal(answered.status, 201, answered.text);
    const replayed = await book('k-live', 'kiwi');
    assert.equal(replayed.text, answered.text);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
  });

  // Fastify serves requests while its onListen hooks run: a node that answered /readyz before its boot
  // committed let a client retry on another node meet the old epoch's lease (409 for a minute).
  test('when a node has started listening but its boot is not yet registered then /readyz answers 503, and 200 once it is', { skip: backend !== 'postgres' && 'a second node needs PostgreSQL' }, async () => {
    // One connection holds the lock for the whole test: the second node's registration waits on it.
    await svc.ctx.db.connection().execute(async (blocker) => {
      await sql`begin`.execute(blocker);
      await sql`lock table node_boots in exclusive mode`.execute(blocker);
      let second: TestService | undefined;
      try {
        second = await startSecondNode(svc);
        const port = new URL(second.baseUrl).port;
        const starting = await second.http.get('/readyz');
        assert.equal(starting.status, 503, 'not ready while its boot cannot be registered');
        assert.equal(starting.body.error.code, 'service_unavailable');
        await sql`commit`.execute(blocker);
        const ready = await second.http.get('/readyz');
        assert.equal(ready.status, 200, ready.text);
        const boot = await svc.ctx.db.selectFrom('node_boots').selectAll().where('node_id', 'like', `%:${port}`).executeTakeFirst();
        assert.ok(boot, 'registered by the time it reported ready');
      } finally {
        await sql`rollback`.execute(blocker).catch(() => {});
        await second?.close();
      }
    });
  });

  // Last in this block: it registers a new boot of the service's own identity, as its restart would.
  test('when the node holding a lease boots again then a retry takes the key over at once, and the old process is fenced out', async () => {
    const hang = gate();
    hold.set('plum', hang);
    const first = book('k-reboot', 'plum');
    await hang.arrived;
    const held = await record('k-reboot');
    assert.equal((await book('k-reboot', 'plum')).status, 409, 'within the lease, the holder alive');

    const before = executions;
    await registerBoot(svc.ctx.db, held.owner_node!, svc.clock.now());
    const retry = await book('k-reboot', 'plum');
    assert.equal(retry.status, 201, retry.text);
    assert.equal(executions, before + 1, 'the retry executed, without waiting for the lease');

    // The old process (here still running) wakes: its transaction is fenced by the attempt id and
    // rolled back, and the key keeps the retry's answer.
    hang.open();
    const late = await first;
    assert.equal(late.status, 409);
    assert.equal(late.body.error.message, 'Request with this Idempotency-Key was taken over by a retry');
    const again = await book('k-reboot', 'plum');
    assert.equal(again.text, retry.text);
  });
});
