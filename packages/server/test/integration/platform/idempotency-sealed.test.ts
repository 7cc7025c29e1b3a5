import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { withTransaction } from '../../../src/platform/db/transaction.js';
import { ok } from '../../../src/platform/http/envelope.js';
import { IDEMPOTENCY_LEASE_MS } from '../../../src/platform/http/idempotency.js';
import { newId } from '../../../src/platform/ids.js';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

const SEALED = /^v1\.[0-9a-f]{8}\./;

/**
 * ADR 0004, decision 3: what an idempotency record stores of a reply (`response_body`) and of the transactions
 * (`committed_results`) is sealed, since either may hold a credential for 24 hours (a new customer
 * key's plaintext). Records written in plain before sealing still replay.
 */
describe('Idempotency-Key records are sealed at rest', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let tenantKey: string;
  let accountId: string;
  let executions = 0;

  // A test route whose one transaction counts its executions, for records written before sealing.
  const routes: FastifyPluginAsyncZod = async (app) => {
    app.post('/api/v1/client/test/legacy-orders', { schema: { body: z.object({ item: z.string() }) } }, async (request, reply) => {
      const order = await withTransaction(svc.ctx.db, async () => {
        executions += 1;
        return { id: newId(), item: request.body.item, placedAt: svc.clock.now(), execution: executions };
      });
      return reply.code(201).send(ok(order));
    });
  };

  before(async () => {
    svc = await startTestService({ extraRoutes: (app) => app.register(routes) });
    const account = await createTestAccount(svc);
    tenantKey = account.apiKey;
    accountId = account.accountId;
    m = monetization(svc, account);
  });
  after(() => svc.close());

  const keys = (ref: string) => `/api/v1/client/customers/${encodeURIComponent(ref)}/keys`;
  const post = (path: string, idemKey: string, body?: unknown) =>
    svc.http.post(path, { auth: tenantKey, ...(body === undefined ? {} : { body }), headers: { 'idempotency-key': idemKey } });
  const record = (idemKey: string) =>
    svc.ctx.db.selectFrom('idempotency_records').selectAll().where('account_id', '=', accountId).where('idempotency_key', '=', idemKey).executeTakeFirstOrThrow();
  const issued = async (ref: string) => (await svc.http.get(keys(ref), { auth: tenantKey })).body.data.pagination.total as number;

  /** The raw row holds neither the plaintext key nor its secret part, in either column. */
  function assertSealed(row: { response_body: string | null; committed_results: string }, apiKey: string) {
    const secret = apiKey.replace(/^ck_test_/, '');
    for (const column of [row.response_body ?? '', row.committed_results]) {
      assert.match(column, SEALED);
      assert.ok(!column.includes(apiKey) && !column.includes(secret), 'the raw record shows the plaintext key');
    }
  }

  /** What a process killed between its commit and storing the reply leaves behind. */
  const loseOutcome = async (idemKey: string) => {
    const now = svc.clock.now();
    await svc.ctx.db
      .updateTable('idempotency_records')
      .set({ state: 'IN_PROGRESS', attempt_id: newId(), lease_until: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS), response_status: null, response_content_type: null, response_body: null })
      .where('account_id', '=', accountId)
      .where('idempotency_key', '=', idemKey)
      .execute();
  };

  test('when a customer key is created with an Idempotency-Key then the record hides it and a retry replays the same key byte for byte', async () => {
    const { customerReferenceId } = await m.customer();
    const first = await post(keys(customerReferenceId), 'ck-create', { scopes: ['read'] });
    assert.equal(first.status, 201, first.text);
    const { apiKey } = first.body.data;
    assert.match(apiKey, /^ck_test_[0-9a-f]{32}$/);
    const row = await record('ck-create');
    assert.equal(row.state, 'COMPLETED');
    assertSealed(row, apiKey);

    const retry = await post(keys(customerReferenceId), 'ck-create', { scopes: ['read'] });
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.text, first.text);
    assert.equal(retry.body.data.apiKey, apiKey);
    assert.equal(await issued(customerReferenceId), 1);
  });

  test('when a customer key is rotated with an Idempotency-Key then the record hides the new key and a retry replays it', async () => {
    const { customerReferenceId } = await m.customer();
    const old = (await post(keys(customerReferenceId), 'ck-before-rotate')).body.data;
    const rotate = () => post(`${keys(customerReferenceId)}/${old.id}/rotate`, 'ck-rotate');
    const first = await rotate();
    assert.equal(first.status, 200, first.text);
    assert.notEqual(first.body.data.apiKey, old.apiKey);
    assertSealed(await record('ck-rotate'), first.body.data.apiKey);

    const retry = await rotate();
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.text, first.text);
    assert.equal(await issued(customerReferenceId), 2);
  });

  test('when a customer key was created but the outcome was lost then a takeover replays the sealed journal and issues no second key', async () => {
    const { customerReferenceId } = await m.customer();
    const send = () => post(keys(customerReferenceId), 'ck-lost', { scopes: ['read', 'purchase'] });
    const first = await send();
    assert.equal(first.status, 201, first.text);
    await loseOutcome('ck-lost');
    const lost = await record('ck-lost');
    assert.match(lost.committed_results, SEALED, 'the journal survives the lost reply, sealed');

    const early = await send();
    assert.equal(early.status, 409);
    assert.equal(early.body.error.code, 'idempotency_conflict');
    svc.clock.advanceMs(IDEMPOTENCY_LEASE_MS);
    const retry = await send();
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.text, first.text, 'the reply is rebuilt from the journal: the same key');
    assert.equal(await issued(customerReferenceId), 1);
    assertSealed(await record('ck-lost'), first.body.data.apiKey);

    const again = await send();
    assert.equal(again.text, first.text);
  });

  test('when a sealed reply is copied into another record then it does not open there', async () => {
    const { customerReferenceId } = await m.customer();
    const first = await post(keys(customerReferenceId), 'ck-source');
    assert.equal(first.status, 201, first.text);
    const other = await m.customer();
    const target = await post(keys(other.customerReferenceId), 'ck-target');
    assert.equal(target.status, 201, target.text);
    const { response_body } = await record('ck-source');
    await svc.ctx.db.updateTable('idempotency_records').set({ response_body }).where('account_id', '=', accountId).where('idempotency_key', '=', 'ck-target').execute();
    const replay = await post(keys(other.customerReferenceId), 'ck-target');
    assert.equal(replay.status, 500);
    assert.ok(!replay.text.includes(first.body.data.apiKey), 'the copied key is not answered');
  });

  const legacyRecord = async (idemKey: string, item: string, values: Record<string, unknown>) => {
    const now = svc.clock.now();
    await svc.ctx.db
      .insertInto('idempotency_records')
      .values({
        account_id: accountId,
        scope: 'POST /api/v1/client/test/legacy-orders',
        idempotency_key: idemKey,
        request_hash: createHash('sha256').update(JSON.stringify({ item })).digest('hex'),
        state: 'IN_PROGRESS',
        attempt_id: newId(),
        lease_until: now,
        committed_results: '[]',
        created_at: now,
        ...values,
      })
      .execute();
  };
  const legacyOrder = (idemKey: string, item: string) => post('/api/v1/client/test/legacy-orders', idemKey, { item });

  test('when a completed record was stored in plain text before sealing then it still replays verbatim', async () => {
    const body = '{"success":true,"data":{"id":"018f0000-0000-7000-8000-000000000001","item":"plain","execution":41}}';
    await legacyRecord('legacy-completed', 'plain', { state: 'COMPLETED', lease_until: null, response_status: 201, response_content_type: 'application/json; charset=utf-8', response_body: body });
    const before = executions;
    const replay = await legacyOrder('legacy-completed', 'plain');
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.text, body);
    assert.equal(executions, before);
  });

  test('when an unfinished record kept a plain-text journal from before sealing then a takeover replays it and stores it sealed', async () => {
    const placedAt = new Date('2026-01-02T03:04:05.678Z');
    const id = '018f0000-0000-7000-8000-000000000002';
    const journal = JSON.stringify([{ $: 'o', v: { id, item: 'old', placedAt: { $: 'd', v: placedAt.getTime() }, execution: 42 } }]);
    await legacyRecord('legacy-journal', 'old', { committed_results: journal });
    const before = executions;
    const retry = await legacyOrder('legacy-journal', 'old');
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(executions, before, 'the recorded transaction did not run again');
    assert.deepEqual(retry.body.data, { id, item: 'old', placedAt: placedAt.toISOString(), execution: 42 });
    const row = await record('legacy-journal');
    assert.equal(row.state, 'COMPLETED');
    assert.equal(row.committed_results, journal, 'an inherited journal is not rewritten');
    assert.match(row.response_body ?? '', SEALED);
    assert.equal((await legacyOrder('legacy-journal', 'old')).text, retry.text);
  });

  test('when an unfinished record from before sealing with nothing committed is taken over then what it journals is sealed', async () => {
    await legacyRecord('legacy-extended', 'fresh', {});
    const retry = await legacyOrder('legacy-extended', 'fresh');
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), null);
    const row = await record('legacy-extended');
    assert.match(row.committed_results, SEALED);
    assert.ok(!row.committed_results.includes(retry.body.data.id));
  });
});
