import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { WebhookReceiver as Receiver } from '../../fakes/webhook-receiver.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { until } from '../../until.js';

/**
 * Outbound events (issue 33, api-contract-events.md): endpoints, the outbox, the relay, Standard
 * Webhooks signatures verified by the official `standardwebhooks` package, retries, disabling,
 * resend, the logs. The receiver is a fake on loopback that answers what each test asks.
 */
describe('outbound events (issue 33)', () => {
  let svc: TestService;
  let receiver: Receiver;
  let base: string;
  before(async () => {
    svc = await startTestService({ env: { APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true' } });
    receiver = new Receiver();
    base = await receiver.start();
  });
  after(async () => {
    await svc.relay.stop();
    await receiver.close();
    await svc.close();
  });

  async function setup(path: string, body: Record<string, unknown> = {}) {
    const account = await createTestAccount(svc);
    const admin = (method: string, url: string, b?: unknown) => svc.http.request(method, url, { auth: account.token, ...(b === undefined ? {} : { body: b }) });
    const created = await admin('POST', '/api/v1/webhooks/endpoints', { url: `${base}${path}`, ...body });
    assert.equal(created.status, 201, created.text);
    return { account, admin, endpoint: created.body.data as { id: string; secret: string; secretHint: string } };
  }
  const tenant = (key: string) => (method: string, url: string, body?: unknown) => svc.http.request(method, url, { auth: key, ...(body === undefined ? {} : { body }) });
  const at = (path: string) => () => receiver.received.filter((r) => r.path === path);

  test('when an endpoint is created then its secret is shown once, whsec_ with 32 bytes, and reads show only the hint', async () => {
    const { admin, endpoint } = await setup('/create');
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(endpoint.secret.slice(6), 'base64').length, 32);
    assert.equal(endpoint.secretHint, `whsec_\u2026${endpoint.secret.slice(-4)}`);
    const read = await admin('GET', `/api/v1/webhooks/endpoints/${endpoint.id}`);
    assert.equal(read.body.data.secret, undefined);
    assert.deepEqual(read.body.data.eventTypes, []);
    assert.equal((await admin('GET', '/api/v1/webhooks/endpoints/not-a-uuid')).status, 404);
  });

  test('when an endpoint request is bad then 400 with the contract message and nothing is saved', async () => {
    const { admin } = await setup('/bad');
    const cases: [unknown, string][] = [
      [{}, 'Validation failed: url: A URL is required'],
      [{ url: 'ftp://example.com/x' }, 'Validation failed: url: outbound URL refused'],
      [{ url: `${base}/x`, eventTypes: ['invoice.paid', 'nope.nope'] }, "Validation failed: eventTypes[1]: Unknown event type 'nope.nope'"],
      [{ url: `${base}/x`, enabled: 'yes' }, 'enabled'],
    ];
    for (const [body, message] of cases) {
      const res = await admin('POST', '/api/v1/webhooks/endpoints', body);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.ok(res.body.error.message.includes(message), `${res.body.error.message} has ${message}`);
    }
    assert.equal((await admin('GET', '/api/v1/webhooks/endpoints')).body.data.length, 1);
  });

  test('when a customer is created then customer.created is delivered once, signed so that standardwebhooks verifies it, and a wrong secret or a changed byte fails', async () => {
    const { account, admin, endpoint } = await setup('/signed');
    svc.relay.start();
    const created = await tenant(account.apiKey)('POST', '/api/v1/client/customers', { customerReferenceId: 'wh-1', email: 'a@example.com', firstName: 'Ada' });
    assert.equal(created.status, 201, created.text);
    const [got] = await until('the delivery', () => (at('/signed')().length > 0 ? at('/signed')() : undefined));
    const payload = new Webhook(endpoint.secret).verify(got!.body, got!.headers as Record<string, string>) as { id: string; type: string; accountId: string; data: { object: { customerReferenceId: string } } };
    assert.equal(payload.type, 'customer.created');
    assert.equal(payload.accountId, account.accountId);
    assert.equal(payload.data.object.customerReferenceId, 'wh-1');
    assert.equal(got!.headers['webhook-id'], payload.id);
    assert.equal(got!.headers['user-agent'], 'Tally-Webhooks/1');
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got!.body, got!.headers as Record<string, string>));
    assert.throws(() => new Webhook(endpoint.secret).verify(got!.body.replace('wh-1', 'wh-2'), got!.headers as Record<string, string>));
    // The event log holds the payload as sent; the delivery succeeded at its first attempt.
    const event = await admin('GET', `/api/v1/webhooks/events/${payload.id}`);
    assert.deepEqual(event.body.data, JSON.parse(got!.body));
    const deliveries = await until('the success', async () => {
      const d = (await admin('GET', `/api/v1/webhooks/deliveries?eventId=${payload.id}`)).body.data.items;
      return d[0]?.status === 'SUCCEEDED' ? d : undefined;
    });
    assert.equal(deliveries.length, 1);
    assert.equal(deliveries[0].attemptCount, 1);
    const detail = await admin('GET', `/api/v1/webhooks/deliveries/${deliveries[0].id}`);
    assert.equal(detail.body.data.attempts[0].responseBody, 'thanks');
    assert.equal(detail.body.data.attempts[0].success, true);
  });

  test('when a refused change rolls back then no event is recorded; a PATCH that changes nothing records nothing', async () => {
    const { account, admin } = await setup('/rollback', { eventTypes: ['customer.created', 'customer.updated'] });
    const client = tenant(account.apiKey);
    await client('POST', '/api/v1/client/customers', { customerReferenceId: 'dup', email: 'd@example.com' });
    const dup = await client('POST', '/api/v1/client/customers', { customerReferenceId: 'dup', email: 'd@example.com' });
    assert.equal(dup.status, 409);
    await client('PATCH', '/api/v1/client/customers/dup', { email: 'd@example.com' });
    await client('PATCH', '/api/v1/client/customers/dup', { email: 'new@example.com' });
    const events = (await admin('GET', '/api/v1/webhooks/events')).body.data.items as { type: string; data: { object: { email: string }; previousAttributes?: unknown } }[];
    assert.deepEqual(events.map((e) => e.type).sort(), ['customer.created', 'customer.updated']);
    const updated = events.find((e) => e.type === 'customer.updated')!;
    assert.equal(updated.data.object.email, 'new@example.com');
    assert.deepEqual(updated.data.previousAttributes, { email: 'd@example.com' }, 'only the fields that changed, with their value before');
  });

  test('when a stored usage event creates its customer then customer.created is recorded with source EVENT_AUTO_CREATED', async () => {
    const { account, admin } = await setup('/auto');
    const res = await tenant(account.apiKey)('POST', '/api/v1/client/events', { eventName: 'call', eventIdempotencyKey: 'auto-1', customerReferenceId: 'auto-cust', featureKey: 'auto.feature', usageUnits: 1 });
    assert.ok(res.status < 300, res.text);
    const events = (await admin('GET', '/api/v1/webhooks/events?type=customer.created')).body.data.items as { data: { object: { customerReferenceId: string; source: string } } }[];
    assert.deepEqual(events.map((e) => [e.data.object.customerReferenceId, e.data.object.source]), [['auto-cust', 'EVENT_AUTO_CREATED']]);
  });

  test('when the receiver fails then the attempt is retried on the schedule; 410 disables the endpoint and records webhook_endpoint.disabled for the others', async () => {
    const { account, admin, endpoint } = await setup('/failing');
    const other = await admin('POST', '/api/v1/webhooks/endpoints', { url: `${base}/other`, eventTypes: ['webhook_endpoint.disabled'] });
    receiver.mode = 'fail';
    svc.relay.start();
    await tenant(account.apiKey)('POST', '/api/v1/client/customers', { customerReferenceId: 'f-1', email: 'f@example.com' });
    const first = await until('a failed attempt', async () => {
      const d = (await admin('GET', `/api/v1/webhooks/deliveries?endpointId=${endpoint.id}`)).body.data.items[0];
      return d?.attemptCount === 1 ? d : undefined;
    });
    assert.equal(first.status, 'PENDING');
    assert.equal(first.lastResponseStatus, 500);
    assert.equal(new Date(first.nextAttemptAt).getTime() - new Date(first.lastAttemptAt).getTime(), 5000, 'the second attempt 5 s later');
    const detail = await admin('GET', `/api/v1/webhooks/deliveries/${first.id}`);
    assert.equal(detail.body.data.attempts[0].responseBody.length, 1024, 'the first 1 KiB of the answer');
    assert.ok((await admin('GET', `/api/v1/webhooks/endpoints/${endpoint.id}`)).body.data.failingSince);
    receiver.mode = 'gone';
    svc.clock.advanceMs(5000);
    const disabled = await until('the endpoint disabled', async () => {
      const e = (await admin('GET', `/api/v1/webhooks/endpoints/${endpoint.id}`)).body.data;
      return e.enabled ? undefined : e;
    });
    assert.equal(disabled.disabledReason, 'GONE');
    receiver.mode = 'ok';
    const notice = await until('the disabled notice at the other endpoint', () => at('/other')().find((r) => JSON.parse(r.body).type === 'webhook_endpoint.disabled'));
    assert.equal(JSON.parse(notice.body).data.object.id, endpoint.id);
    assert.ok(!at('/failing')().some((r) => JSON.parse(r.body).type === 'webhook_endpoint.disabled'), 'never to the endpoint it is about');
    const test409 = await admin('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/test`);
    assert.equal(test409.status, 409);
    assert.equal(other.status, 201);
  });

  test('when an endpoint is disabled by a 410 while another attempt to it is in flight then that delivery ends FAILED too, not pending', async () => {
    const { account, admin, endpoint } = await setup('/inflight');
    receiver.plan = (n) => (n === 0 ? { status: 410, delayMs: 0 } : { status: 500, delayMs: 700 });
    try {
      const client = tenant(account.apiKey);
      await client('POST', '/api/v1/client/customers', { customerReferenceId: 'if-1', email: 'i1@example.com' });
      await client('POST', '/api/v1/client/customers', { customerReferenceId: 'if-2', email: 'i2@example.com' });
      await svc.relay.runOnce();
      const items = await until('both deliveries settled', async () => {
        const list = (await admin('GET', `/api/v1/webhooks/deliveries?endpointId=${endpoint.id}`)).body.data.items as { status: string; lastError: string | null; attemptCount: number }[];
        return list.length === 2 && list.every((d) => d.attemptCount === 1) ? list : undefined;
      });
      assert.deepEqual(items.map((d) => d.status), ['FAILED', 'FAILED']);
      assert.ok(items.some((d) => d.lastError === 'endpoint disabled'), JSON.stringify(items));
    } finally {
      receiver.plan = null;
    }
  });

  test('when the secret is rotated then both secrets sign for 24 hours, new first; a test event and a resend carry the same webhook-id and bytes', async () => {
    const { admin, endpoint } = await setup('/rotate');
    svc.relay.start();
    const rotated = await admin('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`);
    assert.equal(rotated.status, 200);
    const fresh = rotated.body.data.secret as string;
    assert.notEqual(fresh, endpoint.secret);
    const sent = await admin('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/test`);
    assert.equal(sent.status, 202, sent.text);
    const got = await until('the test event', () => at('/rotate')()[0]);
    assert.equal((got.headers['webhook-signature'] as string).split(' ').length, 2);
    assert.equal((new Webhook(fresh).verify(got.body, got.headers as Record<string, string>) as { type: string }).type, 'webhook.test');
    new Webhook(endpoint.secret).verify(got.body, got.headers as Record<string, string>);
    const again = await admin('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/events/${sent.body.data.eventId}/resend`);
    assert.equal(again.status, 202);
    assert.equal(again.body.data.resend, true);
    const second = await until('the resend', () => at('/rotate')()[1]);
    assert.equal(second.headers['webhook-id'], got.headers['webhook-id']);
    assert.equal(second.body, got.body);
  });

  test('when another account reads or acts on an endpoint then 404, and a tenant key gets 401 on these Admin routes', async () => {
    const { account, endpoint } = await setup('/scoped');
    const other = await createTestAccount(svc);
    assert.equal((await svc.http.get(`/api/v1/webhooks/endpoints/${endpoint.id}`, { auth: other.token })).status, 404);
    assert.equal((await svc.http.post(`/api/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, { auth: other.token })).status, 404);
    assert.equal((await svc.http.get('/api/v1/webhooks/endpoints', { auth: account.apiKey })).status, 401);
  });
});
