import assert from 'node:assert/strict';
import type { TestService } from '../../harness.js';
import type { SpendProvider } from '../../../src/modules/spend/tables.js';
import { newId } from '../../../src/platform/ids.js';

/**
 * Report-test seeding: a connection row and its pulled rows written with SQL (what a sync writes),
 * so report tests state only the buckets that matter. Requests go through HTTP with the JWT.
 */
export function spendFixtures(svc: TestService, auth: { accountId: string; token: string }) {
  const db = svc.ctx.db;
  const api = (method: string, path: string, body?: unknown) =>
    svc.http.request(method, `/api/v1/spend${path}`, { auth: auth.token, ...(body === undefined ? {} : { body }) });

  async function expectOk<T = any>(res: Promise<{ status: number; body: any; text: string }>, status = 200): Promise<T> {
    const r = await res;
    assert.equal(r.status, status, r.text);
    return r.body.data as T;
  }

  async function connection(provider: SpendProvider): Promise<string> {
    const id = newId();
    const now = svc.clock.now();
    await db
      .insertInto('spend_connections')
      .values({ id, account_id: auth.accountId, provider, label: `${provider} ${id.slice(-6)}`, admin_key_sealed: null, key_hint: 'abcd', scope: null, status: 'ACTIVE', created_at: now, modified_at: now })
      .execute();
    return id;
  }

  type Bucket = { day: string; model: string; u?: number; cr?: number; cw5?: number; cw1?: number; o?: number; requests?: number | null; vendorCost?: string | null; tier?: string; actor?: string; apiKey?: string; workspace?: string };
  async function buckets(connectionId: string, provider: SpendProvider, rows: Bucket[]) {
    await db
      .insertInto('spend_usage_buckets')
      .values(
        rows.map((b) => ({
          account_id: auth.accountId,
          connection_id: connectionId,
          provider,
          day: b.day,
          model: b.model,
          workspace_id: b.workspace ?? '',
          actor: b.actor ?? '',
          api_key_id: b.apiKey ?? '',
          service_tier: b.tier ?? '',
          uncached_input_tokens: b.u ?? 0,
          cache_read_tokens: b.cr ?? 0,
          cache_write_5m_tokens: b.cw5 ?? 0,
          cache_write_1h_tokens: b.cw1 ?? 0,
          output_tokens: b.o ?? 0,
          requests: b.requests ?? null,
          vendor_cost_cents: b.vendorCost ?? null,
        })),
      )
      .execute();
  }

  async function costs(connectionId: string, provider: SpendProvider, rows: { day: string; model: string | null; cents: string; description?: string }[]) {
    await db
      .insertInto('spend_vendor_costs')
      .values(rows.map((c) => ({ account_id: auth.accountId, connection_id: connectionId, provider, day: c.day, model: c.model, description: c.description ?? '', cost_type: 'tokens', amount_cents: c.cents })))
      .execute();
  }

  /** Imports a one-line invoice through the invoice route (multipart CSV, amount in dollars). */
  async function invoice(provider: SpendProvider, periodStart: string, periodEnd: string, dollars: string) {
    const form = new FormData();
    for (const [k, v] of Object.entries({ provider, periodStart, periodEnd, currency: 'USD' })) form.append(k, v);
    form.append('file', new Blob([`description,amount\nTokens,${dollars}\n`], { type: 'text/csv' }), 'invoice.csv');
    const res = await fetch(`${svc.baseUrl}/api/v1/spend/invoices`, { method: 'POST', headers: { authorization: `Bearer ${auth.token}` }, body: form });
    assert.equal(res.status, 201, await res.text());
  }

  type ActorMetric = { day: string; actor: string; tool?: string; model?: string; u?: number; cr?: number; cw?: number; o?: number; vendorCost?: string | null };
  async function actorMetrics(connectionId: string, provider: SpendProvider, rows: ActorMetric[]) {
    await db
      .insertInto('spend_actor_metrics')
      .values(
        rows.map((m) => ({
          account_id: auth.accountId,
          connection_id: connectionId,
          provider,
          day: m.day,
          actor: m.actor,
          tool: m.tool ?? '',
          model: m.model ?? '',
          uncached_input_tokens: m.u ?? null,
          cache_read_tokens: m.cr ?? null,
          cache_write_tokens: m.cw ?? null,
          output_tokens: m.o ?? null,
          vendor_cost_cents: m.vendorCost ?? null,
        })),
      )
      .execute();
  }

  return { accountId: auth.accountId, api, expectOk, connection, buckets, costs, invoice, actorMetrics };
}

/** Finds the row of `model` in a usage report's byModel. */
export function modelRow(report: any, model: string) {
  const row = report.byModel.find((m: any) => m.model === model);
  assert.ok(row, `byModel has ${model}: ${JSON.stringify(report.byModel.map((m: any) => m.model))}`);
  return row;
}
