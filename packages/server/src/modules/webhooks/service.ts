import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { conflict, invalid, invalidField, notFound } from '../../platform/errors/app-error.js';
import { isEventType, recordEvent } from '../../platform/events/outbox.js';
import { assertOutboundUrl, outboundPolicyOf } from '../../platform/http/outbound-guard.js';
import { toPage, type PageQuery } from '../../platform/http/pagination.js';
import { parseJson } from '../../platform/http/json.js';
import { newId } from '../../platform/ids.js';
import { MAX_ENDPOINTS, MAX_EVENT_TYPES, newSecret, SECRET_OVERLAP_MS, secretHint } from './domain.js';
import * as repo from './repo.js';
import type { DeliveryRow, EndpointRow } from './tables.js';

/** Endpoints, test events, resends and the logs (api-contract-events.md §E2, §E4.4–§E4.6). */

export type EndpointInput = { url?: string | undefined; description?: string | null | undefined; eventTypes?: string[] | null | undefined; enabled?: boolean | undefined };

const endpointNotFound = (id: string) => notFound(`Webhook endpoint not found: ${id}`);
const disabledConflict = (id: string) => conflict(`Webhook endpoint ${id} is disabled — enable it first`);
/** The sealing context ties a sealed secret to its endpoint (a copy to another row does not open). */
const sealContext = (e: { account_id: string; id: string }) => `webhook-endpoint:${e.account_id}:${e.id}`;

/** The endpoint as the API shows it (§E2.3); `secret` only on create and rotate. */
export function toEndpoint(row: EndpointRow, now: Date, secret?: string) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
    failingSince: row.failing_since,
    secretHint: row.secret_hint,
    previousSecretExpiresAt: row.previous_secret_expires_at && row.previous_secret_expires_at > now ? row.previous_secret_expires_at : null,
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
    ...(secret ? { secret } : {}),
  };
}

export function toDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attemptCount: row.attempt_count,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    lastResponseStatus: row.last_response_status,
    lastError: row.last_error,
    resend: row.resend,
    createdAt: row.created_at,
  };
}

/** Trimmed, known, at most 50, duplicates removed keeping the first (§E2.2). */
function normalizeEventTypes(types: string[] | null | undefined): string[] {
  if (!types) return [];
  const trimmed = types.map((t) => t.trim());
  if (trimmed.length > MAX_EVENT_TYPES) throw invalidField('eventTypes', `At most ${MAX_EVENT_TYPES} event types`);
  trimmed.forEach((t, i) => {
    if (!isEventType(t)) throw invalidField(`eventTypes[${i}]`, `Unknown event type '${t}'`);
  });
  return [...new Set(trimmed)];
}

async function checkedUrl(ctx: AppContext, url: string | undefined): Promise<string> {
  const trimmed = url?.trim() ?? '';
  if (trimmed === '') throw invalidField('url', 'A URL is required');
  if (trimmed.length > 2048) throw invalidField('url', 'The URL must be at most 2048 characters');
  await assertOutboundUrl('url', trimmed, outboundPolicyOf(ctx.config));
  return trimmed;
}

export async function createEndpoint(ctx: AppContext, accountId: string, input: EndpointInput) {
  const url = await checkedUrl(ctx, input.url);
  const eventTypes = normalizeEventTypes(input.eventTypes);
  const now = ctx.clock.now();
  const secret = newSecret();
  const id = newId();
  const enabled = input.enabled ?? true;
  const row = await withTransaction(ctx.db, async (tx) => {
    if ((await repo.countEndpoints(tx, accountId)) >= MAX_ENDPOINTS) throw invalid(`An account can have at most ${MAX_ENDPOINTS} webhook endpoints — delete one first`);
    return repo.insertEndpoint(tx, {
      id,
      account_id: accountId,
      url,
      description: input.description ?? null,
      event_types: eventTypes,
      enabled,
      disabled_reason: enabled ? null : 'MANUAL',
      disabled_at: enabled ? null : now,
      failing_since: null,
      secret_sealed: ctx.secrets.seal(secret, sealContext({ account_id: accountId, id })),
      secret_hint: secretHint(secret),
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
      created_at: now,
      modified_at: now,
      deleted_at: null,
    });
  });
  return toEndpoint(row, now, secret);
}

export async function listEndpoints(ctx: AppContext, accountId: string) {
  const now = ctx.clock.now();
  return (await repo.liveEndpoints(ctx.db, accountId)).map((r) => toEndpoint(r, now));
}

export async function getEndpoint(ctx: AppContext, accountId: string, id: string) {
  const row = await repo.findEndpoint(ctx.db, accountId, id);
  if (!row) throw endpointNotFound(id);
  return toEndpoint(row, ctx.clock.now());
}

export async function updateEndpoint(ctx: AppContext, accountId: string, id: string, input: EndpointInput) {
  const url = input.url === undefined ? undefined : await checkedUrl(ctx, input.url);
  const eventTypes = input.eventTypes === undefined ? undefined : normalizeEventTypes(input.eventTypes);
  const now = ctx.clock.now();
  const row = await withTransaction(ctx.db, async (tx) => {
    const current = await repo.lockEndpoint(tx, accountId, id);
    if (!current) throw endpointNotFound(id);
    const enabled = input.enabled ?? current.enabled;
    const toggled = enabled !== current.enabled;
    if (toggled && !enabled) await repo.failPendingDeliveries(tx, accountId, id, 'endpoint disabled');
    return repo.updateEndpoint(tx, accountId, id, {
      ...(url !== undefined ? { url } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(eventTypes !== undefined ? { event_types: eventTypes } : {}),
      ...(toggled ? (enabled ? { enabled, disabled_reason: null, disabled_at: null, failing_since: null } : { enabled, disabled_reason: 'MANUAL' as const, disabled_at: now }) : {}),
      modified_at: now,
    });
  });
  return toEndpoint(row, now);
}

export async function deleteEndpoint(ctx: AppContext, accountId: string, id: string) {
  const now = ctx.clock.now();
  await withTransaction(ctx.db, async (tx) => {
    if (!(await repo.lockEndpoint(tx, accountId, id))) throw endpointNotFound(id);
    await repo.failPendingDeliveries(tx, accountId, id, 'endpoint deleted');
    await repo.updateEndpoint(tx, accountId, id, { deleted_at: now, modified_at: now });
  });
}

/** A new secret; the one before keeps signing for 24 h; an older previous one stops at once (§E2.4). */
export async function rotateSecret(ctx: AppContext, accountId: string, id: string) {
  const now = ctx.clock.now();
  const secret = newSecret();
  const row = await withTransaction(ctx.db, async (tx) => {
    const current = await repo.lockEndpoint(tx, accountId, id);
    if (!current) throw endpointNotFound(id);
    return repo.updateEndpoint(tx, accountId, id, {
      secret_sealed: ctx.secrets.seal(secret, sealContext(current)),
      secret_hint: secretHint(secret),
      previous_secret_sealed: current.secret_sealed,
      previous_secret_expires_at: new Date(now.getTime() + SECRET_OVERLAP_MS),
      modified_at: now,
    });
  });
  return toEndpoint(row, now, secret);
}

/** The secrets of an endpoint in the clear, for signing one attempt. */
export function openSecrets(ctx: AppContext, row: EndpointRow) {
  return {
    current: ctx.secrets.open(row.secret_sealed, sealContext(row)),
    previous: row.previous_secret_sealed ? ctx.secrets.open(row.previous_secret_sealed, sealContext(row)) : null,
  };
}

function pendingDelivery(accountId: string, endpointId: string, event: { id: string; type: string }, now: Date, resend: boolean) {
  return { id: newId(), account_id: accountId, endpoint_id: endpointId, event_id: event.id, event_type: event.type, status: 'PENDING' as const, next_attempt_at: now, resend, created_at: now };
}

/** `webhook.test`: a new event for this endpoint only, whatever its filter (§E2.5). */
export async function sendTest(ctx: AppContext, accountId: string, id: string) {
  const now = ctx.clock.now();
  const delivery = await withTransaction(ctx.db, async (tx) => {
    const endpoint = await repo.lockEndpoint(tx, accountId, id);
    if (!endpoint) throw endpointNotFound(id);
    if (!endpoint.enabled) throw disabledConflict(id);
    const event = await recordEvent(tx, { accountId, type: 'webhook.test', object: { endpointId: id, message: 'Test event from Tally' }, now });
    // Fanned out here, to this endpoint alone: the relay must not send it to the others.
    await repo.claimFanOut(tx, accountId, event.id, now);
    const [row] = await repo.insertDeliveries(tx, [pendingDelivery(accountId, id, event, now, false)]);
    return row!;
  });
  return toDelivery(delivery);
}

/** The same event to the same endpoint again: a new delivery, same bytes (§E4.5). */
export async function resend(ctx: AppContext, accountId: string, endpointId: string, eventId: string) {
  const now = ctx.clock.now();
  const delivery = await withTransaction(ctx.db, async (tx) => {
    const endpoint = await repo.lockEndpoint(tx, accountId, endpointId);
    if (!endpoint) throw endpointNotFound(endpointId);
    const event = await repo.findEvent(tx, accountId, eventId);
    if (!event) throw notFound(`Event not found: ${eventId}`);
    if (!endpoint.enabled) throw disabledConflict(endpointId);
    const [row] = await repo.insertDeliveries(tx, [pendingDelivery(accountId, endpointId, event, now, true)]);
    return row!;
  });
  return toDelivery(delivery);
}

type EventPayload = { id: string; type: string; createdAt: string; accountId: string; data: Record<string, unknown> };
/** An event as the payload itself (§E4.6): the recorded bytes, parsed by the exact codec (amounts stay exact). */
const toEvent = (payload: string) => parseJson(payload) as EventPayload;

export async function listEventPage(ctx: AppContext, accountId: string, f: { type?: string | undefined; since?: Date | undefined; until?: Date | undefined }, page: PageQuery) {
  const { rows, total } = await repo.listEvents(ctx.db, accountId, f, page);
  return toPage(rows.map((r) => toEvent(r.payload)), total, page);
}

export async function getEvent(ctx: AppContext, accountId: string, id: string) {
  const row = await repo.findEvent(ctx.db, accountId, id);
  if (!row) throw notFound(`Event not found: ${id}`);
  return toEvent(row.payload);
}

export async function listDeliveryPage(ctx: AppContext, accountId: string, f: repo.DeliveryFilter, page: PageQuery) {
  const { rows, total } = await repo.listDeliveries(ctx.db, accountId, f, page);
  return toPage(rows.map(toDelivery), total, page);
}

export async function getDelivery(ctx: AppContext, accountId: string, id: string) {
  const row = await repo.findDelivery(ctx.db, accountId, id);
  if (!row) throw notFound(`Delivery not found: ${id}`);
  const attempts = await repo.listAttempts(ctx.db, accountId, id);
  return {
    ...toDelivery(row),
    attempts: attempts.map((a) => ({ number: a.number, startedAt: a.started_at, durationMs: a.duration_ms, responseStatus: a.response_status, responseBody: a.response_body, error: a.error, success: a.success })),
  };
}

