import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { resolveModelName } from '../../../src/modules/spend/prices/seed.js';
import { spendFixtures } from './reports-fixtures.js';

/**
 * vendor-apis.md §8.2, typed here by hand as the independent check of the seeded book (USD per
 * million tokens): [input, 5m cache write, 1h cache write, cache read, output]. OpenAI rows:
 * [input, cached input, output, cache write] (no 1h write). Prices in force on 2026-11-25.
 */
const ANTHROPIC_8_2: [string[], number[]][] = [
  [['claude-opus-4-5', 'claude-opus-4-5-20251101', 'claude-opus-4-6', 'claude-opus-4-7', 'claude-opus-4-8', 'claude-opus-5'], [5, 6.25, 10, 0.5, 25]],
  [['claude-opus-5-5'], [4, 5, 8, 0.2, 20]],
  [['claude-opus-4-1', 'claude-opus-4-1-20250805', 'claude-opus-4', 'claude-opus-4-20250514'], [15, 18.75, 30, 1.5, 75]],
  [['claude-sonnet-4', 'claude-sonnet-4-20250514', 'claude-sonnet-4-5', 'claude-sonnet-4-5-20250929', 'claude-sonnet-4-6'], [3, 3.75, 6, 0.3, 15]],
  [['claude-sonnet-5'], [2, 2.5, 4, 0.2, 10]],
  [['claude-sonnet-5-5'], [2, 2.5, 4, 0.1, 10]],
  [['claude-haiku-4-5', 'claude-haiku-4-5-20251001'], [1, 1.25, 2, 0.1, 5]],
  [['claude-haiku-5-5'], [0.1, 0.125, 0.2, 0.01, 0.5]],
  [['claude-3-5-haiku', 'claude-3-5-haiku-20241022'], [0.8, 1, 1.6, 0.08, 4]],
  [['claude-fable-5', 'claude-mythos-5'], [10, 12.5, 20, 1, 50]],
  [['claude-fable-5-1', 'claude-mythos-5-1'], [10, 12.5, 20, 0.25, 50]],
];
const OPENAI_8_2: [string, (number | null)[]][] = [
  ['gpt-5', [1.25, 0.125, 10, null]],
  ['gpt-5-mini', [0.25, 0.025, 2, null]],
  ['gpt-5-nano', [0.05, 0.005, 0.4, null]],
  ['gpt-5.3-codex', [1.75, 0.175, 14, null]],
  ['gpt-5.4', [2.5, 0.25, 15, null]],
  ['gpt-5.4-mini', [0.75, 0.075, 4.5, null]],
  ['gpt-5.4-nano', [0.2, 0.02, 1.25, null]],
  ['gpt-5.5', [5, 0.5, 30, null]],
  ['gpt-5.6-sol', [5, 0.5, 30, 6.25]],
  ['gpt-5.6-terra', [2, 0.2, 12, 2.5]],
  ['gpt-5.6-luna', [0.2, 0.02, 1.2, 0.25]],
  ['gpt-4.1', [2, 0.5, 8, null]],
  ['gpt-4.1-mini', [0.4, 0.1, 1.6, null]],
  ['gpt-4o', [2.5, 1.25, 10, null]],
  ['gpt-4o-mini', [0.15, 0.075, 0.6, null]],
  ['o3', [2, 0.5, 8, null]],
  ['o4-mini', [1.1, 0.275, 4.4, null]],
];

describe('spend price book: seeded rows and operator rows', () => {
  let svc: TestService;
  let f: ReturnType<typeof spendFixtures>;
  let other: ReturnType<typeof spendFixtures>;
  let apiKey: string;
  before(async () => {
    svc = await startTestService({ now: '2026-11-25T12:00:00Z' });
    const account = await createTestAccount(svc);
    apiKey = account.apiKey;
    f = spendFixtures(svc, account);
    other = spendFixtures(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  test('when the models report is read then every §8.2 model name resolves to a row with the §8.2 rates', async () => {
    const book: any[] = await f.expectOk(f.api('GET', '/reports/models'));
    const find = (provider: 'ANTHROPIC' | 'OPENAI', name: string) => {
      const m = resolveModelName(provider, name);
      assert.ok(m.matched, `${name} is matched by the package or the overrides`);
      const row = book.find((r) => r.provider === provider && r.model === m.priceModel);
      assert.ok(row, `${name} → ${m.priceModel} is in the book`);
      return row;
    };
    for (const [names, [input, w5, w1, read, output]] of ANTHROPIC_8_2) {
      for (const name of names) {
        const row = find('ANTHROPIC', name);
        assert.deepEqual(
          [row.inputCostPerMillion, row.cacheWriteCostPerMillion, row.cacheWrite1hCostPerMillion, row.cacheReadCostPerMillion, row.outputCostPerMillion],
          [input, w5, w1, read, output],
          name,
        );
      }
    }
    for (const [name, [input, cached, output, write]] of OPENAI_8_2) {
      const row = find('OPENAI', name);
      assert.deepEqual([row.inputCostPerMillion, row.cacheReadCostPerMillion, row.outputCostPerMillion, row.cacheWriteCostPerMillion], [input, cached, output, write], name);
    }
  });

  test('when a seeded rate is listed then its JSON lexeme is the exact decimal (no float noise)', async () => {
    const res = await f.api('GET', '/prices?provider=OPENAI&model=gpt-5-nano');
    assert.equal(res.status, 200, res.text);
    assert.match(res.text, /"cacheReadCostPerMillion":0\.005[,}]/);
    assert.match(res.text, /"outputCostPerMillion":0\.4[,}]/);
  });

  test('when a model changed price on a day then both dated rows are listed (package change and §8.2 override)', async () => {
    const terra: any[] = await f.expectOk(f.api('GET', '/prices?provider=OPENAI&model=gpt-5.6-terra'));
    assert.deepEqual(terra.map((r) => [r.effectiveFrom, r.inputCostPerMillion, r.source]), [['1970-01-01', 2.5, 'PACKAGE'], ['2026-07-30', 2, 'PACKAGE']]);
    const sonnet55: any[] = await f.expectOk(f.api('GET', '/prices?provider=ANTHROPIC&model=claude-sonnet-5-5'));
    assert.deepEqual(sonnet55.map((r) => [r.effectiveFrom, r.cacheReadCostPerMillion, r.source]), [['1970-01-01', 0.2, 'SEED_OVERRIDE'], ['2026-10-07', 0.1, 'SEED_OVERRIDE']]);
    const sol: any[] = await f.expectOk(f.api('GET', '/prices?provider=OPENAI&model=gpt-5.6-sol'));
    assert.deepEqual(sol.map((r) => [r.effectiveFrom, r.inputCostPerMillion, r.source]), [['1970-01-01', 5, 'SEED_OVERRIDE']], 'the package’s 2026-08-21 drop is overridden');
  });

  test('when an operator adds a row under a vendor name then it is stored under the price-book model and wins in the models report from its day', async () => {
    const row = await f.expectOk(
      f.api('POST', '/prices', { provider: 'ANTHROPIC', model: 'claude-sonnet-4-5-20250929', effectiveFrom: '2026-11-01', inputCostPerMillion: 2.7, outputCostPerMillion: '13.5', cacheReadCostPerMillion: 0.27 }),
      201,
    );
    assert.equal(row.model, 'claude-sonnet-4-5');
    assert.equal(row.source, 'OPERATOR');
    assert.equal(row.cacheWriteCostPerMillion, null);
    await f.expectOk(f.api('POST', '/prices', { provider: 'ANTHROPIC', model: 'claude-haiku-4-5', effectiveFrom: '2026-12-01', inputCostPerMillion: 9, outputCostPerMillion: 9 }), 201);
    const book: any[] = await f.expectOk(f.api('GET', '/reports/models'));
    const sonnet = book.find((r) => r.model === 'claude-sonnet-4-5');
    assert.deepEqual([sonnet.inputCostPerMillion, sonnet.outputCostPerMillion, sonnet.source, sonnet.effectiveFrom], [2.7, 13.5, 'OPERATOR', '2026-11-01']);
    const haiku = book.find((r) => r.model === 'claude-haiku-4-5');
    assert.deepEqual([haiku.inputCostPerMillion, haiku.source], [1, 'PACKAGE'], 'a row from a future day is not in force yet');
    const otherBook: any[] = await other.expectOk(other.api('GET', '/reports/models'));
    assert.equal(otherBook.find((r) => r.model === 'claude-sonnet-4-5').source, 'PACKAGE', 'another account keeps the seeded row');
    const mine: any[] = await f.expectOk(f.api('GET', '/prices?provider=ANTHROPIC&model=claude-sonnet-4-5'));
    assert.deepEqual(mine.map((r) => r.source), ['PACKAGE', 'OPERATOR']);
  });

  test('when an operator row repeats a model and day then 409 conflict and nothing is written', async () => {
    const body = { provider: 'OPENAI', model: 'Acme-FT-1', effectiveFrom: '2026-10-01', inputCostPerMillion: 1, outputCostPerMillion: 2 };
    const first = await f.expectOk(f.api('POST', '/prices', body), 201);
    assert.equal(first.model, 'acme-ft-1', 'an unmatched name is keyed trimmed and lower-cased');
    const again = await f.api('POST', '/prices', { ...body, model: ' acme-ft-1 ' });
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.error.code, 'conflict');
    assert.match(again.body.error.message, /OPENAI acme-ft-1 effective 2026-10-01 already exists/);
    const rows: any[] = await f.expectOk(f.api('GET', '/prices?provider=OPENAI&model=acme-ft-1'));
    assert.equal(rows.length, 1);
  });

  test('when a price row is invalid then 400 validation_failed naming the field', async () => {
    const good = { provider: 'OPENAI', model: 'x-model', effectiveFrom: '2026-10-01', inputCostPerMillion: 1, outputCostPerMillion: 2 };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, inputCostPerMillion: -1 }, 'inputCostPerMillion'],
      [{ ...good, outputCostPerMillion: '0.12345678901' }, 'outputCostPerMillion'],
      [{ ...good, cacheReadCostPerMillion: 1e7 }, 'cacheReadCostPerMillion'],
      [{ ...good, effectiveFrom: '2026-02-30' }, 'effectiveFrom'],
      [{ ...good, effectiveFrom: undefined }, 'effectiveFrom'],
      [{ ...good, provider: 'GEMINI' }, 'provider'],
      [{ ...good, model: '   ' }, 'model'],
      [{ ...good, inputCostPerMillion: undefined }, 'inputCostPerMillion'],
    ];
    for (const [body, field] of cases) {
      const res = await f.api('POST', '/prices', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.ok(res.body.error.message.includes(field), `${field} named in ${res.body.error.message}`);
    }
    const rows: any[] = await f.expectOk(f.api('GET', '/prices?provider=OPENAI&model=x-model'));
    assert.equal(rows.length, 0);
  });

  test('when an operator row is deleted then it is gone; another account’s row or a seeded row cannot be deleted', async () => {
    const row = await f.expectOk(f.api('POST', '/prices', { provider: 'LITELLM', model: 'llama-local', effectiveFrom: '2026-09-01', inputCostPerMillion: 0.1, outputCostPerMillion: 0.1 }), 201);
    const foreign = await other.api('DELETE', `/prices/${row.id}`);
    assert.equal(foreign.status, 404, foreign.text);
    await f.expectOk(f.api('DELETE', `/prices/${row.id}`));
    const again = await f.api('DELETE', `/prices/${row.id}`);
    assert.equal(again.status, 404);
    const rows: any[] = await f.expectOk(f.api('GET', '/prices?provider=LITELLM'));
    assert.equal(rows.length, 0);
  });

  test('when a tenant key calls the price routes then 401', async () => {
    for (const [method, path] of [['GET', '/api/v1/spend/prices'], ['GET', '/api/v1/spend/reports/models'], ['POST', '/api/v1/spend/prices']] as const) {
      const res = await svc.http.request(method, path, { auth: apiKey, ...(method === 'POST' ? { body: {} } : {}) });
      assert.equal(res.status, 401, `${method} ${path}: ${res.text}`);
    }
  });
});
