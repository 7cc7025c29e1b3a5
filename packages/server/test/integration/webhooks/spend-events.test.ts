import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ANTHROPIC_FAKE_KEY, startAnthropicFake, type AnthropicFake } from '../../fakes/vendors/anthropic.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';
import { spendFixtures } from '../spend/reports-fixtures.js';

/**
 * `spend.alert` and `spend.digest` (api-contract-events.md §E5.9): an alert's event is recorded with
 * the alert row (once per alert, however many evaluations race), a digest's with its send; the
 * objects are the Alert and the Digest as the read routes show them (no channel outcomes).
 */
const NOW = '2026-11-25T12:00:00Z';
void ANTHROPIC_FAKE_KEY;

describe(`spend events (${backend})`, () => {
  let svc: TestService;
  let anthropic: AnthropicFake;

  before(async () => {
    anthropic = await startAnthropicFake();
    svc = await startTestService({ now: NOW, env: { APP_SPEND_ANTHROPIC_BASE_URL: anthropic.url, APP_SPEND_VENDOR_MAX_RETRIES: '0' } });
  });
  after(async () => {
    await svc.close();
    await anthropic.close();
  });

  async function setup() {
    const account = await createTestAccount(svc);
    const f = spendFixtures(svc, account);
    const unit = await f.expectOk(f.api('POST', '/units', { type: 'TEAM', name: 'Backend' }), 201);
    await f.expectOk(f.api('POST', '/rules', { spendUnitId: unit.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'wrkspc_be' }), 201);
    const conn = await f.connection('ANTHROPIC');
    const spend = (rows: [string, number][]) =>
      f.buckets(conn, 'ANTHROPIC', rows.map(([day, cents]) => ({ day, model: 'claude-sonnet-4-5', workspace: 'wrkspc_be', actor: 'seed', u: (cents * 10_000) / 3 })));
    const events = async (type: string) =>
      ((await f.expectOk(svc.http.request('GET', `/api/v1/webhooks/events?type=${type}&limit=100`, { auth: account.token }))).items as { data: { object: any } }[]).map((e) => e.data.object);
    const relogin = async () => {
      const login = await svc.http.post('/public/v1/login', { body: { username: account.username, password: account.password } });
      account.token = login.body.data.token;
    };
    return { f, unit, spend, events, relogin };
  }

  test('when 20 evaluations race over a crossed budget then each alert records exactly one spend.alert carrying the Alert', async () => {
    const s = await setup();
    await s.f.expectOk(s.f.api('PUT', `/units/${s.unit.id}/budget`, { dailyCents: 1000, monthlyCents: 100000 }));
    await s.spend([['2026-11-25', 900], ['2026-11-20', 4200]]);
    const runs = await Promise.all(Array.from({ length: 20 }, () => s.f.expectOk(s.f.api('POST', '/budgets/evaluate')) as Promise<any[]>));
    const fired = runs.flat();
    assert.equal(fired.length, 1, 'one alert in all');
    const got = await s.events('spend.alert');
    assert.equal(got.length, 1);
    const listed = (await s.f.expectOk(s.f.api('GET', '/alerts'))) as any[];
    assert.deepEqual(got[0], listed[0]);
    assert.deepEqual([got[0].kind, got[0].period, got[0].spentCents], ['THRESHOLD', 'DAY', 900]);
    assert.deepEqual(await s.f.expectOk(s.f.api('POST', '/budgets/evaluate')), []);
    assert.equal((await s.events('spend.alert')).length, 1, 'an evaluation that fires nothing records nothing');
  });

  test('when a digest is sent (route or Monday job) then each send records one spend.digest with the Digest, without delivery', async () => {
    const s = await setup();
    await s.spend([['2026-11-24', 900]]);
    const sent = await s.f.expectOk(s.f.api('POST', '/digest/send'));
    const [first] = await s.events('spend.digest');
    const { delivery, ...digest } = sent;
    assert.ok(delivery);
    assert.deepEqual(first, digest);
    assert.equal(first.delivery, undefined);
    await s.f.expectOk(s.f.api('POST', '/digest/send'));
    assert.equal((await s.events('spend.digest')).length, 2, 'once per send');
    await s.f.expectOk(s.f.api('PUT', '/settings', { digestEnabled: true }));
    svc.clock.set('2026-11-30T08:00:00Z');
    assert.equal((await svc.scheduler.run('spend-weekly-digest')).status, 'ran');
    await s.relogin();
    assert.equal((await s.events('spend.digest')).length, 3);
  });
});
