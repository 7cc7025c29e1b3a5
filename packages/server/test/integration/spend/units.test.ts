import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

const PERSON_OFF = 'Person-level attribution is off for this account. Turn it on under Spend settings (after telling staff) to add people.';

describe('spend units and attribution rules (contract §7.4)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  async function operator() {
    const account = await createTestAccount(svc);
    const call = (method: string, path: string, body?: unknown) => svc.http.request(method, `/api/v1/spend${path}`, { auth: account.token, ...(body === undefined ? {} : { body }) });
    const unit = async (body: Record<string, unknown>) => {
      const res = await call('POST', '/units', body);
      assert.equal(res.status, 201, res.text);
      return res.body.data;
    };
    return { account, call, unit };
  }

  test('create, list by name, replace, and the unit object', async () => {
    const { call, unit } = await operator();
    const eng = await unit({ type: 'TEAM', name: '  Engineering ' });
    assert.deepEqual(Object.keys(eng).sort(), ['createdAt', 'email', 'featureId', 'githubLogin', 'id', 'name', 'parentId', 'type']);
    assert.equal(eng.name, 'Engineering');
    const api = await unit({ type: 'PROJECT', name: 'API', parentId: eng.id });
    assert.equal(api.parentId, eng.id);
    const list = await call('GET', '/units');
    assert.deepEqual(list.body.data.map((u: { name: string }) => u.name), ['API', 'Engineering']);
    const put = await call('PUT', `/units/${api.id}`, { type: 'PROJECT', name: 'Public API' });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.data.name, 'Public API');
    assert.equal(put.body.data.parentId, null, 'PUT is a full replace: no parentId clears the parent');
  });

  test('a PROJECT links a feature of this account; PERSON fields and features are refused elsewhere', async () => {
    const { account, call, unit } = await operator();
    const feature = await monetization(svc, account).feature();
    const project = await unit({ type: 'PROJECT', name: 'Chat', featureId: feature.id });
    assert.equal(project.featureId, feature.id);
    const cleared = await call('PUT', `/units/${project.id}`, { type: 'PROJECT', name: 'Chat', featureId: null });
    assert.equal(cleared.body.data.featureId, null);
    const foreign = await monetization(svc, await createTestAccount(svc)).feature();
    const res = await call('POST', '/units', { type: 'PROJECT', name: 'X', featureId: foreign.id });
    assert.equal(res.status, 404, res.text);
    const team = await call('POST', '/units', { type: 'TEAM', name: 'T', featureId: feature.id });
    assert.equal(team.status, 400);
    assert.equal(team.body.error.code, 'validation_failed');
    const mail = await call('POST', '/units', { type: 'TEAM', name: 'T', email: 'a@b.c' });
    assert.equal(mail.status, 400);
    assert.equal((await call('GET', '/units')).body.data.length, 1, 'refused requests wrote nothing');
  });

  test('name rules: required and at most 120 characters after trimming', async () => {
    const { call } = await operator();
    for (const name of ['', '   ', 'x'.repeat(121)]) {
      const res = await call('POST', '/units', { type: 'TEAM', name });
      assert.equal(res.status, 400, name);
      assert.equal(res.body.error.code, 'validation_failed');
    }
    assert.equal((await call('POST', '/units', { type: 'TEAM', name: ` ${'x'.repeat(120)} ` })).status, 201);
    assert.equal((await call('POST', '/units', { type: 'SQUAD', name: 'x' })).status, 400);
  });

  test('PERSON units only with person-level attribution on', async () => {
    const { call, unit } = await operator();
    const refused = await call('POST', '/units', { type: 'PERSON', name: 'Ada', email: 'Ada@Example.com' });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.message, PERSON_OFF);
    const on = await call('PUT', '/settings', { workerNotice: 'Spend on AI tools is attributed to you by name.', personLevelEnabled: true });
    assert.equal(on.status, 200, on.text);
    const ada = await unit({ type: 'PERSON', name: 'Ada', email: 'Ada@Example.com', githubLogin: 'ada' });
    assert.equal(ada.email, 'ada@example.com');
    assert.equal(ada.githubLogin, 'ada');
  });

  test('parent rules: self, loops, and unknown parents', async () => {
    const { call, unit } = await operator();
    const a = await unit({ type: 'TEAM', name: 'A' });
    const b = await unit({ type: 'TEAM', name: 'B', parentId: a.id });
    const c = await unit({ type: 'TEAM', name: 'C', parentId: b.id });
    const self = await call('PUT', `/units/${a.id}`, { type: 'TEAM', name: 'A', parentId: a.id });
    assert.equal(self.status, 400);
    assert.equal(self.body.error.message, 'A unit cannot be its own parent');
    const loop = await call('PUT', `/units/${a.id}`, { type: 'TEAM', name: 'A', parentId: c.id });
    assert.equal(loop.status, 400);
    assert.equal(loop.body.error.message, 'That would make A an ancestor of itself');
    const unknown = await call('POST', '/units', { type: 'TEAM', name: 'D', parentId: '018f0000-0000-7000-8000-000000000000' });
    assert.equal(unknown.status, 404);
    // Moving C under A (not a loop) is fine.
    assert.equal((await call('PUT', `/units/${c.id}`, { type: 'TEAM', name: 'C', parentId: a.id })).status, 200);
  });

  test('two concurrent parent moves cannot make a loop together', async () => {
    const { call, unit } = await operator();
    for (let round = 0; round < 5; round += 1) {
      const x = await unit({ type: 'TEAM', name: `X${round}` });
      const y = await unit({ type: 'TEAM', name: `Y${round}` });
      const [r1, r2] = await Promise.all([
        call('PUT', `/units/${x.id}`, { type: 'TEAM', name: `X${round}`, parentId: y.id }),
        call('PUT', `/units/${y.id}`, { type: 'TEAM', name: `Y${round}`, parentId: x.id }),
      ]);
      assert.deepEqual([r1.status, r2.status].sort(), [200, 400], `round ${round}: exactly one move wins`);
    }
  });

  test('delete moves children up to the parent and removes the unit\'s rules', async () => {
    const { call, unit } = await operator();
    const root = await unit({ type: 'TEAM', name: 'Root' });
    const mid = await unit({ type: 'TEAM', name: 'Mid', parentId: root.id });
    const leaf = await unit({ type: 'PROJECT', name: 'Leaf', parentId: mid.id });
    const rule = await call('POST', '/rules', { spendUnitId: mid.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'wrkspc_1' });
    assert.equal(rule.status, 201, rule.text);
    assert.equal((await call('DELETE', `/units/${mid.id}`)).status, 200);
    const units = (await call('GET', '/units')).body.data;
    assert.equal(units.find((u: { id: string }) => u.id === leaf.id).parentId, root.id);
    assert.equal((await call('GET', '/rules')).body.data.length, 0);
    assert.equal((await call('DELETE', `/units/${mid.id}`)).status, 404);
  });

  test('rules: default priority, order, trimming, duplicates, unknown unit, delete', async () => {
    const { call, unit } = await operator();
    const team = await unit({ type: 'TEAM', name: 'Backend' });
    const first = await call('POST', '/rules', { spendUnitId: team.id, provider: 'OPENAI', matchKind: 'API_KEY_ID', matchValue: '  key_1 ' });
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(first.body.data, { id: first.body.data.id, spendUnitId: team.id, provider: 'OPENAI', matchKind: 'API_KEY_ID', matchValue: 'key_1', priority: 100 });
    const urgent = await call('POST', '/rules', { spendUnitId: team.id, provider: 'LITELLM', matchKind: 'ACTOR', matchValue: 'ops@acme.example', priority: 5 });
    const later = await call('POST', '/rules', { spendUnitId: team.id, provider: 'CURSOR', matchKind: 'ACTOR', matchValue: 'dev@acme.example' });
    const list = (await call('GET', '/rules')).body.data.map((r: { id: string }) => r.id);
    assert.deepEqual(list, [urgent.body.data.id, first.body.data.id, later.body.data.id]);
    const dup = await call('POST', '/rules', { spendUnitId: team.id, provider: 'OPENAI', matchKind: 'API_KEY_ID', matchValue: 'key_1' });
    assert.equal(dup.status, 400);
    assert.equal(dup.body.error.message, 'That rule already exists on Backend');
    // Exact comparison: a different case is a different value.
    assert.equal((await call('POST', '/rules', { spendUnitId: team.id, provider: 'OPENAI', matchKind: 'API_KEY_ID', matchValue: 'KEY_1' })).status, 201);
    for (const bad of [{ matchValue: '   ' }, { matchValue: 'x'.repeat(256) }, { provider: 'AZURE' }, { matchKind: 'TEAM' }, { priority: 1.5 }]) {
      const res = await call('POST', '/rules', { spendUnitId: team.id, provider: 'OPENAI', matchKind: 'ACTOR', matchValue: 'v', ...bad });
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.equal(res.body.error.code, 'validation_failed');
    }
    assert.equal((await call('POST', '/rules', { spendUnitId: '018f0000-0000-7000-8000-000000000000', provider: 'OPENAI', matchKind: 'ACTOR', matchValue: 'v' })).status, 404);
    assert.equal((await call('DELETE', `/rules/${first.body.data.id}`)).status, 200);
    assert.equal((await call('DELETE', `/rules/${first.body.data.id}`)).status, 404);
  });

  test('account scoped: another account sees none of it and gets 404 on its ids', async () => {
    const { call, unit } = await operator();
    const mine = await unit({ type: 'TEAM', name: 'Mine' });
    const other = await operator();
    assert.deepEqual((await other.call('GET', '/units')).body.data, []);
    assert.equal((await other.call('PUT', `/units/${mine.id}`, { type: 'TEAM', name: 'Hijack' })).status, 404);
    assert.equal((await other.call('DELETE', `/units/${mine.id}`)).status, 404);
    assert.equal((await other.call('POST', '/rules', { spendUnitId: mine.id, provider: 'OPENAI', matchKind: 'ACTOR', matchValue: 'v' })).status, 404);
    assert.equal((await other.call('POST', '/units', { type: 'TEAM', name: 'Child', parentId: mine.id })).status, 404);
    assert.equal((await call('GET', '/units')).body.data.length, 1);
  });
});
