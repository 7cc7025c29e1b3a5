import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type HttpResponse, type TestService } from '../../harness.js';
import { callTool, mcpClient } from '../mcp/mcp-helpers.js';

const STRIPE_KEY = 'sk_test_tallyKeyBudgets000001';
const GATE_FIELDS = ['gate', 'action', 'url', 'poll', 'retry_after'];

/**
 * Per-key budgets (api-contract-agent-v2.md §2) through HTTP: the routes and their refusals, the
 * credit axis at ingestion, the money axis on off-session purchases (Stripe fake on 127.0.0.1),
 * hosted payments counted when paid, the reservation sweep, the gates and MCP getMyBudget. The
 * concurrency cases hold on PostgreSQL too (the budget row lock is the truth there).
 */
describe('per-key budgets', () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  const mcp: Client[] = [];

  const issue = async (ref: string, scopes: string[] = ['read', 'purchase']) => {
    const k = await m.expectOk(m.client('POST', `/customers/${ref}/keys`, { scopes }), 201);
    return { id: k.id as string, key: k.apiKey as string };
  };
  const budgetPath = (ref: string, keyId: string) => `/api/v1/client/customers/${ref}/keys/${keyId}/budget`;
  const put = (ref: string, keyId: string, body: unknown) => svc.http.put(budgetPath(ref, keyId), { auth: acct.apiKey, body });
  const read = async (ref: string, keyId: string, auth = acct.apiKey) => {
    const res = await svc.http.get(budgetPath(ref, keyId), { auth });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };
  const asKey = (key: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    svc.http.request(method, `/api/v1/client${path}`, { auth: key, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });

  function assertGate(res: HttpResponse, code: string, action: string, retryAfter: 'set' | null) {
    assert.equal(res.status, 403, res.text);
    const e = res.body.error;
    assert.equal(e.code, code, res.text);
    for (const f of GATE_FIELDS) assert.ok(f in e, `${f} in ${res.text}`);
    assert.deepEqual([e.gate, e.action, e.url, e.poll], ['budget', action, null, null]);
    if (retryAfter === null) assert.equal(e.retry_after, null);
    else assert.ok(Number.isInteger(e.retry_after) && e.retry_after >= 1, res.text);
    assert.equal(e.detail, `errorId=${e.requestId}`);
  }

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
  });
  after(async () => {
    for (const c of mcp) await c.close();
    await close();
  });

  describe('routes (§2.1–§2.3)', () => {
    let ref: string;
    let other: string;
    let key: { id: string; key: string };
    let sibling: { id: string; key: string };
    let otherKey: { id: string; key: string };

    before(async () => {
      ref = (await m.customer()).customerReferenceId;
      other = (await m.customer()).customerReferenceId;
      key = await issue(ref);
      sibling = await issue(ref, ['read']);
      otherKey = await issue(other);
    });

    test('when a key has no budget then GET answers every field, nulls and zeros', async () => {
      assert.deepEqual(await read(ref, key.id), {
        keyId: key.id, period: null, creditLimit: null, creditsSpent: 0, creditsRemaining: null, amountLimit: null, amountSpent: 0, amountRemaining: null,
        windowStart: null, resetsAt: null, percentUsed: null, alertThreshold: null, alerting: false, alertingSince: null,
      });
    });

    test('when the tenant PUTs a MONTH budget then the window starts now and resets a month later; alertThreshold defaults to 80', async () => {
      const res = await put(ref, key.id, { period: 'MONTH', amountLimit: 10, creditLimit: '100.5' });
      assert.equal(res.status, 200, res.text);
      const now = svc.clock.now();
      const month = new Date(now);
      month.setUTCMonth(month.getUTCMonth() + 1);
      assert.deepEqual(res.body.data, {
        keyId: key.id, period: 'MONTH', creditLimit: 100.5, creditsSpent: 0, creditsRemaining: 100.5, amountLimit: 10, amountSpent: 0, amountRemaining: 10,
        windowStart: now.toISOString(), resetsAt: month.toISOString(), percentUsed: 0, alertThreshold: 80, alerting: false, alertingSince: null,
      });
      assert.deepEqual(await read(ref, key.id), res.body.data);
    });

    test('when a PUT leaves an axis out then it becomes unlimited; alertThreshold 0 turns alerting off', async () => {
      const res = await put(ref, key.id, { period: 'MONTH', amountLimit: 10, alertThreshold: 0 });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.data.creditLimit, res.body.data.creditsRemaining, res.body.data.alertThreshold], [null, null, null]);
    });

    test('when the body is invalid then 400 with the contract messages, and nothing changes', async () => {
      const cases: [unknown, string][] = [
        [{ amountLimit: 5 }, 'Validation failed: period: must not be null'],
        [{ period: 'YEAR' }, 'Invalid value for period: YEAR. Valid values: DAY, WEEK, MONTH, TOTAL'],
        [{ period: 'DAY', creditLimit: -1 }, 'creditLimit must not be negative'],
        [{ period: 'DAY', amountLimit: '-0.01' }, 'amountLimit must not be negative'],
        [{ period: 'DAY', alertThreshold: 100 }, 'alertThreshold must be between 1 and 99, or 0 to never alert'],
        [{ period: 'DAY', alertThreshold: -1 }, 'alertThreshold must be between 1 and 99, or 0 to never alert'],
      ];
      for (const [body, message] of cases) {
        const res = await put(ref, key.id, body);
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.error.code, 'validation_failed');
        assert.equal(res.body.error.message, message);
      }
      assert.equal((await read(ref, key.id)).period, 'MONTH');
    });

    test('when the customer or key does not match then 404 with the original messages', async () => {
      const unknownRef = await put(`nobody-${randomUUID()}`, key.id, { period: 'DAY' });
      assert.equal(unknownRef.status, 404);
      assert.match(unknownRef.body.error.message, /^Customer not found: nobody-/);
      for (const keyId of [otherKey.id, acct.apiKey.slice(0, 8), randomUUID()]) {
        const res = await put(ref, keyId, { period: 'DAY' });
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.error.message, `API key not found: ${keyId}`);
      }
    });

    test('when a customer key reads its own budget then 200; another key of its customer then 403 request_scope; another customer then use_own_reference', async () => {
      assert.equal((await read(ref, key.id, key.key)).period, 'MONTH');
      const sib = await svc.http.get(budgetPath(ref, key.id), { auth: sibling.key });
      assert.equal(sib.status, 403, sib.text);
      assert.equal(sib.body.error.message, 'A customer key may read only its own budget');
      assert.deepEqual([sib.body.error.code, sib.body.error.gate, sib.body.error.action], ['forbidden', 'scope', 'request_scope']);
      const cross = await svc.http.get(budgetPath(other, otherKey.id), { auth: key.key });
      assert.equal(cross.status, 403);
      assert.deepEqual([cross.body.error.code, cross.body.error.action], ['forbidden', 'use_own_reference']);
    });

    test('when a customer key PUTs or DELETEs a budget then 403 Access denied (tenant only)', async () => {
      for (const method of ['PUT', 'DELETE']) {
        const res = await svc.http.request(method, budgetPath(ref, key.id), { auth: key.key, ...(method === 'PUT' ? { body: { period: 'DAY' } } : {}) });
        assert.equal(res.status, 403, res.text);
        assert.deepEqual([res.body.error.code, res.body.error.message, res.body.error.action], ['forbidden', 'Access denied', 'request_scope']);
      }
    });

    test('when the console uses the admin twin by customer id then it sets, reads and clears the same budget', async () => {
      const customers = await m.expectOk(m.admin('GET', '/customers'));
      const customerId = customers.find((c: { customerReferenceId: string }) => c.customerReferenceId === ref).id;
      const admin = (method: string, body?: unknown) => svc.http.request(method, `/api/v1/tanso/customers/${customerId}/keys/${sibling.id}/budget`, { auth: acct.token, ...(body ? { body } : {}) });
      const set = await admin('PUT', { period: 'WEEK', creditLimit: 3 });
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body.data, await read(ref, sibling.id), 'the same Budget object as the Client API');
      assert.equal((await read(ref, sibling.id)).period, 'WEEK');
      assert.equal((await admin('GET')).body.data.creditLimit, 3);
      const invalid = await admin('PUT', { period: 'YEAR' });
      assert.deepEqual([invalid.status, invalid.body.error.message], [400, 'Invalid value for period: YEAR. Valid values: DAY, WEEK, MONTH, TOTAL']);
      const foreignKey = await svc.http.request('GET', `/api/v1/tanso/customers/${customerId}/keys/${otherKey.id}/budget`, { auth: acct.token });
      assert.deepEqual([foreignKey.status, foreignKey.body.error.message], [404, `API key not found: ${otherKey.id}`]);
      assert.equal((await admin('DELETE')).status, 200);
      assert.equal((await read(ref, sibling.id)).period, null);
      assert.equal((await admin('DELETE')).status, 200, 'DELETE without a budget is 200');
    });

    test('when a key is rotated or revoked then its budget can still be read and changed; its replacement starts without one', async () => {
      const k = await issue(ref);
      assert.equal((await put(ref, k.id, { period: 'DAY', amountLimit: 1 })).status, 200);
      const rotated = await m.expectOk(m.client('POST', `/customers/${ref}/keys/${k.id}/rotate`));
      assert.equal((await read(ref, k.id)).amountLimit, 1);
      assert.equal((await put(ref, k.id, { period: 'DAY', amountLimit: 2 })).status, 200);
      assert.equal((await read(ref, rotated.id)).period, null);
      // Revoked (here through the console's twin, by customer id): the row stays, readable and changeable.
      assert.equal((await put(ref, rotated.id, { period: 'WEEK', creditLimit: 4 })).status, 200);
      const customerId = (await m.expectOk(m.admin('GET', '/customers'))).find((c: { customerReferenceId: string }) => c.customerReferenceId === ref).id;
      const twin = `/api/v1/tanso/customers/${customerId}/keys/${rotated.id}`;
      assert.equal((await svc.http.delete(twin, { auth: acct.token })).status, 200);
      assert.deepEqual([(await read(ref, rotated.id)).period, (await read(ref, rotated.id)).creditLimit], ['WEEK', 4]);
      const changed = await svc.http.put(`${twin}/budget`, { auth: acct.token, body: { period: 'WEEK', creditLimit: 5 } });
      assert.deepEqual([changed.status, changed.body.data.creditLimit], [200, 5]);
    });
  });

  describe('credits axis at ingestion (§2.5, §2.6)', () => {
    test('when 20 events of 1 credit race against a credit budget of 5 then exactly 5 are stored, 15 get 403 wait, and the ledger audit is clean', async () => {
      const w = await m.wallet(1000, false, 0.5);
      const k = await issue(w.ref);
      assert.equal((await put(w.ref, k.id, { period: 'DAY', creditLimit: 5 })).status, 200);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => asKey(k.key, 'POST', '/events', { eventName: 'chat', featureKey: w.featureKey, usageUnits: 1, eventIdempotencyKey: `race-${i}` })));
      const stored = results.filter((r) => r.status === 201 || r.status === 200);
      const refused = results.filter((r) => r.status === 403);
      assert.equal(stored.length, 5, results.map((r) => r.status).join(','));
      assert.equal(refused.length, 15);
      for (const r of refused) assertGate(r, 'budget_exceeded', 'wait', 'set');
      assert.match(refused[0]!.body.error.message, /^This API key's credit budget of 5 would be exceeded: 5 already used, 1 requested, window resets at /);
      const b = await read(w.ref, k.id);
      assert.deepEqual([b.creditsSpent, b.creditsRemaining, b.percentUsed, b.alerting], [5, 0, 100, true]);
      const pool = await m.expectOk(m.client('GET', `/credits/${w.ref}/pools/${w.poolId}`));
      assert.equal(pool.balance, 995, 'only the stored events drew');
      await m.audit();
    });

    test('when one draw is larger than the whole credit limit then 403 budget_exceeded raise_spend_cap; the tenant key and a batch are judged by their own key', async () => {
      const w = await m.wallet(1000, false, 0.5);
      const k = await issue(w.ref);
      assert.equal((await put(w.ref, k.id, { period: 'TOTAL', creditLimit: 3 })).status, 200);
      assertGate(await asKey(k.key, 'POST', '/events', { eventName: 'chat', featureKey: w.featureKey, usageUnits: 4 }), 'budget_exceeded', 'raise_spend_cap', null);
      // The tenant key has no budget: its events are not counted against the customer's key.
      assert.equal((await m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 10 })).status, 201);
      const batch = await asKey(k.key, 'POST', '/events/batch', { events: [1, 1, 1, 1].map((u, i) => ({ eventName: 'chat', featureKey: w.featureKey, usageUnits: u, eventIdempotencyKey: `b-${i}` })) });
      assert.equal(batch.status, 200, batch.text);
      assert.deepEqual(batch.body.data.results.map((r: any) => r.status), ['stored', 'stored', 'stored', 'refused']);
      assert.equal(batch.body.data.results[3].error.code, 'budget_exceeded');
      const b = await read(w.ref, k.id);
      assert.deepEqual([b.creditsSpent, b.resetsAt, b.percentUsed], [3, null, 100]);
      await m.audit();
    });

    test('when the window resets then the key may draw again (retry_after is honest)', async () => {
      const w = await m.wallet(1000, false, 0.5);
      const k = await issue(w.ref);
      assert.equal((await put(w.ref, k.id, { period: 'DAY', creditLimit: 1 })).status, 200);
      assert.equal((await asKey(k.key, 'POST', '/events', { eventName: 'chat', featureKey: w.featureKey, usageUnits: 1 })).status, 201);
      const refused = await asKey(k.key, 'POST', '/events', { eventName: 'chat', featureKey: w.featureKey, usageUnits: 1 });
      assertGate(refused, 'budget_exceeded', 'wait', 'set');
      assert.equal(refused.body.error.retry_after, 86_400);
      svc.clock.advanceMs(refused.body.error.retry_after * 1000);
      assert.equal((await asKey(k.key, 'POST', '/events', { eventName: 'chat', featureKey: w.featureKey, usageUnits: 1 })).status, 201);
      assert.equal((await read(w.ref, k.id)).creditsSpent, 1);
    });
  });

  describe('money axis on credit purchases (§2.5, §2.6)', () => {
    let poolId: string;
    let ref: string;

    before(async () => {
      await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
      await m.creditModel({ denomination: 'money-credits' });
      const customer = await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: `buyer-${randomUUID()}`, email: 'buyer@example.com' }), 201);
      ref = customer.customerReferenceId;
      poolId = (await m.expectOk(m.admin('POST', '/credits/pools', { name: 'wallet', denomination: 'money-credits', customerId: customer.id }), 201)).id;
      await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'money-credits', pricePerCredit: '0.01' }] }), 201);
      svc.clock.advanceMs(2000);
    });

    const buy = (key: string, credits: number, extra: Record<string, unknown> = { paymentMethodId: 'pm_card_visa' }, headers?: Record<string, string>) =>
      asKey(key, 'POST', '/credits/purchases', { creditPoolId: poolId, credits, ...extra }, headers);
    const charges = () => fake.list(STRIPE_KEY, 'payment_intent').filter((p) => p.status === 'succeeded').length;

    test('when 20 purchases of 2.00 race against 10.00 left then exactly 5 succeed, 15 get 403, the processor sees 5 and amountSpent is 10.00', async () => {
      const k = await issue(ref);
      assert.equal((await put(ref, k.id, { period: 'MONTH', amountLimit: 10 })).status, 200);
      const before = charges();
      const results = await Promise.all(Array.from({ length: 20 }, () => buy(k.key, 200)));
      // Any other answer is named with its body (a 409 once in CI's pooled run).
      const others = results.filter((r) => r.status !== 201 && r.status !== 403).map((r) => r.text);
      assert.equal(results.filter((r) => r.status === 201).length, 5, `${results.map((r) => `${r.status}`).join(',')} ${others.join(' | ')}`);
      const refused = results.filter((r) => r.status === 403);
      assert.equal(refused.length, 15);
      for (const r of refused) assertGate(r, 'budget_exceeded', 'wait', 'set');
      assert.equal(charges() - before, 5, 'the processor saw exactly 5 charges');
      const b = await read(ref, k.id);
      assert.deepEqual([b.amountSpent, b.amountRemaining, b.percentUsed], [10, 0, 100]);
      await m.audit();
    });

    test('when one charge is above the whole money budget then 403 spend_cap_exceeded raise_spend_cap, before any processor call', async () => {
      const k = await issue(ref);
      assert.equal((await put(ref, k.id, { period: 'DAY', amountLimit: 1 })).status, 200);
      const calls = fake.requests.length;
      const res = await buy(k.key, 150);
      assertGate(res, 'spend_cap_exceeded', 'raise_spend_cap', null);
      assert.equal(res.body.error.message, "This charge (1.5) is above this API key's whole spend budget of 1; ask the operator to raise the budget or buy less");
      assert.equal(fake.requests.length, calls);
    });

    test('when a gated purchase is retried with the same Idempotency-Key after the window reset then it runs again (§1.4) and a stored 2xx replays without counting twice', async () => {
      const k = await issue(ref);
      assert.equal((await put(ref, k.id, { period: 'DAY', amountLimit: 2 })).status, 200);
      assert.equal((await buy(k.key, 200)).status, 201);
      const headers = { 'Idempotency-Key': `gate-${randomUUID()}` };
      const gated = await buy(k.key, 200, undefined, headers);
      assertGate(gated, 'budget_exceeded', 'wait', 'set');
      svc.clock.advanceMs(gated.body.error.retry_after * 1000);
      const retried = await buy(k.key, 200, undefined, headers);
      assert.equal(retried.status, 201, retried.text);
      const replay = await buy(k.key, 200, undefined, headers);
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal((await read(ref, k.id)).amountSpent, 2, 'the replay counted nothing');
    });

    test('when the card is declined then the reservation is given back; a hosted page is not refused and counts when paid', async () => {
      const k = await issue(ref);
      assert.equal((await put(ref, k.id, { period: 'DAY', amountLimit: 3 })).status, 200);
      const declined = await buy(k.key, 200, { paymentMethodId: 'pm_card_chargeDeclined' });
      assert.equal(declined.status, 402, declined.text);
      assert.equal((await read(ref, k.id)).amountSpent, 0, 'a declined charge spends nothing');
      // The hosted page of that decline: paid by a human, it counts now.
      const [session] = fake.list(STRIPE_KEY, 'checkout.session').slice(-1);
      fake.completeCheckout(STRIPE_KEY, session!.id);
      await fake.deliverWebhooks();
      assert.equal((await read(ref, k.id)).amountSpent, 2);
      // Above what is left, hosted: not refused by the key budget; counted when paid (remaining 0).
      const hosted = await asKey(k.key, 'POST', '/credits/purchases', { creditPoolId: poolId, credits: 250 });
      assert.equal(hosted.status, 402, hosted.text);
      assert.equal(hosted.body.error.action, 'complete_checkout');
      const [page] = fake.list(STRIPE_KEY, 'checkout.session').slice(-1);
      fake.completeCheckout(STRIPE_KEY, page!.id);
      await fake.deliverWebhooks();
      await fake.deliverWebhooks();
      const b = await read(ref, k.id);
      assert.deepEqual([b.amountSpent, b.amountRemaining], [4.5, 0]);
      await m.audit();
    });

    test('when the processor fails mid-charge then the reservation stays until the sweep gives it back after 15 minutes', async () => {
      const k = await issue(ref);
      assert.equal((await put(ref, k.id, { period: 'MONTH', amountLimit: 5 })).status, 200);
      fake.failNext({ method: 'POST', path: '/v1/payment_intents' }, { status: 500 });
      assert.equal((await buy(k.key, 300)).status, 502);
      assert.equal((await read(ref, k.id)).amountSpent, 3, 'an unknown outcome still counts');
      await svc.scheduler.run('spend-reservation-sweep');
      assert.equal((await read(ref, k.id)).amountSpent, 3, 'younger than 15 minutes: kept');
      svc.clock.advanceMs(16 * 60 * 1000);
      assert.equal((await svc.scheduler.run('spend-reservation-sweep')).status, 'ran');
      assert.equal((await read(ref, k.id)).amountSpent, 0);
    });

    test('when an MCP SDK client with a customer key lists tools then getMyBudget is there and reads its own budget; a tenant key gets invalid_request', async () => {
      const k = await issue(ref, ['read']);
      assert.equal((await put(ref, k.id, { period: 'WEEK', amountLimit: 7 })).status, 200);
      const client = await mcpClient(svc, k.key);
      mcp.push(client);
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('getMyBudget'), names.join(','));
      assert.equal(names.length, 7);
      const own = await callTool(client, 'getMyBudget');
      assert.equal(own.isError, false, own.text);
      assert.deepEqual(own.json, await read(ref, k.id));
      const tenant = await mcpClient(svc, acct.apiKey);
      mcp.push(tenant);
      const refused = await callTool(tenant, 'getMyBudget');
      assert.equal(refused.isError, true);
      assert.equal(refused.json.error.code, 'invalid_request');
      assert.equal(refused.json.error.message, 'getMyBudget needs a customer key; tenant keys have no budget');
    });
  });
});
