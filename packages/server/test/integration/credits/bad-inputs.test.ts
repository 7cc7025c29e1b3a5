import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { snapshotTables } from '../../snapshot.js';

const TABLES = ['credit_models', 'plan_credit_allocations', 'credit_pools', 'credit_pool_links', 'credit_grants', 'credit_transactions', 'credit_transaction_draws'] as const;
const MISSING = '00000000-0000-7000-8000-000000000000';

describe('bad inputs on credit routes: 4xx in the envelope, nothing written', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  const ids: Record<string, string> = {};

  before(async () => {
    svc = await startTestService();
    m = monetization(svc, await createTestAccount(svc));
    const other = monetization(svc, await createTestAccount(svc));
    const model = await m.creditModel({ denomination: 'bad' });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'bad-plan', name: 'Bad plan' }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=5`), 201);
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'bad-pool', denomination: 'bad' }), 201);
    const grant = await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 3, grantType: 'MANUAL' }), 201);
    const tx = (await m.expectOk(m.admin('GET', `/credits/pools/${pool.id}/transactions`)))[0];
    const theirModel = await other.creditModel({ denomination: 'theirs' });
    const theirPool = await other.expectOk(other.admin('POST', '/credits/pools', { name: 'their-pool', denomination: 'theirs' }), 201);
    await m.customer('cred-me');
    Object.assign(ids, { model: model.id, plan: plan.id, pool: pool.id, grant: grant.id, tx: tx.id, theirModel: theirModel.id, theirPool: theirPool.id });
  });
  after(() => svc.close());

  const snapshot = () => snapshotTables(svc, TABLES);

  test('every bad request is refused with its status and code, and no credit row changes', async () => {
    const cases: [string, string, unknown, 'admin' | 'client', number, string][] = [
      ['POST', '/credits/models', { name: 'x' }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/models', { name: 'x', denomination: 'bad' }, 'admin', 409, 'conflict'],
      ['POST', '/credits/models', { name: 'x', denomination: 'y', rolloverPolicy: 'SOME' }, 'admin', 400, 'validation_failed'],
      ['GET', '/credits/models/{theirModel}', undefined, 'admin', 404, 'not_found'],
      ['POST', '/credits/models/{model}/plans/{plan}', undefined, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/models/{model}/plans/{plan}?creditAmount=5', undefined, 'admin', 409, 'conflict'],
      ['POST', '/credits/models/{model}/plans/{plan}?creditAmount=1.1234567', undefined, 'admin', 400, 'validation_failed'],
      ['POST', `/credits/models/{theirModel}/plans/{plan}?creditAmount=5`, undefined, 'admin', 404, 'not_found'],
      ['POST', `/credits/models/{model}/plans/${MISSING}?creditAmount=5`, undefined, 'admin', 404, 'not_found'],
      ['POST', '/credits/pools', { name: 'p', denomination: 'nope' }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/pools', { name: 'bad-pool', denomination: 'bad' }, 'admin', 409, 'conflict'],
      ['POST', '/credits/pools', { name: 'p2', denomination: 'bad', customerId: MISSING }, 'admin', 404, 'not_found'],
      ['GET', '/credits/pools/{theirPool}', undefined, 'admin', 404, 'not_found'],
      ['POST', `/credits/pools/{pool}/subscriptions/${MISSING}`, undefined, 'admin', 404, 'not_found'],
      ['POST', '/credits/grants', { creditPoolId: '{pool}', amount: 0, grantType: 'MANUAL' }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/grants', { creditPoolId: '{pool}', amount: 1.0000001, grantType: 'MANUAL' }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/grants', { creditPoolId: '{pool}', amount: 1, grantType: 'FREE' }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/grants', { creditPoolId: '{pool}', amount: 1, grantType: 'PURCHASED', unitPrice: -1 }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/grants', { creditPoolId: '{pool}', amount: 1, grantType: 'PURCHASED', unitPrice: 1000001 }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/grants', { creditPoolId: '{pool}', amount: 1, grantType: 'PURCHASED', unitPrice: 0.0000001 }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/grants', { creditPoolId: '{theirPool}', amount: 1, grantType: 'MANUAL' }, 'admin', 404, 'not_found'],
      ['POST', '/credits/grants', { creditPoolId: '{pool}', amount: 1, grantType: 'MANUAL', subscriptionId: MISSING }, 'admin', 404, 'not_found'],
      ['POST', '/credits/deductions', { creditPoolId: '{pool}', amount: 4 }, 'admin', 409, 'insufficient_credits'],
      ['POST', '/credits/deductions', { creditPoolId: '{pool}', amount: -1 }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/deductions', { creditPoolId: '{theirPool}', amount: 1 }, 'admin', 404, 'not_found'],
      ['POST', `/credits/transactions/${MISSING}/reverse`, undefined, 'admin', 404, 'not_found'],
      ['GET', '/credits/cred-me/pools/{pool}', undefined, 'client', 404, 'not_found'],
      ['GET', '/credits/nobody/pools', undefined, 'client', 404, 'not_found'],
      ['GET', '/credits/cred-me/pools/{theirPool}/transactions', undefined, 'client', 404, 'not_found'],
      ['GET', '/credits/cred-me/pools?limit=0', undefined, 'client', 400, 'validation_failed'],
      ['POST', '/rules/plan-features', { planId: '{plan}', featureId: MISSING, creditModelId: '{model}' }, 'admin', 404, 'not_found'],
      // Request edge and extremes.
      ['POST', '/credits/models', { name: 'n\u0000', denomination: 'nul' }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/pools', { name: 'p\ud800', denomination: 'bad' }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/grants', { creditPoolId: '{pool}', amount: 1, grantType: 'MANUAL', description: 'x\u0000' }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/grants', { creditPoolId: '{pool}', amount: '1e400', grantType: 'MANUAL' }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/deductions', { creditPoolId: '{pool}', amount: '123456789012345678901234567890' }, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/models/{model}/plans/{plan}?creditAmount=1%00', undefined, 'admin', 400, 'validation_failed'],
      ['POST', '/credits/transactions/{tx}/reverse?description=%00', undefined, 'admin', 400, 'validation_failed'],
      ['GET', `/credits/${'r'.repeat(300)}/pools`, undefined, 'client', 400, 'validation_failed'],
      ['PUT', '/credits/grants', { creditPoolId: '{pool}', amount: 1 }, 'admin', 405, 'method_not_allowed'],
    ];
    const fill = (s: string) => s.replace(/\{(\w+)\}/g, (_, k: string) => ids[k] ?? `{${k}}`);
    const before = await snapshot();
    for (const [method, path, body, surface, status, code] of cases) {
      const filled = body === undefined ? undefined : JSON.parse(fill(JSON.stringify(body)));
      const res = await m[surface](method, fill(path), filled);
      const label = `${method} ${path} ${JSON.stringify(body) ?? ''}`;
      assert.equal(res.status, status, `${label}: ${res.text}`);
      assert.equal(res.body.success, false, label);
      assert.equal(res.body.error.code, code, label);
      assert.equal(typeof res.body.error.requestId, 'string', label);
    }
    assert.deepEqual(await snapshot(), before, 'no bad request wrote anything');
    await m.audit();
  });
});
