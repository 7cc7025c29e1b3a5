import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { snapshotTables } from '../../snapshot.js';

const TABLES = ['credit_models', 'plan_credit_allocations', 'credit_pools', 'credit_pool_links', 'credit_grants', 'credit_transactions', 'credit_transaction_draws', 'credit_weights', 'credit_prices'] as const;

/** Numeric bounds of credit inputs (credits README, "Bounds"): 1e12 credits per request at 6 dp. */
describe('numeric bounds on credit amounts', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let token: string;
  const ids: Record<string, string> = {};

  before(async () => {
    svc = await startTestService();
    const account = await createTestAccount(svc);
    token = account.token;
    m = monetization(svc, account);
    const model = await m.creditModel({ denomination: 'cr' });
    const feature = await m.feature();
    const plan = await m.activePlan({ features: [{ id: feature.id }] });
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'p', denomination: 'cr' }), 201);
    await m.customer('c');
    const sub = await m.subscribe('c', plan.id);
    Object.assign(ids, { model: model.id, plan: plan.id, pool: pool.id, sub: sub.subscription.id, feature: feature.id });
  });
  after(() => svc.close());

  /** Every row of the tables, so an update is caught as well as an insert. */
  const counts = () => snapshotTables(svc, TABLES);

  const post = (path: string, text: string) =>
    svc.http.post(`/api/v1/monetization${path}`, { rawBody: text, auth: token, headers: { 'content-type': 'application/json' } });

  test('when a credit amount is beyond its bound then 400 validation_failed names the field and no credit row changes', async () => {
    const grant = (amount: string, extra = '') => post('/credits/grants', `{"creditPoolId":"${ids.pool}","grantType":"MANUAL","amount":${amount}${extra}}`);
    const deduct = (amount: string) => post('/credits/deductions', `{"creditPoolId":"${ids.pool}","amount":${amount}}`);
    const cases: [string, () => Promise<{ status: number; body: any; text: string }>, string][] = [
      ['grant just over 1e12', () => grant('1000000000000.000001'), 'amount'],
      ['grant 1e309', () => grant('1e309'), 'amount'],
      ['grant -1e309', () => grant('-1e309'), 'amount'],
      ['grant negative', () => grant('-5'), 'amount'],
      ['grant 30 digits', () => grant('123456789012345678901234567890'), 'amount'],
      ['grant unitPrice 1e309', () => grant('1', ',"unitPrice":1e309,"currency":"USD"'), 'unitPrice'],
      ['deduction 1e21', () => deduct('1e21'), 'amount'],
      ['deduction -1', () => deduct('-1'), 'amount'],
      ['deduction NaN string', () => deduct('"NaN"'), 'amount'],
      ['model rolloverCap over max', () => post('/credits/models', '{"name":"m2","denomination":"d2","rolloverPolicy":"CAPPED","rolloverCap":1e13}'), 'rolloverCap'],
      ['pool rolloverCap negative', () => post('/credits/pools', '{"name":"p2","denomination":"cr","rolloverCap":-1}'), 'rolloverCap'],
      ['allocation over max', () => post(`/credits/models/${ids.model}/plans/${ids.plan}?creditAmount=1e13`, ''), 'creditAmount'],
      ['allocation zero', () => post(`/credits/models/${ids.model}/plans/${ids.plan}?creditAmount=0`, ''), 'creditAmount'],
      ['link drawLimit over max', () => post(`/credits/pools/${ids.pool}/subscriptions/${ids.sub}?drawLimit=1000000000001`, ''), 'drawLimit'],
      ['link drawPriority over max', () => post(`/credits/pools/${ids.pool}/subscriptions/${ids.sub}?drawPriority=1001`, ''), 'drawPriority'],
      ['allocation hardLimit=yes', () => post(`/credits/models/${ids.model}/plans/${ids.plan}?creditAmount=1&hardLimit=yes`, ''), 'hardLimit'],
    ];
    const before = await counts();
    for (const [label, send, field] of cases) {
      const res = await send();
      assert.equal(res.status, 400, `${label}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed', label);
      assert.ok(
        res.body.error.fields?.some((f: { field: string }) => f.field === field) || res.body.error.message.includes(field),
        `${label} names ${field}: ${res.text}`,
      );
    }
    assert.deepEqual(await counts(), before, 'no refused request wrote anything');
  });

  test('when credit amounts sit at their bounds then they are accepted and the ledger adds up', async () => {
    const res = await post('/credits/grants', `{"creditPoolId":"${ids.pool}","grantType":"MANUAL","amount":1000000000000}`);
    assert.equal(res.status, 201, res.text);
    const tiny = await post('/credits/deductions', `{"creditPoolId":"${ids.pool}","amount":0.000001}`);
    assert.equal(tiny.status, 200, tiny.text);
    const link = await post(`/credits/pools/${ids.pool}/subscriptions/${ids.sub}?drawLimit=1000000000000&drawPriority=1000`, '');
    assert.equal(link.status, 201, link.text);
    const alloc = await post(`/credits/models/${ids.model}/plans/${ids.plan}?creditAmount=1000000000000&hardLimit=true`, '');
    assert.equal(alloc.status, 201, alloc.text);
    assert.equal(alloc.body.data.hardLimit, true);

    assert.equal(String((await svc.ctx.db.selectFrom('credit_pools').select('balance').where('id', '=', ids.pool!).executeTakeFirstOrThrow()).balance), '999999999999.999999');
    await m.audit();
  });
});
