import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSeedRows, packageRate, resolveModelName, seedDataHash, SINCE_ALWAYS } from './seed.js';

test('a package rate is taken as its shortest decimal text, a tiered one as its base, never through arithmetic', () => {
  assert.equal(packageRate(0.3)!.toFixed(), '0.3');
  assert.throws(() => packageRate(0.1 + 0.2), /more than 10 decimal places/, 'float noise (0.30000000000000004) fails the seed instead of being rounded by the column');
  assert.equal(packageRate({ base: 3.75, tiers: [{ start: 200000, price: 7.5 }] })!.toFixed(), '3.75');
  assert.equal(packageRate(undefined), null);
  assert.throws(() => packageRate(-1));
  assert.throws(() => packageRate(1e-11), /more than 10 decimal places/);
});

test('seed rows: dated changes kept in order, first price since always, every rate fits the column', () => {
  const rows = buildSeedRows();
  const o3 = rows.filter((r) => r.provider === 'OPENAI' && r.model === 'o3');
  assert.deepEqual(o3.map((r) => [r.effectiveFrom, r.rates.input!.toFixed()]), [[SINCE_ALWAYS, '10'], ['2025-06-10', '2']]);
  const keys = new Set(rows.map((r) => `${r.provider} ${r.model} ${r.effectiveFrom}`));
  assert.equal(keys.size, rows.length, 'one row per (provider, model, day)');
  assert.ok(rows.every((r) => r.rates.input !== null || r.rates.output !== null), 'only models with a token price');
  assert.equal(seedDataHash(rows), seedDataHash(buildSeedRows()), 'the hash is stable');
});

test('names resolve with the package matcher; overrides come before prefix rules; unknown names stay themselves', () => {
  assert.deepEqual(resolveModelName('ANTHROPIC', 'claude-sonnet-4-5-20250929'), { priceProvider: 'ANTHROPIC', priceModel: 'claude-sonnet-4-5', matched: true });
  assert.equal(resolveModelName('ANTHROPIC', 'claude-sonnet-5-5-20261001').priceModel, 'claude-sonnet-5-5');
  assert.equal(resolveModelName('ANTHROPIC', 'claude-sonnet-5').priceModel, 'claude-sonnet-5');
  assert.deepEqual(resolveModelName('LITELLM', 'openai/gpt-4o'), { priceProvider: 'OPENAI', priceModel: 'gpt-4o', matched: true });
  assert.deepEqual(resolveModelName('CURSOR', 'claude-4-sonnet'), { priceProvider: 'ANTHROPIC', priceModel: 'claude-sonnet-4-0', matched: true });
  assert.equal(resolveModelName('CURSOR', 'claude-4.5-sonnet').priceModel, 'claude-sonnet-4-5', 'version-first reseller names are tried family first');
  assert.equal(resolveModelName('CURSOR', 'claude-4.5-opus-high-thinking').priceModel, 'claude-opus-4-5');
  assert.deepEqual(resolveModelName('OPENAI', ' My-Model '), { priceProvider: 'OPENAI', priceModel: 'my-model', matched: false });
  assert.equal(resolveModelName('ANTHROPIC', 'gpt-4o').matched, false, 'a vendor’s names are looked up in its own book');
});
