import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * `usage.threshold_reached` and the account setting `usageThresholdPercents`
 * (api-contract-events.md §E5.8, §E7.2): one event per (subscription, feature, window, percent),
 * recorded with the stored usage event that crosses the percent, under the counter's row lock.
 */
describe(`usage threshold events (${backend})`, () => {
  let svc: TestService;
  const unique = () => randomBytes(4).toString('hex');

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  async function setup(limit = 100, extra: Record<string, unknown> = {}) {
    const m = monetization(svc, await createTestAccount(svc));
    const feature = await m.feature();
    const plan = await m.activePlan({
      price: 0,
      features: [{ id: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: 0.002, max_usage: limit, ...extra } } }],
    });
    const ref = `c-${unique()}`;
    await m.customer(ref);
    const subscribedFrom = svc.clock.now().getTime();
    const sub = (await m.subscribe(ref, plan.id)).subscription;
    const subscribedUntil = svc.clock.now().getTime();
    const send = (usageUnits: number | string, key?: string) => m.event({ customerReferenceId: ref, featureKey: feature.key, usageUnits, ...(key ? { eventIdempotencyKey: key } : {}) });
    const events = async () =>
      ((await m.expectOk(m.api('GET', '/api/v1/webhooks/events?type=usage.threshold_reached&limit=100'))).items as { data: { object: any } }[])
        .map((e) => e.data.object)
        .reverse();
    const settings = (body: unknown) => m.api('PATCH', '/api/v1/tanso/account-settings', body);
    const batch = (units: number[]) => m.client('POST', '/events/batch', { events: units.map((usageUnits) => ({ eventName: 'chat.message', customerReferenceId: ref, featureKey: feature.key, usageUnits })) });
    return { m, batch, ref, featureKey: feature.key as string, sub, subscribedFrom, subscribedUntil, send, events, settings };
  }

  test('when usage crosses 80 % and then 100 % then exactly two events carry the threshold, the window and the crossing event', async () => {
    const { ref, featureKey, sub, send, events } = await setup();
    assert.equal((await send(50)).status, 201);
    const at80 = await send('30.5');
    assert.equal(at80.status, 201, at80.text);
    assert.equal((await send(9)).status, 201);
    const at100 = await send('10.5');
    assert.equal(at100.status, 201, at100.text);
    const over = await send(1);
    assert.equal(over.status, 200, 'over the limit: stored zeroed');
    const got = await events();
    assert.equal(got.length, 2);
    assert.deepEqual(
      got.map((o) => [o.percent, o.used, o.limit, o.remaining, o.eventId, o.subscriptionId, o.customerReferenceId, o.featureKey]),
      [
        [80, 80.5, 100, 19.5, at80.body.data.eventId, sub.id, ref, featureKey],
        [100, 100, 100, 0, at100.body.data.eventId, sub.id, ref, featureKey],
      ],
    );
    assert.equal(new Date(got[0].periodStart).getTime(), new Date(sub.currentPeriodStart).getTime());
    assert.equal(new Date(got[0].periodEnd).getTime(), new Date(sub.currentPeriodEnd).getTime());
  });

  test('when one event crosses several percents then one event per percent, ascending; a duplicate (409) records nothing', async () => {
    const { send, events, settings } = await setup(10);
    assert.equal((await settings({ usageThresholdPercents: [100, 25, 50] })).body.data.usageThresholdPercents.join(), '25,50,100');
    assert.equal((await send(6, 'k1')).status, 201);
    assert.deepEqual((await events()).map((o) => o.percent), [25, 50]);
    assert.equal((await send(6, 'k1')).status, 409);
    assert.deepEqual((await events()).map((o) => o.percent), [25, 50]);
    assert.equal((await send(4)).status, 201);
    assert.deepEqual((await events()).map((o) => o.percent), [25, 50, 100]);
  });

  test('when 30 concurrent events cross 80 % and 100 % then exactly two events are recorded', async () => {
    const { send, events } = await setup(100);
    const answers = await Promise.all(Array.from({ length: 30 }, () => send(4)));
    for (const a of answers) assert.ok([200, 201].includes(a.status), a.text);
    assert.deepEqual((await events()).map((o) => o.percent), [80, 100]);
  });

  test('when batches cross the percents, alone and racing each other, then each percent records one event with the event that crossed it', async () => {
    const { batch, events } = await setup(100);
    const first = await batch([30, 30, 25, 5]);
    assert.equal(first.status, 200, first.text);
    const got = await events();
    assert.deepEqual(got.map((o) => [o.percent, o.used]), [[80, 85]]);
    assert.equal(got[0].eventId, first.body.data.results[2].eventId, 'the third event crossed 80 %');
    const racing = await Promise.all(Array.from({ length: 20 }, () => batch([1])));
    for (const r of racing) assert.equal(r.status, 200, r.text);
    assert.deepEqual((await events()).map((o) => [o.percent, o.used]), [[80, 85], [100, 100]]);
  });

  test('when the percents are empty then nothing is recorded; a percent added after usage passed it does not fire in that window', async () => {
    const { send, events, settings } = await setup(100);
    assert.deepEqual((await settings({ usageThresholdPercents: [] })).body.data.usageThresholdPercents, []);
    assert.equal((await send(85)).status, 201);
    assert.deepEqual(await events(), []);
    assert.deepEqual((await settings({ usageThresholdPercents: [50, 90] })).body.data.usageThresholdPercents, [50, 90]);
    assert.equal((await send(1)).status, 201);
    assert.deepEqual(await events(), []);
    assert.equal((await send(4)).status, 201);
    assert.deepEqual((await events()).map((o) => [o.percent, o.used]), [[90, 90]]);
  });

  test('when a new period starts then every percent is armed again; an event past the limit in the old one records nothing', async () => {
    const { send, events, sub } = await setup(10);
    assert.equal((await send(8)).status, 201);
    assert.equal((await send(5)).status, 200, 'over the limit: zeroed, crosses nothing');
    assert.deepEqual((await events()).map((o) => o.percent), [80]);
    svc.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 60_000).toISOString());
    assert.equal((await send(10)).status, 201);
    const got = await events();
    assert.deepEqual(got.map((o) => o.percent), [80, 80, 100]);
    assert.equal(new Date(got[1].periodStart).getTime(), new Date(sub.currentPeriodEnd).getTime(), 'the new window');
    assert.ok(new Date(got[1].periodEnd).getTime() > new Date(got[1].periodStart).getTime());
  });

  test('when an accumulate rule crosses a percent then its window is the subscription since creation, with no end', async () => {
    const { send, events, subscribedFrom, subscribedUntil } = await setup(10, { reset_mode: 'accumulate' });
    assert.equal((await send(8)).status, 201);
    const [o] = await events();
    assert.equal(o.percent, 80);
    const start = new Date(o.periodStart).getTime();
    assert.ok(start >= subscribedFrom && start <= subscribedUntil, 'the subscription\'s creation');
    assert.equal(o.periodEnd, null);
  });

  test('when usageThresholdPercents is set then GET shows it; null resets to [80, 100]; anything else is 400 with the contract message', async () => {
    const { m, settings } = await setup();
    assert.deepEqual((await m.expectOk(m.api('GET', '/api/v1/tanso/account-settings'))).usageThresholdPercents, [80, 100]);
    assert.deepEqual((await settings({ usageThresholdPercents: [5, 1] })).body.data.usageThresholdPercents, [1, 5]);
    assert.deepEqual((await m.expectOk(m.api('GET', '/api/v1/tanso/account-settings'))).usageThresholdPercents, [1, 5]);
    const message = 'usageThresholdPercents must hold at most 10 distinct integers from 1 to 100';
    for (const bad of [Array.from({ length: 11 }, (_, i) => i + 1), [0], [101], [50, 50], [12.5], ['80'], 80]) {
      const res = await settings({ usageThresholdPercents: bad });
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.equal(res.body.error.code, 'validation_failed');
      assert.ok(res.body.error.message.endsWith(message), res.body.error.message);
    }
    assert.deepEqual((await settings({ usageThresholdPercents: Array.from({ length: 10 }, (_, i) => 100 - i) })).body.data.usageThresholdPercents, [91, 92, 93, 94, 95, 96, 97, 98, 99, 100]);
    assert.deepEqual((await settings({ usageThresholdPercents: null })).body.data.usageThresholdPercents, [80, 100]);
  });
});
