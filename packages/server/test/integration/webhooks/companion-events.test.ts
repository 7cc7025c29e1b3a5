import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { setCatalogSettings } from '../agents/agent-helpers.js';
import { until } from '../../until.js';
import { WebhookReceiver as Receiver } from '../../fakes/webhook-receiver.js';

type Event = { id: string; type: string; createdAt: string; accountId: string; data: { object: any } };

/**
 * The companion contracts' events (api-contract-events.md §E5.11): `invoice.finalized` when an
 * invoice receives its number (api-contract-money.md §4.1) and `customer.claimed` when a provisional
 * agent customer is claimed (api-contract-agent-v2.md §4.7). Recorded with the change, once per key
 * however many concurrent requests touch it, nothing for a change that does not happen; delivered
 * signed, verified here by the official `standardwebhooks` package. The receiver is on loopback.
 */
describe('companion events (api-contract-events.md §E5.11)', () => {
  let svc: TestService;
  let receiver: Receiver;
  let base: string;
  before(async () => {
    svc = await startTestService({ now: '2026-09-10T10:00:00Z', env: { APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true' } });
    receiver = new Receiver();
    base = await receiver.start();
    svc.relay.start();
  });
  after(async () => {
    await svc.relay.stop();
    await receiver.close();
    await svc.close();
  });

  /** An account with a feature, an endpoint at `path` taking only `type`, and readers of its events and deliveries. */
  async function setup(path: string, type: string) {
    const account = await createTestAccount(svc);
    const m = monetization(svc, account);
    const feature = await m.feature();
    const created = await m.api('POST', '/api/v1/webhooks/endpoints', { url: `${base}${path}`, eventTypes: [type] });
    assert.equal(created.status, 201, created.text);
    const secret = (created.body.data as { secret: string }).secret;
    const events = async (): Promise<Event[]> => {
      const res = await m.api('GET', `/api/v1/webhooks/events?limit=200&type=${type}`);
      assert.equal(res.status, 200, res.text);
      return res.body.data.items as Event[];
    };
    /** The deliveries at `path`, each verified with the endpoint's secret (throws on a bad signature). */
    const delivered = () =>
      receiver.received.filter((r) => r.path === path).map((r) => ({ id: r.headers['webhook-id'], event: new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Event }));
    return { account, m, feature, events, delivered };
  }

  /** Waits until the relay has no pending delivery left for the account's events (so "nothing more" is meaningful). */
  async function settled(m: ReturnType<typeof monetization>) {
    await until('the deliveries to settle', async () => {
      const res = await m.api('GET', '/api/v1/webhooks/deliveries?limit=200');
      assert.equal(res.status, 200, res.text);
      return (res.body.data.items as { status: string }[]).every((d) => d.status !== 'PENDING') ? true : undefined;
    });
  }

  test('when a paid plan is subscribed then invoice.finalized is delivered once with the invoice number; 20 concurrent mark-paid record no second one', async () => {
    const { m, feature, events, delivered } = await setup('/finalized', 'invoice.finalized');
    const plan = await m.activePlan({ price: 30, features: [{ id: feature.id }] });
    await m.customer('fin_1');
    const sub = await m.subscribe('fin_1', plan.id);
    const [event] = await events();
    assert.ok(event, 'invoice.finalized recorded at subscribe (the invoice is created DUE)');
    assert.equal(event.data.object.id, sub.invoice.id);
    assert.match(event.data.object.number, /^[A-Z0-9-]+-2026-000001$/);
    assert.equal(event.data.object.status, 'DUE');
    assert.ok(event.data.object.finalizedAt, 'the Invoice carries finalizedAt');
    assert.ok(Array.isArray(event.data.object.items) && event.data.object.items.length > 0, 'the Invoice carries its items');

    const answers = await Promise.all(Array.from({ length: 20 }, () => m.client('POST', `/billing/invoices/${sub.invoice.id}/mark-paid`)));
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [200]);
    const read = (await m.invoices('fin_1')).items.find((i: any) => i.id === sub.invoice.id);
    assert.deepEqual([read.status, read.number], ['PAID', event.data.object.number], 'the number never changes');
    assert.equal((await events()).length, 1, 'once per invoice');

    const got = await until('the delivery', () => delivered()[0]);
    assert.equal(got.id, event.id, 'webhook-id is the event id');
    assert.equal(got.event.type, 'invoice.finalized');
    assert.equal(got.event.data.object.number, event.data.object.number);
    await settled(m);
    assert.equal(delivered().length, 1, 'delivered once');
  });

  test('when a free plan is subscribed then its invoice, created PAID, is finalised; a refused subscribe and a refused mark-paid record nothing', async () => {
    const { m, feature, events } = await setup('/finalized-free', 'invoice.finalized');
    const free = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
    const draft = await m.expectOk(m.admin('POST', '/plans', { key: 'draft-plan', name: 'Draft', priceAmount: 10, intervalMonths: 1 }), 201);
    await m.customer('fin_free');
    const refused = await m.client('POST', '/subscriptions', { customerReferenceId: 'fin_free', planId: draft.id });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(await events(), [], 'a refused subscribe creates no invoice and records nothing');
    const sub = await m.subscribe('fin_free', free.id);
    const all = await events();
    assert.deepEqual(all.map((e) => [e.data.object.id, e.data.object.status]), [[sub.invoice.id, 'PAID']]);
    const unknown = await m.client('POST', '/billing/invoices/00000000-0000-7000-8000-000000000000/mark-paid');
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal((await events()).length, 1);
  });

  test('when a provisional customer pays a positive invoice then customer.claimed is delivered once (20 concurrent mark-paid); its free signup and a later payment record none', async () => {
    const { account, m, feature, events, delivered } = await setup('/claimed', 'customer.claimed');
    const free = await m.activePlan({ key: 'free', price: 0, features: [{ id: feature.id }] });
    const slug = `companion-${account.accountId.slice(-8)}`;
    await setCatalogSettings(svc, account, { slug, agentSignupEnabled: true, agentSignupDefaultPlanId: free.id, agentSignupHourlyCap: 1000 });
    const signup = await svc.http.post(`/public/v1/catalog/${slug}/signup`, { body: { email: 'agent@example.com' } });
    assert.equal(signup.status, 201, signup.text);
    const ref = signup.body.data.customerReferenceId as string;
    assert.deepEqual(await events(), [], 'the free signup invoice (amount 0) does not claim');

    const pro = await m.activePlan({ key: 'pro', price: 20, features: [{ id: feature.id }] });
    await m.subscribe(ref, pro.id);
    const due = (await m.invoices(ref)).items.find((i: any) => i.status === 'DUE');
    assert.ok(due, 'the paid plan raised a DUE invoice');
    assert.deepEqual(await events(), [], 'a subscribe pays nothing: nothing claimed');
    const answers = await Promise.all(Array.from({ length: 20 }, () => m.client('POST', `/billing/invoices/${due.id}/mark-paid`)));
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [200]);

    const all = await events();
    assert.equal(all.length, 1, 'once per customer');
    const object = all[0]!.data.object;
    assert.equal(object.customerReferenceId, ref);
    assert.equal(object.modifiedAt, svc.clock.now().toISOString(), 'the Admin customer as of the claim');
    const status = await svc.http.get(`/api/v1/client/customers/${ref}/status`, { auth: account.apiKey });
    assert.equal(status.body.data.status, 'claimed');

    const got = await until('the delivery', () => delivered()[0]);
    assert.equal(got.id, all[0]!.id);
    assert.equal(got.event.type, 'customer.claimed');
    assert.equal(got.event.data.object.customerReferenceId, ref);
    await settled(m);
    assert.equal(delivered().length, 1, 'delivered once');
  });

  test('when a customer the tenant made pays then no customer.claimed is recorded (it was never provisional)', async () => {
    const { m, feature, events } = await setup('/claimed-tenant', 'customer.claimed');
    const plan = await m.activePlan({ price: 15, features: [{ id: feature.id }] });
    await m.customer('tenant_1');
    const sub = await m.subscribe('tenant_1', plan.id);
    await m.markPaid(sub.invoice.id);
    assert.deepEqual(await events(), []);
  });
});
