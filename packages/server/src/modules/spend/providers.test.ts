import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkDaysOf, vendorClient } from './vendors/index.js';
import { baseUrlOf, PROVIDERS, SPEND_PROVIDERS } from './providers.js';

describe('provider registry', () => {
  it('lists every provider once, in the order the API enums have always shown', () => {
    assert.deepEqual(SPEND_PROVIDERS, ['ANTHROPIC', 'OPENAI', 'CURSOR', 'COPILOT', 'LITELLM']);
  });

  it('gives Cursor 30-day sync chunks and every other vendor 31 (contract §7.2)', () => {
    assert.deepEqual(
      SPEND_PROVIDERS.map((p) => [p, chunkDaysOf(p)]),
      [['ANTHROPIC', 31], ['OPENAI', 31], ['CURSOR', 30], ['COPILOT', 31], ['LITELLM', 31]],
    );
  });

  it("takes a vendor's origin from the configuration, and LiteLLM's from the connection's scope", () => {
    const spend = { anthropicBaseUrl: 'https://a', openaiBaseUrl: 'https://o', cursorBaseUrl: 'https://c', githubBaseUrl: 'https://g' } as Parameters<typeof baseUrlOf>[0];
    assert.equal(baseUrlOf(spend, 'ANTHROPIC', 'ignored'), 'https://a');
    assert.equal(baseUrlOf(spend, 'COPILOT', 'my-org'), 'https://g');
    assert.equal(baseUrlOf(spend, 'LITELLM', 'https://proxy'), 'https://proxy');
    assert.equal(baseUrlOf(spend, 'LITELLM', null), '');
  });

  it('has a client for every provider', () => {
    for (const p of SPEND_PROVIDERS) {
      const client = vendorClient(p, { baseUrl: 'https://example.test', adminKey: 'k', scope: 'org', timeoutMs: 1000, maxRetries: 0 });
      assert.equal(typeof client, 'object', p);
    }
  });

  it('names each vendor in lower case on the outbound-call metric', () => {
    for (const p of SPEND_PROVIDERS) assert.equal(PROVIDERS[p].metricName, p.toLowerCase());
  });
});
