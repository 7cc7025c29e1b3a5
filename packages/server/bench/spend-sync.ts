/**
 * The spend sync benchmark's vendor: a loopback stand-in for the Anthropic Admin API serving
 * SYNC_ROWS usage rows spread over SYNC_DAYS daily buckets (200 models × workspaces per day, each
 * row its own key), empty cost and Claude Code reports. Answers are built once, so the bench
 * measures the service (fetch, parse, merge, chunked replace), not the fake.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConnection } from '../src/modules/spend/index.js';
import type { AppContext } from '../src/platform/context.js';

export const SYNC_ROWS = 100_000;
export const SYNC_DAYS = 30;
export const SYNC_FROM = '2026-01-01';
export const SYNC_TO = '2026-01-31';
export const SYNC_KEY = 'sk-ant-admin01-bench-0000-key1';
const MODELS = 200;

const dayOf = (d: number) => new Date(Date.parse(`${SYNC_FROM}T00:00:00Z`) + d * 86_400_000).toISOString().slice(0, 10);

function usageReport(): string {
  const perDay = Math.ceil(SYNC_ROWS / SYNC_DAYS);
  const data = [];
  let emitted = 0;
  for (let d = 0; d < SYNC_DAYS; d += 1) {
    const results = [];
    for (let i = 0; i < perDay && emitted < SYNC_ROWS; i += 1, emitted += 1) {
      results.push({
        model: `claude-bench-${i % MODELS}`,
        workspace_id: `wrkspc_${Math.floor(i / MODELS)}`,
        api_key_id: 'apikey_bench',
        service_tier: 'standard',
        uncached_input_tokens: 1000 + i,
        cache_read_input_tokens: 2000 + d,
        cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 0 },
        output_tokens: 500 + i,
      });
    }
    data.push({ starting_at: `${dayOf(d)}T00:00:00Z`, ending_at: `${dayOf(d + 1)}T00:00:00Z`, results });
  }
  return JSON.stringify({ data, has_more: false, next_page: null });
}

export async function startBenchVendor(): Promise<{ url: string; close(): Promise<void> }> {
  const usage = usageReport();
  const emptyBuckets = JSON.stringify({
    data: Array.from({ length: SYNC_DAYS }, (_, d) => ({ starting_at: `${dayOf(d)}T00:00:00Z`, ending_at: `${dayOf(d + 1)}T00:00:00Z`, results: [] })),
    has_more: false,
    next_page: null,
  });
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://bench').pathname;
    if (req.headers['x-api-key'] !== SYNC_KEY) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
      return;
    }
    const body =
      path === '/v1/organizations/usage_report/messages' ? usage
        : path === '/v1/organizations/cost_report' ? emptyBuckets
          : path === '/v1/organizations/usage_report/claude_code' ? '{"data":[],"has_more":false,"next_page":null}'
            : path === '/v1/organizations/me' ? '{"id":"org_bench","type":"organization","name":"bench"}'
              : null;
    if (body === null) res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error","message":"not found"}}');
    else res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The sync benchmark's connection: an Anthropic admin key pointing at the bench vendor. */
export async function seedSpendSync(ctx: AppContext, accountId: string): Promise<{ spendConnectionId: string }> {
  return { spendConnectionId: (await createConnection(ctx, accountId, { provider: 'ANTHROPIC', label: 'bench-sync', adminKey: SYNC_KEY })).id };
}
