import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CURSOR_FAKE_KEY, startCursorFake, type CursorFake } from '../../fakes/vendors/cursor.js';
import { GITHUB_FAKE_KEY, startGithubFake, type GithubFake } from '../../fakes/vendors/github.js';
import { LITELLM_FAKE_KEY, startLiteLlmFake, type LiteLlmFake } from '../../fakes/vendors/litellm.js';
import { OPENAI_FAKE_KEY, startOpenAiFake, type OpenAiFake } from '../../fakes/vendors/openai.js';
import { newId } from '../../../src/platform/ids.js';
import { startTestService, type TestService } from '../../harness.js';
import { spendOperator, storedRows } from './connections-helpers.js';

/** Each provider through the service: connect → probe → sync → rows in the database → the usage report. */
describe('spend sync per provider', () => {
  let svc: TestService;
  let openai: OpenAiFake;
  let cursor: CursorFake;
  let github: GithubFake;
  let litellm: LiteLlmFake;
  before(async () => {
    [openai, cursor, github, litellm] = await Promise.all([startOpenAiFake(), startCursorFake(), startGithubFake(), startLiteLlmFake()]);
    svc = await startTestService({
      env: {
        APP_SPEND_OPENAI_BASE_URL: openai.url,
        APP_SPEND_CURSOR_BASE_URL: cursor.url,
        APP_SPEND_GITHUB_BASE_URL: github.url,
        APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true',
        APP_SPEND_VENDOR_MAX_RETRIES: '1',
      },
    });
  });
  after(async () => {
    await svc.close();
    await Promise.all([openai.close(), cursor.close(), github.close(), litellm.close()]);
  });

  async function connectProbeSync(body: Record<string, unknown>, query: string) {
    const o = await spendOperator(svc);
    const created = await o.create(body);
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    assert.deepEqual((await o.probe(id)).body.data, { ok: true, message: null });
    const synced = await o.sync(id, query);
    assert.equal(synced.status, 200, synced.text);
    const report = await o.usageReport(query);
    assert.equal(report.status, 200, report.text);
    return { o, id, synced: synced.body.data, view: (await o.get(id)).body.data, rows: await storedRows(svc, id), usage: report.body.data };
  }

  test('when OpenAI is synced then its usage and cost lines are stored', async () => {
    openai.seedDays({ from: '2026-03-01', days: 3 });
    const { synced, rows, view, usage } = await connectProbeSync({ provider: 'OPENAI', label: 'oa', adminKey: OPENAI_FAKE_KEY }, '?from=2026-03-01&to=2026-03-04');
    assert.ok(rows.usage > 0 && rows.costs > 0, JSON.stringify(rows));
    assert.ok(usage.totals.uncachedInputTokens > 0 && usage.totals.vendorCostCents > 0, JSON.stringify(usage.totals));
    assert.ok(usage.byModel.every((m: { provider: string; vendorCostCents: unknown }) => m.provider === 'OPENAI' && m.vendorCostCents === null), 'OpenAI has no per-model cost');
    assert.equal(synced.rowsWritten, rows.usage + rows.costs + rows.actors);
    assert.equal(view.status, 'ACTIVE');
  });

  test('when Cursor is synced over 30 days then one chunk; over 31 days then a 30-day chunk and a 1-day chunk', async () => {
    cursor.seedDays({ from: '2026-01-01', days: 31 });
    const { o, id, rows, view, usage } = await connectProbeSync({ provider: 'CURSOR', label: 'cu', adminKey: CURSOR_FAKE_KEY }, '?from=2026-01-01&to=2026-01-31');
    assert.deepEqual([view.syncChunksDone, view.syncChunksTotal], [1, 1]);
    assert.ok(usage.byModel.length > 0 && usage.byModel.every((m: { provider: string }) => m.provider === 'CURSOR'), JSON.stringify(usage.byModel));
    assert.ok(usage.byActor.length > 0, 'per-person rows under byActor');
    assert.ok(rows.usage > 0 && rows.actors > 0, JSON.stringify(rows));
    const wider = await o.sync(id, '?from=2026-01-01&to=2026-02-01');
    assert.equal(wider.status, 200, wider.text);
    const after = (await o.get(id)).body.data;
    assert.deepEqual([after.syncChunksDone, after.syncChunksTotal], [2, 2]);
    const lastDay = await svc.ctx.db.selectFrom('spend_usage_buckets').select('day').where('connection_id', '=', id).where('day', '=', '2026-01-31').execute();
    assert.ok(lastDay.length > 0, 'the 31st day came from the second chunk');
  });

  test('when Copilot is synced then per-person metrics are stored under actor metrics', async () => {
    github.seedDays({ from: '2026-03-01', days: 2 });
    const { rows, usage } = await connectProbeSync({ provider: 'COPILOT', label: 'gh', adminKey: GITHUB_FAKE_KEY, scope: github.org }, '?from=2026-03-01&to=2026-03-03');
    assert.ok(rows.actors > 0, JSON.stringify(rows));
    assert.ok(usage.byActor.some((a: { provider: string }) => a.provider === 'COPILOT'), JSON.stringify(usage.byActor));
    assert.equal(usage.totals.meteredCostCents, 0, 'per-person assistant rows never reach the totals');
  });

  test('when LiteLLM is synced then its spend logs are stored; the proxy URL is the scope', async () => {
    litellm.seedDays({ from: '2026-03-01', days: 2 });
    const { rows, view, usage } = await connectProbeSync({ provider: 'LITELLM', label: 'proxy', adminKey: LITELLM_FAKE_KEY, scope: `${litellm.url}/` }, '?from=2026-03-01&to=2026-03-03');
    assert.ok(rows.usage > 0, JSON.stringify(rows));
    assert.ok(usage.totals.vendorCostCents > 0 && usage.byModel.every((m: { provider: string }) => m.provider === 'LITELLM'), JSON.stringify(usage.totals));
    assert.equal(view.scope, litellm.url, 'trailing slash dropped');
  });
});

describe('spend connections: the outbound-URL guard at connection time', () => {
  test('when a stored LiteLLM proxy name now resolves to loopback then the call is refused (DNS rebinding)', async () => {
    const litellm = await startLiteLlmFake();
    const svc = await startTestService({ env: { APP_SPEND_VENDOR_MAX_RETRIES: '3' } });
    try {
      const o = await spendOperator(svc);
      // On save with loopback refused, the name is refused outright…
      const port = new URL(litellm.url).port;
      const saved = await o.create({ provider: 'LITELLM', label: 'proxy', adminKey: LITELLM_FAKE_KEY, scope: `http://localhost:${port}` });
      assert.equal(saved.status, 400);
      assert.match(saved.body.error.message, /localhost resolves to .*loopback/);
      // …so stand in for a name that resolved to a public address when it was saved and resolves to
      // loopback now: the row as the create path writes it.
      const id = newId();
      const now = svc.clock.now();
      await svc.ctx.db
        .insertInto('spend_connections')
        .values({
          id, account_id: o.account.accountId, provider: 'LITELLM', label: 'rebound', key_hint: '0000', status: 'ACTIVE', created_at: now, modified_at: now,
          scope: `http://localhost:${port}`, admin_key_sealed: svc.ctx.secrets.seal(LITELLM_FAKE_KEY, `spend_connections:${o.account.accountId}:${id}:admin_key`),
        })
        .execute();
      const probe = await o.probe(id);
      assert.equal(probe.status, 502);
      assert.equal(probe.body.error.code, 'vendor_error');
      assert.match(probe.body.error.message, /Refused to connect to localhost: .*loopback address/);
      assert.equal(litellm.requests.length, 0, 'nothing reached the proxy');
      const sync = await o.sync(id, '?from=2026-03-01&to=2026-03-02');
      assert.equal(sync.status, 502);
      assert.equal(sync.body.data.status, 'ERROR');
      assert.equal(litellm.requests.length, 0);
    } finally {
      await svc.close();
      await litellm.close();
    }
  });
});
