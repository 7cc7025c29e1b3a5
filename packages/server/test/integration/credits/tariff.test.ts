import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { resolveWeight } from '../../../src/modules/credits/tariff/service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { snapshotTables } from '../../snapshot.js';
import { countRows, inMs, insertCreditModel } from './tariff-helpers.js';

const HOUR = 3_600_000;
const MISSING = '00000000-0000-7000-8000-000000000000';

describe('credit weight tariff (admin API)', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let other: ReturnType<typeof monetization>;
  let username: string;
  let accountId: string;
  let chat: { id: string; key: string };
  let theirs: { id: string };

  before(async () => {
    svc = await startTestService();
    const acct = await createTestAccount(svc);
    ({ username, accountId } = acct);
    m = monetization(svc, acct);
    other = monetization(svc, await createTestAccount(svc));
    chat = await m.feature({ key: 'ai.chat' });
    theirs = await other.feature({ key: 'theirs' });
  });
  after(() => svc.close());

  const publish = (body: unknown, as = m) => as.admin('POST', '/credits/weights/publish', body);
  const weights = () => m.expectOk<any[]>(m.admin('GET', '/credits/weights'));
  const history = (query: string) => m.admin('GET', `/credits/weights/history?${query}`);
  const count = () => countRows(svc, 'credit_weights');
  const snapshot = () => snapshotTables(svc, ['credit_weights']);
  // A batch is account-wide: one instant holds one batch, so every test publishes at its own instants.
  let slot = 0;
  const future = (ms: number) => inMs(svc, ms + ++slot * 1000);

  test('when a batch is published then 201 echoes exact decimals, trimmed models and SCHEDULED rows', async () => {
    const effectiveFrom = future(HOUR);
    const res = await publish({
      effectiveFrom,
      entries: [
        { featureId: chat.id, creditsPerUnit: 123456.123456 },
        { featureId: chat.id, model: ' gpt-4.1 ', creditsPerUnit: '0.000001' },
        { featureId: chat.id, model: 'claude', creditsPerUnit: 1000000 },
      ],
    });
    assert.equal(res.status, 201, res.text);
    assert.match(res.text, /"creditsPerUnit":123456\.123456[,}]/);
    assert.match(res.text, /"creditsPerUnit":0\.000001[,}]/, 'a JSON number, never a string or exponent form');
    const rows = res.body.data;
    assert.deepEqual(rows.map((r: any) => [r.featureId, r.featureKey, r.model, r.status, r.createdBy]), [
      [chat.id, 'ai.chat', null, 'SCHEDULED', username],
      [chat.id, 'ai.chat', 'gpt-4.1', 'SCHEDULED', username],
      [chat.id, 'ai.chat', 'claude', 'SCHEDULED', username],
    ]);
    assert.equal(new Date(rows[0].effectiveFrom).toISOString(), effectiveFrom);
  });

  test('when the same batch is replayed (any order, any scale) then 201 with the same row ids and nothing written', async () => {
    const effectiveFrom = future(2 * HOUR);
    const first = await m.expectOk<any[]>(publish({ effectiveFrom, entries: [{ featureId: chat.id, creditsPerUnit: 2.5 }, { featureId: chat.id, model: 'gpt', creditsPerUnit: 8 }] }), 201);
    const before = await snapshot();
    const replay = await m.expectOk<any[]>(publish({ effectiveFrom, entries: [{ featureId: chat.id, model: ' gpt', creditsPerUnit: '8.000' }, { featureId: chat.id, model: '', creditsPerUnit: '2.50' }] }), 201);
    assert.deepEqual(replay.map((r) => r.id), [first[1].id, first[0].id]);
    assert.deepEqual(await snapshot(), before, 'nothing changed');
  });

  test('when a different batch is published at the same instant then 409 conflict and nothing written', async () => {
    const effectiveFrom = future(3 * HOUR);
    await m.expectOk(publish({ effectiveFrom, entries: [{ featureId: chat.id, creditsPerUnit: 2 }] }), 201);
    const before = await snapshot();
    for (const entries of [[{ featureId: chat.id, creditsPerUnit: 3 }], [{ featureId: chat.id, creditsPerUnit: 2 }, { featureId: chat.id, model: 'gpt', creditsPerUnit: 2 }]]) {
      const res = await publish({ effectiveFrom, entries });
      assert.equal(res.status, 409, res.text);
      assert.equal(res.body.error.code, 'conflict');
      assert.equal(res.body.error.message, `A different tariff is already published at ${effectiveFrom} — pick another effective time`);
    }
    assert.deepEqual(await snapshot(), before, 'nothing changed');
  });

  test('when publishes race at one instant then identical ones share one batch and different ones lose with 409', async () => {
    const effectiveFrom = future(4 * HOUR);
    const body = (weight: number) => ({ effectiveFrom, entries: [{ featureId: chat.id, creditsPerUnit: 2 }, { featureId: chat.id, model: 'race', creditsPerUnit: weight }] });
    const before = await count();
    const same = await Promise.all([1, 2, 3, 4].map(() => publish(body(7))));
    assert.deepEqual(same.map((r) => r.status), [201, 201, 201, 201]);
    assert.equal(new Set(same.map((r) => r.body.data.map((w: any) => w.id).join())).size, 1, 'every caller sees the same rows');
    assert.equal(await count(), before + 2);
    const other = future(4 * HOUR);
    const mixed = await Promise.all([7, 8, 9].map((w) => publish({ ...body(w), effectiveFrom: other })));
    assert.deepEqual(mixed.map((r) => r.status).sort(), [201, 409, 409]);
    assert.equal(await count(), before + 4);
  });

  test('when a publish is invalid then 400 validation_failed names the entry, and nothing is written', async () => {
    const later = future(5 * HOUR);
    const one = (entry: Record<string, unknown>) => ({ effectiveFrom: later, entries: [{ featureId: chat.id, creditsPerUnit: 1, ...entry }] });
    const cases: [unknown, string, string?][] = [
      [{ ...one({}), effectiveFrom: inMs(svc, -1000) }, 'effectiveFrom must not be in the past', 'effectiveFrom'],
      [{ ...one({}), effectiveFrom: inMs(svc, 0) }, 'effectiveFrom must not be in the past', 'effectiveFrom'],
      [one({ creditsPerUnit: 1.1234567 }), 'Entry 0: creditsPerUnit allows at most 6 decimals', 'entries[0].creditsPerUnit'],
      [one({ creditsPerUnit: 1000001 }), 'Entry 0: creditsPerUnit exceeds maximum 1000000', 'entries[0].creditsPerUnit'],
      [one({ creditsPerUnit: 0 }), 'Entry 0: creditsPerUnit must be positive', 'entries[0].creditsPerUnit'],
      [one({ creditsPerUnit: -2 }), 'Entry 0: creditsPerUnit must be positive', 'entries[0].creditsPerUnit'],
      [one({ featureId: 'not-a-uuid' }), 'Entry 0: featureId is not a valid UUID', 'entries[0].featureId'],
      [{ effectiveFrom: later, entries: [{ featureId: chat.id, creditsPerUnit: 1 }, { featureId: MISSING, creditsPerUnit: 1 }] }, 'Entry 1: feature not found for this account', 'entries[1].featureId'],
      [{ effectiveFrom: later, entries: [{ featureId: chat.id, creditsPerUnit: 1 }, { featureId: theirs.id, creditsPerUnit: 1 }] }, 'Entry 1: feature not found for this account', 'entries[1].featureId'],
      [{ effectiveFrom: later, entries: [{ featureId: chat.id, model: 'x', creditsPerUnit: 1 }, { featureId: chat.id, model: ' x ', creditsPerUnit: 2 }] }, 'Entry 1: duplicate (feature, model) in batch', 'entries[1].featureId'],
      [{ effectiveFrom: later, entries: [] }, 'Validation failed: entries:'],
      [{ entries: [{ featureId: chat.id, creditsPerUnit: 1 }] }, 'Validation failed: effectiveFrom: is required'],
      [{ ...one({}), effectiveFrom: 'next tuesday' }, 'Validation failed: effectiveFrom:'],
      [one({ creditsPerUnit: 'lots' }), 'Validation failed: entries[0].creditsPerUnit:'],
    ];
    const before = await snapshot();
    for (const [body, message, field] of cases) {
      const res = await publish(body);
      assert.equal(res.status, 400, `${message}: ${res.text}`);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.ok(res.body.error.message.startsWith(message), `${res.body.error.message} starts with ${message}`);
      assert.ok(res.body.error.requestId);
      if (field) assert.equal(res.body.error.fields[0].field, field);
    }
    assert.deepEqual(await snapshot(), before, 'nothing changed');
  });

  test('when a feature draws on two credit denominations then its weights are refused', async () => {
    const feature = await m.feature({ key: 'ai.mixed' });
    for (const denomination of ['tokens', 'gems']) {
      const creditModelId = await insertCreditModel(svc, accountId, denomination);
      const plan = await m.expectOk(m.admin('POST', '/plans', { key: `p-${denomination}`, name: denomination }), 201);
      await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId }), 201);
    }
    const res = await publish({ effectiveFrom: future(HOUR), entries: [{ featureId: feature.id, creditsPerUnit: 2 }] });
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.error.message, /^Entry 0: feature 'ai\.mixed' draws on more than one credit denomination \((tokens, gems|gems, tokens)\)$/);
  });

  test('when the clock passes effectiveFrom then SCHEDULED turns CURRENT and history keeps the superseded row', async () => {
    const feature = await m.feature({ key: 'ai.timeline' });
    const v1 = (await m.expectOk<any[]>(publish({ effectiveFrom: future(HOUR), entries: [{ featureId: feature.id, creditsPerUnit: 1.5 }] }), 201))[0];
    const v2 = (await m.expectOk<any[]>(publish({ effectiveFrom: future(2 * HOUR), entries: [{ featureId: feature.id, creditsPerUnit: 3 }] }), 201))[0];
    const mine = async () => (await weights()).filter((w) => w.featureId === feature.id).map((w) => [w.id, w.status]);
    assert.deepEqual(await mine(), [[v1.id, 'SCHEDULED'], [v2.id, 'SCHEDULED']]);
    svc.clock.set(v1.effectiveFrom);
    assert.deepEqual(await mine(), [[v1.id, 'CURRENT'], [v2.id, 'SCHEDULED']], 'effectiveFrom == now is in effect');
    svc.clock.set(v2.effectiveFrom);
    svc.clock.advanceMs(1);
    assert.deepEqual(await mine(), [[v2.id, 'CURRENT']], 'the superseded row leaves the list');
    const chain = await m.expectOk<any[]>(history(`featureId=${feature.id}`));
    assert.deepEqual(chain.map((w) => [w.id, w.status]), [[v2.id, 'CURRENT'], [v1.id, 'SUPERSEDED']]);
  });

  test('when history is asked then only that (feature, model) chain comes back, newest first', async () => {
    const feature = await m.feature({ key: 'ai.hist' });
    for (const hours of [1, 3, 2]) {
      await m.expectOk(publish({ effectiveFrom: future(hours * HOUR), entries: [{ featureId: feature.id, creditsPerUnit: hours }, { featureId: feature.id, model: 'gpt', creditsPerUnit: hours * 10 }] }), 201);
    }
    const defaults = await m.expectOk<any[]>(history(`featureId=${feature.id}`));
    assert.deepEqual(defaults.map((w) => [w.model, w.creditsPerUnit]), [[null, 3], [null, 2], [null, 1]]);
    const gpt = await m.expectOk<any[]>(history(`featureId=${feature.id}&model=gpt`));
    assert.deepEqual(gpt.map((w) => w.creditsPerUnit), [30, 20, 10]);
    assert.deepEqual(await m.expectOk(history(`featureId=${theirs.id}`)), [], "another account's feature has no history here");
    const missing = await history('model=gpt');
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.message, 'Missing required parameter: featureId');
  });

  test('when a row is deleted then a scheduled one goes, an effective one is 400, and unknown or foreign ids are 404', async () => {
    const feature = await m.feature({ key: 'ai.delete' });
    const [soon, later] = [future(HOUR), future(2 * HOUR)];
    const a = (await m.expectOk<any[]>(publish({ effectiveFrom: soon, entries: [{ featureId: feature.id, creditsPerUnit: 2 }] }), 201))[0];
    const b = (await m.expectOk<any[]>(publish({ effectiveFrom: later, entries: [{ featureId: feature.id, creditsPerUnit: 4 }] }), 201))[0];
    const theirRow = (await m.expectOk<any[]>(publish({ effectiveFrom: later, entries: [{ featureId: theirs.id, creditsPerUnit: 4 }] }, other), 201))[0];
    assert.deepEqual((await m.admin('DELETE', `/credits/weights/${b.id}`)).body, { success: true });
    svc.clock.set(soon);
    const before = await snapshot();
    const effective = await m.admin('DELETE', `/credits/weights/${a.id}`);
    assert.equal(effective.status, 400);
    assert.equal(effective.body.error.message, 'Only scheduled rows (effectiveFrom in the future) can be deleted — effective rows are the settled tariff');
    for (const id of [theirRow.id, MISSING]) {
      const res = await m.admin('DELETE', `/credits/weights/${id}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    }
    assert.equal((await m.admin('DELETE', '/credits/weights/nope')).status, 400);
    assert.deepEqual(await snapshot(), before, 'nothing changed');
  });

  test('when resolveWeight is called then MODEL beats FEATURE_DEFAULT beats NONE, at the given instant only', async () => {
    const feature = await m.feature({ key: 'ai.resolve' });
    const [t1, t3] = [future(HOUR), future(3 * HOUR)];
    await m.expectOk(publish({ effectiveFrom: t1, entries: [{ featureId: feature.id, creditsPerUnit: 2 }, { featureId: feature.id, model: 'gpt', creditsPerUnit: 8.5 }] }), 201);
    await m.expectOk(publish({ effectiveFrom: t3, entries: [{ featureId: feature.id, creditsPerUnit: 3 }] }), 201);
    const at = (iso: string, deltaMs = 0) => new Date(new Date(iso).getTime() + deltaMs);
    const resolve = async (model: string | null, when: Date, account = accountId) => {
      const r = await resolveWeight(svc.ctx.db, account, feature.id, model, when);
      return [r.weight.toFixed(), r.weightMatch, r.weightId === null];
    };
    assert.deepEqual(await resolve('gpt', at(t1, -1)), ['1', 'NONE', true], 'nothing is in effect yet');
    assert.deepEqual(await resolve('gpt', at(t1)), ['8.5', 'MODEL', false]);
    assert.deepEqual(await resolve(' gpt ', at(t1)), ['8.5', 'MODEL', false], 'models are trimmed');
    assert.deepEqual(await resolve('GPT', at(t1)), ['2', 'FEATURE_DEFAULT', false], 'models are case-sensitive');
    assert.deepEqual(await resolve('', at(t1)), ['2', 'FEATURE_DEFAULT', false]);
    assert.deepEqual(await resolve(null, at(t3, -1)), ['2', 'FEATURE_DEFAULT', false], 'the future row waits for its time');
    assert.deepEqual(await resolve(null, at(t3)), ['3', 'FEATURE_DEFAULT', false]);
    assert.deepEqual(await resolve('gpt', at(t3)), ['8.5', 'MODEL', false], 'a model row beats a newer default row');
    const otherAccount = (await svc.ctx.db.selectFrom('features').select('account_id').where('id', '=', theirs.id).executeTakeFirstOrThrow()).account_id;
    assert.deepEqual(await resolve('gpt', at(t1), otherAccount), ['1', 'NONE', true], "another account never sees this account's weights");
  });
});
