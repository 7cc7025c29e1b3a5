import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startSecondNode, startTestService, type TestService } from '../../harness.js';

/** Both nodes keep cached rows for a minute, so only a read of the database explains a change being seen. */
const LONG_TTL = { APP_CACHE_TTL_MS: '60000' };

/**
 * A key budget set or cleared on one node binds the next spend on every node at once (ADR 0043): the
 * ingestion path reads the key's budget row under its lock in the group's transaction, never a
 * per-node flag. Node B is made deaf to cache notifications (as a half-open listening connection
 * would leave it, ADR 0013) so that a node-memory answer could not be rescued by a fast notification.
 */
describe('per-key budgets across two nodes on one PostgreSQL', { skip: backend !== 'postgres' && 'PostgreSQL only (PGlite is one process)' }, () => {
  let a: TestService;
  let b: TestService;
  let m: ReturnType<typeof monetization>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let restore: () => void;

  before(async () => {
    a = await startTestService({ env: LONG_TTL });
    b = await startSecondNode(a, { env: LONG_TTL });
    acct = await createTestAccount(a);
    m = monetization(a, acct);
    const cache = b.ctx.cache;
    const invalidate = cache.invalidate.bind(cache);
    cache.invalidate = () => undefined;
    restore = () => (cache.invalidate = invalidate);
  });
  after(async () => {
    restore?.();
    await b?.close();
    await a?.close();
  });

  const event = (node: TestService, key: string, featureKey: string, path = '/events') =>
    node.http.post(`/api/v1/client${path}`, {
      auth: key,
      body: path === '/events' ? { eventName: 'chat', featureKey, usageUnits: 1 } : { events: [{ eventName: 'chat', featureKey, usageUnits: 1 }] },
    });
  const budget = (ref: string, keyId: string) => `/api/v1/client/customers/${ref}/keys/${keyId}/budget`;

  test('when a budget is set on node A then the very next event of the key on node B is judged by it; cleared on A, B lets it through at once', async () => {
    const w = await m.wallet(1000, false, 0.5);
    const issued = await m.expectOk(m.client('POST', `/customers/${w.ref}/keys`, { scopes: ['read'] }), 201);
    // Node B has served the key (no budget yet) on its hot path: its memory holds the key and the context.
    for (let i = 0; i < 3; i++) assert.equal((await event(b, issued.apiKey, w.featureKey)).status, 201);

    const set = await a.http.put(budget(w.ref, issued.id), { auth: acct.apiKey, body: { period: 'DAY', creditLimit: 1 } });
    assert.equal(set.status, 200, set.text);
    assert.equal((await event(b, issued.apiKey, w.featureKey)).status, 201, 'the first credit fits the new window');
    const refused = await event(b, issued.apiKey, w.featureKey);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'budget_exceeded');
    const batch = await event(b, issued.apiKey, w.featureKey, '/events/batch');
    assert.equal(batch.status, 200, batch.text);
    assert.equal(batch.body.data.results[0].error.code, 'budget_exceeded', 'the batch path too');

    assert.equal((await a.http.delete(budget(w.ref, issued.id), { auth: acct.apiKey })).status, 200);
    assert.equal((await event(b, issued.apiKey, w.featureKey)).status, 201, 'no budget any more: stored at once on B');

    assert.equal((await a.http.put(budget(w.ref, issued.id), { auth: acct.apiKey, body: { period: 'TOTAL', creditLimit: 0 } })).status, 200);
    const zero = await event(b, issued.apiKey, w.featureKey);
    assert.equal(zero.status, 403, zero.text);
    assert.equal(zero.body.error.action, 'raise_spend_cap');
    const read = await b.http.get(budget(w.ref, issued.id), { auth: acct.apiKey });
    assert.deepEqual([read.body.data.period, read.body.data.creditsSpent], ['TOTAL', 0]);
    await m.audit();
  });
});
