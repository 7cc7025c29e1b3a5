import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

const NOW = '2026-09-15T12:00:00Z';
const DAY = 86_400_000;
const at = (iso: string) => new Date(iso).toISOString();

/**
 * Usage reads (api-contract-agent-v2.md §6): GET /api/v1/client/customers/{ref}/usage/events and
 * /usage/history, for the tenant key and the customer's own key.
 */
describe('usage reads (GET …/customers/{ref}/usage/events and /usage/history)', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let other: ReturnType<typeof monetization>;
  let chat: { id: string; key: string };
  let search: { id: string; key: string };
  let freePlan: { id: string; key: string };
  let proPlan: { id: string; key: string };
  let firstSubscriptionId: string;
  let secondSubscriptionId: string;
  let aliceKey: string;

  const events = (ref: string, query = '', key?: string) =>
    key ? svc.http.get(`/api/v1/client/customers/${ref}/usage/events${query}`, { auth: key }) : m.client('GET', `/customers/${ref}/usage/events${query}`);
  const history = (ref: string, query = '', key?: string) =>
    key ? svc.http.get(`/api/v1/client/customers/${ref}/usage/history${query}`, { auth: key }) : m.client('GET', `/customers/${ref}/usage/history${query}`);
  const send = async (mm: ReturnType<typeof monetization>, body: Record<string, unknown>) => {
    const res = await mm.event(body);
    assert.ok(res.status === 201 || res.status === 200, res.text);
    return res.body.data;
  };

  before(async () => {
    svc = await startTestService({ now: NOW });
    const account = await createTestAccount(svc);
    m = monetization(svc, account);
    chat = await m.feature({ key: 'ai.chat' });
    search = await m.feature({ key: 'search' });
    freePlan = await m.activePlan({ key: 'free', price: 0, features: [{ id: chat.id }, { id: search.id, value: {} }] });
    proPlan = await m.activePlan({ key: 'pro', price: 0, features: [{ id: chat.id, value: { pricing: { model: 'usage', usage_unit_type: 'tokens', price_per_unit: 0.001 } } }] });
    await m.customer('alice');
    firstSubscriptionId = (await m.subscribe('alice', freePlan.id)).subscription.id;
    await m.customer('bob');
    await m.subscribe('bob', freePlan.id);
    await m.customer('carol');
    aliceKey = await m.customerKey('alice', ['read']);

    // alice on the free plan: two events at the same instant (ties by insert), one without units, one over 90 days old.
    await send(m, { customerReferenceId: 'alice', featureKey: chat.key, eventName: 'chat.completion', usageUnits: 2, occurredAt: '2026-09-10T08:00:00Z', eventIdempotencyKey: 'a-1' });
    await send(m, { customerReferenceId: 'alice', featureKey: chat.key, eventName: 'chat.completion', usageUnits: '0.5', occurredAt: '2026-09-10T08:00:00Z', eventIdempotencyKey: 'a-2' });
    await send(m, { customerReferenceId: 'alice', featureKey: search.key, eventName: 'search.query', occurredAt: '2026-09-11T09:00:00Z' });
    await send(m, { customerReferenceId: 'alice', featureKey: chat.key, eventName: 'chat.completion', usageUnits: 7, occurredAt: '2026-05-01T00:00:00Z', eventIdempotencyKey: 'a-old' });
    // An entitlement check records an ENTITLEMENT_CHECKED event: never listed nor counted.
    await m.check('alice', chat.key);
    // The free subscription ends; usage on the pro plan follows.
    await m.expectOk(m.client('POST', `/subscriptions/cancellation/${firstSubscriptionId}?cancelMode=IMMEDIATE`));
    secondSubscriptionId = (await m.subscribe('alice', proPlan.id)).subscription.id;
    await send(m, { customerReferenceId: 'alice', featureKey: chat.key, eventName: 'chat.completion', usageUnits: 3, occurredAt: '2026-09-12T10:00:00Z', eventIdempotencyKey: 'a-pro' });
    // bob's and carol's events (carol has no subscription).
    await send(m, { customerReferenceId: 'bob', featureKey: chat.key, eventName: 'chat.completion', usageUnits: 100, occurredAt: '2026-09-10T08:00:00Z', eventIdempotencyKey: 'b-1' });
    await send(m, { customerReferenceId: 'carol', featureKey: chat.key, eventName: 'chat.completion', usageUnits: 4, occurredAt: '2026-09-13T00:00:00Z', eventIdempotencyKey: 'c-1' });
    // Another account with a customer of the same reference.
    other = monetization(svc, await createTestAccount(svc));
    const otherFeature = await other.feature({ key: 'ai.chat' });
    await other.customer('alice');
    await send(other, { customerReferenceId: 'alice', featureKey: otherFeature.key, eventName: 'chat.completion', usageUnits: 50, occurredAt: '2026-09-10T08:00:00Z', eventIdempotencyKey: 'o-1' });
  });
  after(() => svc.close());

  test('when events are listed with the default window then the last 90 days are listed newest first, ties by newest insert, checks left out', async () => {
    const page = await m.expectOk(events('alice'));
    assert.deepEqual(
      page.items.map((e: any) => [e.eventIdempotencyKey.startsWith('a-') ? e.eventIdempotencyKey : 'generated', e.featureKey, e.usageUnits, e.occurredAt]),
      [
        ['a-pro', 'ai.chat', 3, at('2026-09-12T10:00:00Z')],
        ['generated', 'search', 1, at('2026-09-11T09:00:00Z')],
        ['a-2', 'ai.chat', 0.5, at('2026-09-10T08:00:00Z')],
        ['a-1', 'ai.chat', 2, at('2026-09-10T08:00:00Z')],
      ],
    );
    assert.deepEqual(page.pagination, { total: 4, limit: 50, offset: 0, hasMore: false });
    const [pro, generated, , first] = page.items;
    assert.deepEqual(Object.keys(first), ['id', 'eventIdempotencyKey', 'eventName', 'featureKey', 'subscriptionId', 'usageUnits', 'usageUnitType', 'occurredAt']);
    assert.equal(first.eventName, 'chat.completion');
    assert.equal(first.subscriptionId, firstSubscriptionId);
    assert.equal(first.usageUnitType, 'messages');
    assert.equal(pro.subscriptionId, secondSubscriptionId);
    assert.equal(pro.usageUnitType, 'tokens', "the rule of the event's own plan");
    assert.match(generated.eventIdempotencyKey, /.+/, 'the generated key the event was stored under');
    assert.equal(generated.usageUnitType, null, 'a rule without pricing has no unit');
  });

  test('when events are listed with a window, a feature or a page then only those are listed and pagination follows base §1.2', async () => {
    const old = await m.expectOk(events('alice', '?from=2026-04-01T00:00:00Z&to=2026-09-10T08:00:00Z'));
    assert.deepEqual(old.items.map((e: any) => e.eventIdempotencyKey), ['a-old'], 'to is exclusive');
    const chatOnly = await m.expectOk(events('alice', `?featureKey=${chat.key}`));
    assert.deepEqual(chatOnly.items.map((e: any) => e.eventIdempotencyKey), ['a-pro', 'a-2', 'a-1']);
    assert.deepEqual(await m.expectOk(events('alice', '?featureKey=no.such.feature')), { items: [], pagination: { total: 0, limit: 50, offset: 0, hasMore: false } });
    const second = await m.expectOk(events('alice', '?limit=2&offset=1'));
    assert.deepEqual(second.items.map((e: any) => e.occurredAt), [at('2026-09-11T09:00:00Z'), at('2026-09-10T08:00:00Z')]);
    assert.deepEqual(second.pagination, { total: 4, limit: 2, offset: 1, hasMore: true });
    assert.equal((await m.expectOk(events('alice', '?limit=1000'))).pagination.limit, 200, 'clamped');
    const carol = await m.expectOk(events('carol'));
    assert.deepEqual(carol.items.map((e: any) => [e.eventIdempotencyKey, e.subscriptionId, e.usageUnitType]), [['c-1', null, null]]);
  });

  test('when only to is given then from is 90 days before it; a window of exactly 366 days is accepted', async () => {
    const page = await m.expectOk(events('alice', '?to=2026-07-30T00:00:00Z'));
    assert.deepEqual(page.items.map((e: any) => e.eventIdempotencyKey), ['a-old'], '2026-05-01 is within 90 days of 2026-07-30');
    const none = await m.expectOk(events('alice', '?to=2026-08-01T00:00:00Z'));
    assert.deepEqual(none.items, [], '2026-05-01 is more than 90 days before 2026-08-01');
    const to = new Date('2026-09-15T00:00:00Z');
    const from = new Date(to.getTime() - 366 * DAY).toISOString();
    assert.equal((await m.expectOk(events('alice', `?from=${from}&to=${to.toISOString()}`))).pagination.total, 5);
    await m.expectOk(history('alice', `?from=${from}&to=${to.toISOString()}`));
  });

  test('when the window or a parameter is bad then 400 with the contract message, never 500', async () => {
    const cases: [string, 'events' | 'history', string][] = [
      ['?from=2025-09-01T00:00:00Z&to=2026-09-03T00:00:00Z', 'events', 'The window may span at most 366 days'],
      ['?from=2025-09-01T00:00:00Z&to=2026-09-03T00:00:00Z', 'history', 'The window may span at most 366 days'],
      ['?from=2026-09-01T00:00:00Z&to=2026-09-01T00:00:00Z', 'events', 'from must be before to'],
      ['?from=2026-09-02T00:00:00Z&to=2026-09-01T00:00:00Z', 'history', 'from must be before to'],
      ['?from=2026-09-16T00:00:00Z', 'events', 'from must be before to'],
      ['?from=yesterday', 'events', 'Invalid value for parameter: from'],
      ['?to=2026-13-01T00:00:00Z', 'events', 'Invalid value for parameter: to'],
      ['?from=2026-09-01T00:00:00Z&to=1e400', 'history', 'Invalid value for parameter: to'],
      ['?to=2026-09-01T00:00:00Z', 'history', 'Missing required parameter: from'],
      ['?from=2026-09-01T00:00:00Z', 'history', 'Missing required parameter: to'],
      ['?from=2026-09-01T00:00:00Z&to=2026-09-02T00:00:00Z&subscriptionId=nope', 'history', 'Invalid value for parameter: subscriptionId'],
      ['?limit=0', 'events', 'Invalid value for parameter: limit'],
      ['?offset=-1', 'events', 'Invalid value for parameter: offset'],
      ['?limit=1e20', 'events', 'Invalid value for parameter: limit'],
      [`?featureKey=${'x'.repeat(129)}`, 'events', 'Invalid value for parameter: featureKey'],
    ];
    for (const [query, route, message] of cases) {
      const res = await (route === 'events' ? events('alice', query) : history('alice', query));
      assert.equal(res.status, 400, `${route}${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.message, message, `${route}${query}`);
    }
  });

  test('when the reference is unknown then 404 Customer not found; another account\'s customer of the same reference is not seen', async () => {
    for (const res of [await events('nobody'), await history('nobody', '?from=2026-09-01T00:00:00Z&to=2026-09-15T00:00:00Z')]) {
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'not_found');
      assert.equal(res.body.error.message, 'Customer not found: nobody');
    }
    const theirs = await other.expectOk(other.client('GET', '/customers/alice/usage/events'));
    assert.deepEqual(theirs.items.map((e: any) => e.eventIdempotencyKey), ['o-1']);
  });

  test('when a customer key reads its own usage then 200; another customer\'s is 403 forbidden', async () => {
    const own = await m.expectOk(events('alice', '', aliceKey));
    assert.equal(own.pagination.total, 4);
    const ownHistory = await m.expectOk(history('alice', '?from=2026-09-01T00:00:00Z&to=2026-09-15T00:00:00Z', aliceKey));
    assert.equal(ownHistory.customerReferenceId, 'alice');
    for (const res of [await events('bob', '', aliceKey), await history('bob', '?from=2026-09-01T00:00:00Z&to=2026-09-15T00:00:00Z', aliceKey)]) {
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.code, 'forbidden');
      assert.equal(res.body.error.message, 'This API key is scoped to another customer');
    }
  });

  test('when history is read then one row per (subscription, feature, event name) in order, the ended subscription kept, checks left out', async () => {
    const data = await m.expectOk(history('alice', '?from=2026-04-01T00:00:00Z&to=2026-09-15T12:00:00Z'));
    assert.deepEqual(Object.keys(data), ['customerReferenceId', 'from', 'to', 'usage']);
    assert.equal(data.from, at('2026-04-01T00:00:00Z'));
    assert.equal(data.to, at('2026-09-15T12:00:00Z'));
    const rows = data.usage.map((r: any) => [r.featureKey, r.eventName, r.subscriptionId, r.planKey, r.usageUnits, r.events, r.firstOccurredAt, r.lastOccurredAt]);
    const [firstId, secondId] = [firstSubscriptionId, secondSubscriptionId].sort();
    const planOf = (id: string) => (id === firstSubscriptionId ? 'free' : 'pro');
    const chatRows = {
      [firstSubscriptionId]: [9.5, 3, at('2026-05-01T00:00:00Z'), at('2026-09-10T08:00:00Z')],
      [secondSubscriptionId]: [3, 1, at('2026-09-12T10:00:00Z'), at('2026-09-12T10:00:00Z')],
    };
    assert.deepEqual(rows, [
      ['ai.chat', 'chat.completion', firstId, planOf(firstId!), ...chatRows[firstId!]!],
      ['ai.chat', 'chat.completion', secondId, planOf(secondId!), ...chatRows[secondId!]!],
      ['search', 'search.query', firstSubscriptionId, 'free', 1, 1, at('2026-09-11T09:00:00Z'), at('2026-09-11T09:00:00Z')],
    ]);
    const filtered = await m.expectOk(history('alice', `?from=2026-04-01T00:00:00Z&to=2026-09-15T12:00:00Z&featureKey=${chat.key}&subscriptionId=${secondSubscriptionId}`));
    assert.deepEqual(filtered.usage.map((r: any) => [r.subscriptionId, r.usageUnits]), [[secondSubscriptionId, 3]]);
    const carol = await m.expectOk(history('carol', '?from=2026-09-01T00:00:00Z&to=2026-09-15T00:00:00Z'));
    assert.deepEqual(carol.usage.map((r: any) => [r.subscriptionId, r.planKey, r.usageUnits, r.events]), [[null, null, 4, 1]]);
    const empty = await m.expectOk(history('alice', '?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z'));
    assert.deepEqual(empty.usage, []);
  });
});
