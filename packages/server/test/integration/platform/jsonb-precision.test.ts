import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * jsonb keeps every digit (ADR 0006): values are written by one writer (toJsonb, Decimals as exact
 * number lexemes) and read back by the exact JSON codec, so a 20+ significant-digit decimal sent in
 * metadata, a rule value or an event context comes back as the same JSON number, not a float.
 */
const EXACT = '1.2345678901234567890123';
const TINY = '-0.000000000000000000012345678901234567891';
const BIG_INT = '123456789012345678901234';
const PRICE = '0.12345678901234567891';

describe('jsonb round trips without losing precision', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let auth: Awaited<ReturnType<typeof createTestAccount>>;

  before(async () => {
    svc = await startTestService();
    auth = await createTestAccount(svc);
    m = monetization(svc, auth);
  });
  after(() => svc.close());

  /** A raw JSON body: the client sends the lexemes as written, never through a JS number. */
  const raw = (fields: string) => `{"exact":${EXACT},"tiny":${TINY},"big":${BIG_INT},"list":[${EXACT},{"n":${TINY}}]${fields}}`;
  const hasLexemes = (text: string) => {
    for (const lexeme of [`"exact":${EXACT}`, `"tiny":${TINY}`, `"big":${BIG_INT}`, `"list":[${EXACT},{"n":${TINY}}]`]) {
      assert.ok(text.includes(lexeme), `${lexeme} in ${text}`);
    }
  };
  async function rawRequest(method: string, path: string, body: string, as: 'admin' | 'client') {
    const prefix = as === 'admin' ? '/api/v1/monetization' : '/api/v1/client';
    return svc.http.request(method, `${prefix}${path}`, { auth: as === 'admin' ? auth.token : auth.apiKey, rawBody: body, headers: { 'content-type': 'application/json' } });
  }

  test('when feature and plan metadata carry 20+ digit decimals then GET returns the same lexemes', async () => {
    const feature = await rawRequest('POST', '/features', `{"name":"Precise","key":"precise","metadata":${raw('')}}`, 'admin');
    assert.equal(feature.status, 201, feature.text);
    hasLexemes((await m.admin('GET', `/features/${feature.body.data.id}`)).text);
    const plan = await rawRequest('POST', '/plans', `{"key":"precise","name":"Precise","metadata":${raw('')}}`, 'admin');
    assert.equal(plan.status, 201, plan.text);
    hasLexemes((await m.admin('GET', `/plans/${plan.body.data.id}`)).text);
    const patched = await rawRequest('PATCH', `/plans/${plan.body.data.id}`, `{"metadata":${raw(',"again":true')}}`, 'admin');
    assert.equal(patched.status, 200, patched.text);
    hasLexemes((await m.admin('GET', `/plans/${plan.body.data.id}`)).text);
  });

  test('when a rule price has 20 significant digits then the stored rule value returns it exactly', async () => {
    const feature = await m.feature();
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'rule-precise', name: 'x' }), 201);
    const rule = await rawRequest(
      'POST',
      '/rules/plan-features',
      `{"planId":"${plan.id}","featureId":"${feature.id}","value":{"pricing":{"model":"usage","usage_unit_type":"calls","price_per_unit":${PRICE}}}}`,
      'admin',
    );
    assert.equal(rule.status, 201, rule.text);
    const listed = await m.admin('GET', `/rules/plan-features/${plan.id}/${feature.id}`);
    assert.equal(listed.status, 200, listed.text);
    assert.ok(listed.text.includes(`"price_per_unit":${PRICE}`), listed.text);
  });

  test('when an event context and a credit grant metadata carry 20+ digit decimals then they are stored exactly', async () => {
    const feature = await m.feature({ key: 'ctx-precise' });
    await m.customer('precise-1');
    const event = await rawRequest(
      'POST',
      '/events',
      `{"eventName":"e","customerReferenceId":"precise-1","featureKey":"ctx-precise","eventIdempotencyKey":"precise-ev","context":${raw('')}}`,
      'client',
    );
    assert.equal(event.status, 201, event.text);
    const events = await m.api('GET', '/api/v1/tanso/events?customerReferenceId=precise-1');
    hasLexemes(events.text);
    assert.ok(feature.id);

    await m.creditModel({ denomination: 'precise-tokens' });
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'precise', denomination: 'precise-tokens' }), 201);
    const grant = await rawRequest('POST', '/credits/grants', `{"creditPoolId":"${pool.id}","amount":5,"grantType":"MANUAL","metadata":${raw('')}}`, 'admin');
    assert.equal(grant.status, 201, grant.text);
    hasLexemes((await m.admin('GET', `/credits/pools/${pool.id}/grants`)).text);
  });
});
