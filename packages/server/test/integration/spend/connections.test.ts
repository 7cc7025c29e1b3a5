import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ANTHROPIC_FAKE_KEY, type AnthropicFake } from '../../fakes/vendors/anthropic.js';
import type { TestService } from '../../harness.js';
import { CONNECTIONS, spendOperator, startSpendService, storedRows } from './connections-helpers.js';

describe('spend connections (contract §7.2)', () => {
  let svc: TestService;
  let anthropic: AnthropicFake;
  let close: () => Promise<void>;
  before(async () => {
    ({ svc, anthropic, close } = await startSpendService());
  });
  after(() => close());
  beforeEach(() => anthropic.reset());

  test('when an Anthropic key is accepted then 201 ACTIVE, the key sealed at rest and only its last 4 shown', async () => {
    const o = await spendOperator(svc);
    const res = await o.create({ provider: 'ANTHROPIC', label: 'Main org', adminKey: `  ${ANTHROPIC_FAKE_KEY} `, scope: 'ignored' });
    assert.equal(res.status, 201, res.text);
    const c = res.body.data;
    assert.deepEqual(
      { provider: c.provider, label: c.label, keyHint: c.keyHint, scope: c.scope, status: c.status, lastError: c.lastError, lastSyncedAt: c.lastSyncedAt },
      { provider: 'ANTHROPIC', label: 'Main org', keyHint: ANTHROPIC_FAKE_KEY.slice(-4), scope: null, status: 'ACTIVE', lastError: null, lastSyncedAt: null },
    );
    assert.ok(!res.text.includes(ANTHROPIC_FAKE_KEY));
    assert.ok(anthropic.requests.some((r) => r.path === '/v1/organizations/me' && r.headers['x-api-key'] === ANTHROPIC_FAKE_KEY), 'the key was checked with the vendor');
    const row = await svc.ctx.db.selectFrom('spend_connections').selectAll().where('id', '=', c.id).executeTakeFirstOrThrow();
    assert.ok(row.admin_key_sealed && !row.admin_key_sealed.includes(ANTHROPIC_FAKE_KEY));
    assert.equal(svc.ctx.secrets.open(row.admin_key_sealed, `spend_connections:${o.account.accountId}:${c.id}:admin_key`), ANTHROPIC_FAKE_KEY);
  });

  test('when connections are listed then oldest first, and one is read by id', async () => {
    const o = await spendOperator(svc);
    const first = await o.connectAnthropic('First');
    svc.clock.advanceMs(1000);
    const second = await o.connectAnthropic('Second');
    const list = await o.list();
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((c: { id: string }) => c.id), [first.id, second.id]);
    const one = await o.get(second.id);
    assert.equal(one.status, 200);
    assert.equal(one.body.data.label, 'Second');
  });

  test('when the label is taken for the provider (case folded) then 400 with the contract message; after delete it is free', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic('Prod');
    const dup = await o.create({ provider: 'ANTHROPIC', label: ' PROD ', adminKey: ANTHROPIC_FAKE_KEY });
    assert.equal(dup.status, 400);
    assert.equal(dup.body.error.code, 'validation_failed');
    assert.equal(dup.body.error.message, 'A ANTHROPIC connection labelled "PROD" already exists — replace its key instead');
    assert.equal((await o.list()).body.data.length, 1);
    assert.equal((await o.remove(c.id)).status, 200);
    assert.equal((await o.create({ provider: 'ANTHROPIC', label: 'prod', adminKey: ANTHROPIC_FAKE_KEY })).status, 201);
  });

  test('when a provider needs a scope and none is given then 400 naming what it needs, nothing stored', async () => {
    const o = await spendOperator(svc);
    const copilot = await o.create({ provider: 'COPILOT', label: 'gh', adminKey: 'ghp_x1234' });
    assert.equal(copilot.status, 400);
    assert.equal(copilot.body.error.message, 'COPILOT needs a scope (the GitHub organisation)');
    const litellm = await o.create({ provider: 'LITELLM', label: 'proxy', adminKey: 'sk-1234', scope: '  ' });
    assert.equal(litellm.status, 400);
    assert.match(litellm.body.error.message, /^LITELLM needs a scope \(the proxy base URL/);
    assert.equal((await o.list()).body.data.length, 0);
  });

  test('when the LiteLLM proxy URL fails the outbound-URL guard then 400 validation_failed, nothing stored', async () => {
    const o = await spendOperator(svc);
    for (const [scope, reason] of [
      ['http://169.254.169.254', /link-local/],
      ['ftp://10.0.0.1', /scheme ftp/],
      ['http://admin:pw@10.0.0.1', /credentials/],
      ['http://0.0.0.0:4000', /unspecified/],
      ['http://[fe80::1]:4000', /link-local/],
    ] as const) {
      const res = await o.create({ provider: 'LITELLM', label: 'proxy', adminKey: 'sk-1234', scope });
      assert.equal(res.status, 400, scope);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.match(res.body.error.message, /^Validation failed: scope: outbound URL refused: /);
      assert.match(res.body.error.message, reason);
    }
    assert.equal((await o.list()).body.data.length, 0);
  });

  test('when the body is invalid then 400 validation_failed naming the field', async () => {
    const o = await spendOperator(svc);
    for (const [body, field] of [
      [{ provider: 'MISTRAL', label: 'x', adminKey: 'k' }, 'provider'],
      [{ provider: 'ANTHROPIC', label: 'x'.repeat(101), adminKey: 'k' }, 'label'],
      [{ provider: 'ANTHROPIC', label: '  ', adminKey: 'k' }, 'label'],
      [{ provider: 'ANTHROPIC', label: 'x', adminKey: '' }, 'adminKey'],
      [{ provider: 'COPILOT', label: 'x', adminKey: 'k', scope: 'o'.repeat(201) }, 'scope'],
      [{ label: 'x', adminKey: 'k' }, 'provider'],
    ] as const) {
      const res = await o.create(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.error.message, new RegExp(`^Validation failed: ${field}`), JSON.stringify(body));
    }
  });

  test('when the vendor refuses the key then the connection is stored ERROR and 502 vendor_error carries it; a new key makes it ACTIVE', async () => {
    const o = await spendOperator(svc);
    const res = await o.create({ provider: 'ANTHROPIC', label: 'Bad key', adminKey: 'sk-ant-admin01-wrong-9999' });
    assert.equal(res.status, 502);
    assert.equal(res.body.error.code, 'vendor_error');
    assert.equal(res.body.error.message, 'invalid x-api-key');
    const c = res.body.data;
    assert.equal(c.status, 'ERROR');
    assert.equal(c.lastError, 'invalid x-api-key');
    assert.equal(c.keyHint, '9999');
    assert.equal((await o.get(c.id)).body.data.status, 'ERROR');

    const empty = await o.putKey(c.id, '   ');
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.message, 'adminKey is empty');

    const fixed = await o.putKey(c.id, ANTHROPIC_FAKE_KEY);
    assert.equal(fixed.status, 200, fixed.text);
    assert.equal(fixed.body.data.status, 'ACTIVE');
    assert.equal(fixed.body.data.lastError, null);
    assert.equal(fixed.body.data.keyHint, ANTHROPIC_FAKE_KEY.slice(-4));
    const probe = await o.probe(c.id);
    assert.equal(probe.status, 200, probe.text);
    assert.deepEqual(probe.body.data, { ok: true, message: null });
  });

  test('when the vendor refuses a probe then 502 with data {ok:false, message} and the connection turns ERROR', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    anthropic.refuseKey();
    const res = await o.probe(c.id);
    assert.equal(res.status, 502);
    assert.equal(res.body.error.code, 'vendor_error');
    assert.deepEqual(res.body.data, { ok: false, message: 'invalid x-api-key' });
    const after = (await o.get(c.id)).body.data;
    assert.equal(after.status, 'ERROR');
    assert.equal(after.lastError, 'invalid x-api-key');
    anthropic.acceptKey(ANTHROPIC_FAKE_KEY);
    assert.equal((await o.probe(c.id)).status, 200);
    assert.equal((await o.get(c.id)).body.data.lastError, null);
  });

  test('when the key is replaced then pulled usage is kept', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    anthropic.seedDays({ from: '2026-03-01', days: 3 });
    assert.equal((await o.sync(c.id, '?from=2026-03-01&to=2026-03-04')).status, 200);
    const before = await storedRows(svc, c.id);
    assert.ok(before.usage > 0);
    assert.equal((await o.putKey(c.id, 'sk-ant-admin01-other-key-7777')).status, 200);
    assert.deepEqual(await storedRows(svc, c.id), before);
  });

  test('when a connection is deleted then its key is blanked, its pulled rows removed and it is gone (404)', async () => {
    const o = await spendOperator(svc);
    const c = await o.connectAnthropic();
    const keep = await o.connectAnthropic('Other');
    anthropic.seedDays({ from: '2026-03-01', days: 3 });
    await o.sync(c.id, '?from=2026-03-01&to=2026-03-04');
    await o.sync(keep.id, '?from=2026-03-01&to=2026-03-04');
    const pulled = await storedRows(svc, c.id);
    assert.ok(pulled.usage > 0 && pulled.costs > 0 && pulled.actors > 0, JSON.stringify(pulled));
    const res = await o.remove(c.id);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    assert.deepEqual(await storedRows(svc, c.id), { usage: 0, costs: 0, actors: 0 });
    assert.deepEqual(await storedRows(svc, keep.id), pulled, 'the other connection keeps its rows');
    const row = await svc.ctx.db.selectFrom('spend_connections').selectAll().where('id', '=', c.id).executeTakeFirstOrThrow();
    assert.equal(row.admin_key_sealed, null);
    assert.ok(row.deleted_at);
    for (const call of [o.get(c.id), o.probe(c.id), o.sync(c.id), o.putKey(c.id, 'k'), o.remove(c.id)]) assert.equal((await call).status, 404);
    assert.deepEqual((await o.list()).body.data.map((x: { id: string }) => x.id), [keep.id]);
  });

  test("when another account's connection is addressed then 404 on every route", async () => {
    const owner = await spendOperator(svc);
    const c = await owner.connectAnthropic();
    const other = await spendOperator(svc);
    for (const call of [other.get(c.id), other.probe(c.id), other.sync(c.id), other.putKey(c.id, 'k'), other.remove(c.id)]) {
      const res = await call;
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    }
    assert.equal((await other.list()).body.data.length, 0);
    assert.equal((await owner.get(c.id)).body.data.status, 'ACTIVE');
  });

  test('when a tenant key calls then 401 (console JWT only)', async () => {
    const o = await spendOperator(svc);
    const res = await svc.http.get(CONNECTIONS, { auth: o.account.apiKey });
    assert.equal(res.status, 401);
  });
});
