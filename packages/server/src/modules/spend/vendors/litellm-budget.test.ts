import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { vendorRefusal } from '../../../../test/fakes/vendors/client-kit.js';
import { startLiteLlmFake, type LiteLlmFake } from '../../../../test/fakes/vendors/litellm.js';
import { dec } from '../../../platform/money.js';
import { budgetInfoOf, createLiteLlmBudgetClient } from './litellm-budget.js';
import { VendorError } from './types.js';

describe('LiteLLM budget client against the loopback proxy fake (vendor-apis.md §5.4)', () => {
  let fake: LiteLlmFake;
  before(async () => {
    fake = await startLiteLlmFake();
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  const client = () => createLiteLlmBudgetClient({ baseUrl: fake.url, adminKey: fake.key, scope: fake.url, timeoutMs: 2000, maxRetries: 1, sleep: async () => undefined });

  test('a limit is sent as the exact lexeme with budget_duration 1mo; null alone; read back through /team/info and /key/info', async () => {
    fake.addTarget('team', 'team-a', { spend: '0.1' });
    fake.addTarget('key', 'hash-k', { spend: '7' });
    await client().setMaxBudget({ kind: 'team', id: 'team-a' }, dec('0.3'));
    await client().setMaxBudget({ kind: 'key', id: 'hash-k' }, null);
    assert.deepEqual(fake.budgetUpdates.map((u) => u.body), ['{"team_id":"team-a","max_budget":0.3,"budget_duration":"1mo"}', '{"key":"hash-k","max_budget":null}']);
    const team = await client().budgetInfo({ kind: 'team', id: 'team-a' });
    assert.deepEqual([team.spendDollars!.toFixed(), team.maxBudgetDollars!.toFixed(), team.budgetDuration], ['0.1', '0.3', '1mo']);
    const key = await client().budgetInfo({ kind: 'key', id: 'hash-k' });
    assert.deepEqual([key.spendDollars!.toFixed(), key.maxBudgetDollars, key.budgetDuration], ['7', null, null]);
  });

  test('refusals carry the proxy message: unknown target, bad duration, a reverse proxy page', async () => {
    const refusal = async (p: Promise<unknown>) => (await vendorRefusal(p)).message;
    assert.equal(await refusal(client().setMaxBudget({ kind: 'team', id: 'nope' }, dec(1))), 'Team not found, passed team_id=nope');
    fake.addTarget('user', 'dana');
    fake.acceptMonths = false;
    assert.equal(await refusal(client().setMaxBudget({ kind: 'user', id: 'dana' }, dec(1))), 'Invalid budget_duration');
    fake.failNext(2, { status: 502, text: '<html>bad gateway</html>' });
    assert.equal(await refusal(client().setMaxBudget({ kind: 'user', id: 'dana' }, null)), 'LiteLLM answered HTTP 502');
  });

  test('read-back fields are found at the top level or under team_info, info or data', () => {
    const spend = dec('1.5'); // as http.exact() parses the lexeme 1.5
    for (const body of [{ spend }, { team_info: { spend } }, { key: 'k', info: { spend } }, { data: { spend } }]) {
      assert.equal(budgetInfoOf(body).spendDollars!.toString(), '1.5', JSON.stringify(body));
    }
    assert.throws(() => budgetInfoOf({ team_id: 'x' }), VendorError);
  });
});
