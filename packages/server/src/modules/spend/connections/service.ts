import type { AppContext } from '../../../platform/context.js';
import { uniqueViolationOf } from '../../../platform/db/errors.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { AppError, invalid, notFound } from '../../../platform/errors/app-error.js';
import { newId } from '../../../platform/ids.js';
import {
  duplicateLabelMessage,
  keyHintOf,
  newConnectionOf,
  replacementKeyOf,
  type CreateConnectionInput,
} from './domain.js';
import * as repo from './repo.js';
import type { ConnectionRow } from './repo.js';
import { clientFor, sealContext } from './client.js';
import { enforceAccountBudgets } from '../gateway/service.js';
import { assertOutboundUrl, outboundPolicyOf } from '../../../platform/http/outbound-guard.js';
import { VendorError, type VendorClient } from '../vendors/index.js';

/**
 * Vendor connections (contract §7.2). The admin key is sealed bound to its row and field; create,
 * probe and sync call the vendor outside any transaction and record the outcome after: ACTIVE with
 * lastError cleared, or ERROR with the vendor's message and 502 vendor_error carrying the
 * connection (a created connection persists either way, so its key can be replaced).
 */

const LABEL_INDEX = 'spend_connections_label_key';

/** The connection as the API shows it (the key only as its last 4 characters). */
export type ConnectionView = {
  id: string;
  provider: ConnectionRow['provider'];
  label: string;
  keyHint: string;
  scope: string | null;
  status: ConnectionRow['status'];
  lastError: string | null;
  lastSyncedAt: Date | null;
  syncChunksDone: number | null;
  syncChunksTotal: number | null;
  createdAt: Date;
};

export function toConnectionView(row: ConnectionRow): ConnectionView {
  return {
    id: row.id,
    provider: row.provider,
    label: row.label,
    keyHint: row.key_hint,
    scope: row.scope,
    status: row.status,
    lastError: row.last_error,
    lastSyncedAt: row.last_synced_at,
    syncChunksDone: row.sync_chunks_done,
    syncChunksTotal: row.sync_chunks_total,
    createdAt: row.created_at,
  };
}

export async function listConnections(ctx: AppContext, accountId: string): Promise<ConnectionView[]> {
  return (await repo.listLiveConnections(ctx.db, accountId)).map(toConnectionView);
}

/** A live connection of the account; another account's id or a deleted one is 404. */
export async function getConnectionRow(ctx: AppContext, accountId: string, id: string): Promise<ConnectionRow> {
  const row = await repo.findLiveConnection(ctx.db, accountId, id);
  if (!row) throw notFound(`Connection ${id} not found`);
  return row;
}

/** Creates the connection, then probes the vendor: 201, or 502 vendor_error carrying the (ERROR) connection. */
export async function createConnection(ctx: AppContext, accountId: string, input: CreateConnectionInput): Promise<ConnectionView> {
  const connection = newConnectionOf(input);
  if (connection.provider === 'LITELLM') await assertOutboundUrl('scope', connection.scope!, outboundPolicyOf(ctx.config));
  const id = newId();
  const now = ctx.clock.now();
  const row = await withTransaction(ctx.db, async (tx) => {
    if (await repo.liveLabelExists(tx, accountId, connection.provider, connection.label)) throw invalid(duplicateLabelMessage(connection.provider, connection.label));
    try {
      return await repo.insertConnection(tx, {
        id,
        account_id: accountId,
        provider: connection.provider,
        label: connection.label,
        admin_key_sealed: ctx.secrets.seal(connection.adminKey, sealContext(accountId, id)),
        key_hint: keyHintOf(connection.adminKey),
        scope: connection.scope,
        status: 'ACTIVE',
        created_at: now,
        modified_at: now,
      });
    } catch (err) {
      // Two creates with the same label at once: the partial unique index decides.
      if (uniqueViolationOf(err)?.constraint === LABEL_INDEX) throw invalid(duplicateLabelMessage(connection.provider, connection.label));
      throw err;
    }
  });
  const outcome = await callVendor(ctx, row, (client) => client.probe());
  if (!outcome.ok) throw vendorRefusal(outcome.message, toConnectionView(outcome.row));
  if (row.provider === 'LITELLM') await enforceAccountBudgets(ctx, accountId);
  return toConnectionView(outcome.row);
}

/** Probes the vendor with the stored key: `{ok: true}`, or 502 vendor_error with `{ok: false, message}`. */
export async function probeConnection(ctx: AppContext, accountId: string, id: string): Promise<{ ok: true; message: null }> {
  const row = await getConnectionRow(ctx, accountId, id);
  const outcome = await callVendor(ctx, row, (client) => client.probe());
  if (!outcome.ok) throw vendorRefusal(outcome.message, { ok: false, message: outcome.message });
  return { ok: true, message: null };
}

/** Swaps the key in place: ACTIVE, lastError cleared, pulled usage kept. */
export async function replaceConnectionKey(ctx: AppContext, accountId: string, id: string, rawKey: string): Promise<ConnectionView> {
  const adminKey = replacementKeyOf(rawKey);
  const row = await withTransaction(ctx.db, async (tx) => {
    if (!(await repo.lockLiveConnection(tx, accountId, id))) throw notFound(`Connection ${id} not found`);
    return repo.updateConnection(tx, accountId, id, {
      admin_key_sealed: ctx.secrets.seal(adminKey, sealContext(accountId, id)),
      key_hint: keyHintOf(adminKey),
      status: 'ACTIVE',
      last_error: null,
      modified_at: ctx.clock.now(),
    });
  });
  if (row!.provider === 'LITELLM') await enforceAccountBudgets(ctx, accountId);
  return toConnectionView(row!);
}

/**
 * Soft delete: the sealed key blanked and every row the connection pulled removed, in one
 * transaction. A LITELLM connection's budgets are then enforced again (at the next LITELLM
 * connection, or recorded as having none); ceilings already on the deleted proxy stay there.
 */
export async function deleteConnection(ctx: AppContext, accountId: string, id: string): Promise<void> {
  const row = await withTransaction(ctx.db, async (tx) => {
    const live = await repo.lockLiveConnection(tx, accountId, id);
    if (!live) throw notFound(`Connection ${id} not found`);
    await repo.deletePulledRows(tx, accountId, id);
    const now = ctx.clock.now();
    await repo.updateConnection(tx, accountId, id, { admin_key_sealed: null, deleted_at: now, modified_at: now });
    return live;
  });
  if (row.provider === 'LITELLM') await enforceAccountBudgets(ctx, accountId);
}

export type VendorOutcome<T> = { ok: true; value: T; row: ConnectionRow } | { ok: false; message: string; row: ConnectionRow };

/**
 * Runs one vendor call (no transaction open) and records its outcome on the connection: ACTIVE
 * with lastError cleared, or ERROR with the vendor's message. Errors that are not the vendor's
 * (programming errors) propagate.
 */
export async function callVendor<T>(ctx: AppContext, row: ConnectionRow, call: (client: VendorClient) => Promise<T>): Promise<VendorOutcome<T>> {
  let value: T;
  try {
    value = await call(clientFor(ctx, row));
  } catch (err) {
    if (!(err instanceof VendorError)) throw err;
    return { ok: false, message: err.message, row: await markConnectionError(ctx, row, err.message) };
  }
  const updated = await repo.updateConnection(ctx.db, row.account_id, row.id, { status: 'ACTIVE', last_error: null, modified_at: ctx.clock.now() });
  return { ok: true, value, row: updated ?? row };
}

export async function markConnectionError(ctx: AppContext, row: ConnectionRow, message: string): Promise<ConnectionRow> {
  const updated = await repo.updateConnection(ctx.db, row.account_id, row.id, { status: 'ERROR', last_error: message, modified_at: ctx.clock.now() });
  return updated ?? row;
}

/** 502 vendor_error with the vendor's message and `data` beside it (the connection, or probe's `{ok:false}`). */
export function vendorRefusal(message: string, data: unknown): AppError {
  return new AppError('vendor_error', message, { data });
}
