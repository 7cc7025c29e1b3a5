import { sql } from 'kysely';
import type { AppContext } from '../src/platform/context.js';
import { newId } from '../src/platform/ids.js';
import { buildSeedRows } from '../src/modules/spend/index.js';

/** The usage-report benchmark's data: 30 days × 200 models × 167 actors = 1,002,000 usage buckets. */
export const SPEND_DAYS = 30;
export const SPEND_MODELS = 200;
export const SPEND_ACTORS = 167;

/**
 * 200 vendor model names: every seeded Anthropic and OpenAI model under a dated snapshot name
 * (resolved by the package's matcher), the rest names no book knows (unpriced). Written by one
 * INSERT … SELECT over generate_series for the last 30 days including today (the report's default
 * window), with random token counts in every class and a vendor cost on a quarter of the rows.
 * Actor a works in workspace `ws-(a % 25)` with API key `key-<a>` (the allocation bench's rules).
 */
export async function seedSpendUsage(ctx: AppContext, accountId: string): Promise<{ spendRows: number; spendSeedMs: number }> {
  const started = Date.now();
  const seeded = [...new Map(buildSeedRows().map((r) => [`${r.provider}:${r.model}`, r])).values()];
  const models = Array.from({ length: SPEND_MODELS }, (_, i) => {
    const s = seeded[i];
    return s ? { provider: s.provider, name: s.provider === 'ANTHROPIC' ? `${s.model}-20250929` : s.model } : { provider: 'OPENAI' as const, name: `bench-unpriced-${i}` };
  });
  const now = ctx.clock.now();
  const connections: Record<'ANTHROPIC' | 'OPENAI', string> = { ANTHROPIC: newId(), OPENAI: newId() };
  for (const provider of ['ANTHROPIC', 'OPENAI'] as const) {
    await ctx.db
      .insertInto('spend_connections')
      .values({ id: connections[provider], account_id: accountId, provider, label: `bench ${provider}`, admin_key_sealed: null, key_hint: 'beef', scope: null, status: 'ACTIVE', created_at: now, modified_at: now })
      .execute();
  }
  const today = now.toISOString().slice(0, 10);
  await sql`
    insert into spend_usage_buckets (account_id, connection_id, provider, day, model, actor, workspace_id, api_key_id, uncached_input_tokens, cache_read_tokens,
                                     cache_write_5m_tokens, cache_write_1h_tokens, output_tokens, requests, vendor_cost_cents)
    select ${accountId}::uuid,
           case when m.provider = 'ANTHROPIC' then ${connections.ANTHROPIC}::uuid else ${connections.OPENAI}::uuid end,
           m.provider, ${today}::date - d, m.name, 'dev' || a || '@bench.example', 'ws-' || (a % 25), 'key-' || a,
           (random() * 200000)::bigint, (random() * 800000)::bigint, (random() * 40000)::bigint, (random() * 10000)::bigint,
           (random() * 50000)::bigint, case when m.provider = 'OPENAI' then (random() * 100)::bigint end,
           case when a % 4 = 0 then round((random() * 1000)::numeric, 4) end
      from generate_series(0, ${SPEND_DAYS - 1}) d,
           unnest(${models.map((m) => m.name)}::text[], ${models.map((m) => m.provider)}::text[]) as m(name, provider),
           generate_series(1, ${SPEND_ACTORS}) a`.execute(ctx.db);
  await sql`analyze spend_usage_buckets`.execute(ctx.db);
  return { spendRows: SPEND_DAYS * SPEND_MODELS * SPEND_ACTORS, spendSeedMs: Date.now() - started };
}
