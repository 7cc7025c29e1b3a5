import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { openDatabase } from '../../../src/platform/db/database.js';
import { backend, createTestAccount, createTestDatabase, Http, startServiceOn, TEST_SECRETS, type TestService } from '../../harness.js';
import { startServerProcess, type ServerProcess } from '../../server-process.js';
import { until } from '../../until.js';

const skip = backend !== 'postgres' ? 'a server process and the test share one PostgreSQL database: run with TEST_DATABASE_URL' : false;

type Received = { path: string; headers: IncomingHttpHeaders; body: string };

/**
 * A kill -9 right after a commit (issue 33, api-contract-events.md §E3): the event is in the outbox
 * with the change, so a server process killed with SIGKILL once its answer is out (its relay never
 * ran: jobs off, as on an API-only node) loses nothing. The restarted service's relay delivers it
 * once per endpoint; an endpoint that answers 500 first gets it again on the schedule with the same
 * webhook-id and the same bytes, and each delivery verifies with the official standardwebhooks package.
 */
describe('outbound events: a process killed right after the commit', { skip }, () => {
  let store: Awaited<ReturnType<typeof createTestDatabase>>;
  let node: ServerProcess | undefined;
  let svc: TestService | undefined;
  let receiver: Server;
  let base: string;
  const received: Received[] = [];

  before(async () => {
    store = await createTestDatabase();
    // /flaky answers 500 to its first request, 200 after; /steady always 200.
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const path = req.url ?? '';
        received.push({ path, headers: req.headers, body });
        const failing = path === '/flaky' && received.filter((r) => r.path === path).length === 1;
        res.writeHead(failing ? 500 : 200).end(failing ? 'not now' : 'thanks');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  after(async () => {
    await node?.kill();
    await svc?.relay.stop();
    await svc?.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await store.drop();
  });


  test('when the process dies after committing a change then the restarted service delivers its event once per endpoint, with one webhook-id on every attempt', async () => {
    const env = { APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true' };
    const database = await openDatabase({ kind: 'postgres', url: store.env.DATABASE_URL!, poolSize: 4, preparedStatements: store.env.DATABASE_PREPARED_STATEMENTS !== 'false' });
    // The observer, and after the crash the restarted service: the same database, its relay run by hand.
    svc = await startServiceOn(database, { now: new Date().toISOString(), env });
    const account = await createTestAccount(svc);
    const admin = (method: string, url: string, body?: unknown) => svc!.http.request(method, url, { auth: account.token, ...(body === undefined ? {} : { body }) });
    const secrets: Record<string, string> = {};
    for (const path of ['/flaky', '/steady']) {
      const created = await admin('POST', '/api/v1/webhooks/endpoints', { url: `${base}${path}`, eventTypes: ['customer.created'] });
      assert.equal(created.status, 201, created.text);
      secrets[path] = created.body.data.secret;
    }

    // An API node (jobs off: its relay never runs) with the harness's secrets, so the service after it opens what it sealed.
    node = await startServerProcess({ ...store.env, ...env, ...TEST_SECRETS, APP_JOBS_ENABLED: 'false' });
    const answer = await new Http(node.url).post('/api/v1/client/customers', { auth: account.apiKey, body: { customerReferenceId: 'crash-1', email: 'crash@example.com' } });
    assert.equal(answer.status, 201, answer.text);
    await node.kill();
    assert.equal(received.length, 0, 'the killed process delivered nothing');

    // The restart: the relay reads what the killed process committed.
    svc.clock.set(new Date());
    await svc.relay.runOnce();
    await until('both endpoints reached', () => (['/flaky', '/steady'].every((p) => received.some((r) => r.path === p)) ? true : undefined), 10_000);
    svc.clock.advanceMs(5_000);
    await svc.relay.runOnce();
    const flaky = await until('the second attempt at /flaky', () => {
      const got = received.filter((r) => r.path === '/flaky');
      return got.length === 2 ? got : undefined;
    }, 10_000);
    // Later passes deliver nothing more: once per endpoint.
    svc.clock.advanceMs(60 * 60_000);
    await svc.relay.runOnce();
    await new Promise((r) => setTimeout(r, 300));
    const steady = received.filter((r) => r.path === '/steady');
    assert.deepEqual([flaky.length, steady.length], [2, 1]);

    const ids = [...flaky, ...steady].map((r) => r.headers['webhook-id']);
    assert.equal(new Set(ids).size, 1, `one webhook-id on every attempt: ${ids.join(', ')}`);
    assert.equal(flaky[0]!.body, flaky[1]!.body, 'the same bytes on every attempt');
    for (const r of [...flaky, ...steady]) {
      const event = new Webhook(secrets[r.path]!).verify(r.body, r.headers as Record<string, string>) as { id: string; type: string; data: { object: { customerReferenceId: string } } };
      assert.deepEqual([event.id, event.type, event.data.object.customerReferenceId], [ids[0], 'customer.created', 'crash-1']);
    }
    // The deliveries log shows both attempts of the flaky endpoint: 500, then 200.
    const [delivery] = (await admin('GET', `/api/v1/webhooks/deliveries?eventId=${ids[0]}`)).body.data.items.filter((d: { endpointId: string; attemptCount: number }) => d.attemptCount === 2);
    assert.ok(delivery, 'a delivery with two attempts');
    const detail = await admin('GET', `/api/v1/webhooks/deliveries/${delivery.id}`);
    assert.deepEqual(detail.body.data.attempts.map((a: { responseStatus: number }) => a.responseStatus), [500, 200]);
    assert.equal(detail.body.data.status, 'SUCCEEDED');
  });
});
