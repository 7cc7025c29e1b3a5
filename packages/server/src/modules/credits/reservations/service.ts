import { createHash } from 'node:crypto';
import type { AppContext } from '../../../platform/context.js';
import type { Executor, Tx } from '../../../platform/db/database.js';
import { isUniqueViolation, UNIQUE_CONSTRAINTS } from '../../../platform/db/errors.js';
import { toJsonb } from '../../../platform/db/jsonb.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { recordEvent } from '../../../platform/events/outbox.js';
import { JobItems } from '../../../platform/jobs/items.js';
import { AppError, conflict, invalidField, notFound } from '../../../platform/errors/app-error.js';
import { stringifyJson } from '../../../platform/http/json.js';
import type { Principal } from '../../../platform/http/principal.js';
import { newId } from '../../../platform/ids.js';
import { dec, roundCredits, type Decimal } from '../../../platform/money.js';
import { listCustomerSubscriptions } from '../../billing/index.js';
import { resolveCallerCustomer } from '../../customers/index.js';
import type { CreditDrawInput, CreditReceipt } from '../draw.js';
import { coveredUsage } from '../domain.js';
import { resolveWeight } from '../tariff/service.js';
import { holdSecondsOf } from './domain.js';
import { applyHold, HoldRefused, planHold, settle, type Outcome } from './ledger.js';
import { recordRefusalAlone } from '../events.js';
import * as repo from './repo.js';
import type { ReservationCreate } from './schema.js';
import { toReservation, type Reservation } from './views.js';

const MAX_METADATA_BYTES = 8 * 1024;
const requestHash = (body: unknown) => createHash('sha256').update(stringifyJson(body)).digest('hex');

type HoldInput = {
  accountId: string;
  customerId: string;
  subscriptionId: string;
  denomination: string;
  amount: Decimal;
  holdSeconds: number;
  flowId: string | null;
  featureId: string | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  metadata: Record<string, unknown>;
  now: Date;
};

/**
 * One transaction: lock the linked pools, plan the hold, insert the reservation, book its HOLD rows.
 * A refused hold rolls back; then its pools' credits.depleted is recorded in a transaction of its own.
 */
async function hold(ctx: AppContext, input: HoldInput) {
  try {
    return await holdOnce(ctx, input);
  } catch (err) {
    if (err instanceof HoldRefused) await recordRefusalAlone(ctx.db, input.accountId, err.poolIds, err.requestedCredits, input.now);
    throw err;
  }
}

function holdOnce(ctx: AppContext, input: HoldInput) {
  return withTransaction(ctx.db, async (tx) => {
    const plan = await planHold(tx, input);
    const row = await repo.insertReservation(tx, {
      id: newId(),
      account_id: input.accountId,
      customer_id: input.customerId,
      subscription_id: input.subscriptionId,
      denomination: input.denomination,
      flow_id: input.flowId,
      feature_id: input.featureId,
      idempotency_key: input.idempotencyKey,
      request_hash: input.requestHash,
      status: 'HELD',
      amount_requested: roundCredits(input.amount).toFixed(),
      amount_held: plan.held.toFixed(),
      capture_requested: null,
      amount_captured: null,
      event_id: null,
      expires_at: new Date(input.now.getTime() + input.holdSeconds * 1000),
      settled_at: null,
      metadata: toJsonb(input.metadata),
      created_at: input.now,
    });
    await applyHold(tx, plan, row, input.now);
    return toReservation(row);
  });
}

/** The customer's active subscription the hold draws through: the newest, as entitlement checks pick it. */
async function activeSubscriptionOf(db: Executor, accountId: string, customerId: string) {
  const active = (await listCustomerSubscriptions(db, accountId, customerId)).filter((s) => s.is_active);
  const newest = active[active.length - 1];
  if (!newest) throw conflict('Customer has no active subscription to hold credits through');
  return newest;
}

function replayOrConflict(existing: repo.ReservationRow, hash: string, key: string) {
  if (existing.request_hash !== hash) throw new AppError('idempotency_conflict', `idempotencyKey '${key}' was already used with a different request body`);
  return { reservation: toReservation(existing), replayed: true };
}

/**
 * POST /client/credits/reservations: holds `amount` credits on the customer's active subscription's
 * pools in `denomination` until captured, released or expired. Idempotent by the client's key.
 */
export async function createReservation(ctx: AppContext, principal: Principal, input: ReservationCreate): Promise<{ reservation: Reservation; replayed: boolean }> {
  if (input.metadata && Buffer.byteLength(toJsonb(input.metadata)) > MAX_METADATA_BYTES) throw invalidField('metadata', 'Reservation metadata too large (max ~8KB)');
  const customer = await resolveCallerCustomer(ctx.db, principal, input.customerReferenceId);
  const hash = requestHash({ ...input, customerReferenceId: customer.customer_reference_id });
  const existing = await repo.findReservationByKey(ctx.db, principal.accountId, input.idempotencyKey);
  if (existing) return replayOrConflict(existing, hash, input.idempotencyKey);
  const subscription = await activeSubscriptionOf(ctx.db, principal.accountId, customer.id);
  try {
    const reservation = await hold(ctx, {
      accountId: principal.accountId,
      customerId: customer.id,
      subscriptionId: subscription.id,
      denomination: input.denomination,
      amount: input.amount,
      holdSeconds: holdSecondsOf(input.holdSeconds, ctx.config.credits.reservationMaxHoldSeconds),
      flowId: input.flowId ?? null,
      featureId: null,
      idempotencyKey: input.idempotencyKey,
      requestHash: hash,
      metadata: input.metadata ?? {},
      now: ctx.clock.now(),
    });
    return { reservation, replayed: false };
  } catch (err) {
    if (isUniqueViolation(err, UNIQUE_CONSTRAINTS.creditReservationKey)) {
      return replayOrConflict((await repo.findReservationByKey(ctx.db, principal.accountId, input.idempotencyKey))!, hash, input.idempotencyKey);
    }
    if (isUniqueViolation(err, UNIQUE_CONSTRAINTS.creditReservationOpenFlow)) throw conflict(`Flow '${input.flowId}' already has an open credit reservation`);
    throw err;
  }
}

type FlowHoldInput = {
  accountId: string;
  customerId: string;
  subscriptionId: string;
  denomination: string;
  featureId: string;
  flowId: string;
  amount: Decimal;
};

/**
 * Evaluate with `reserve: true`: holds the quoted credits under the flow. A flow that already has an
 * open hold gets it back (a retried evaluate holds nothing twice). Throws insufficient_credits when
 * a hard-limit pool cannot cover the quote at the moment of the hold.
 */
export async function reserveForFlow(ctx: AppContext, input: FlowHoldInput): Promise<Reservation> {
  const open = await repo.findHeldByFlow(ctx.db, input.accountId, input.flowId);
  if (open) return toReservation(open);
  try {
    return await hold(ctx, {
      ...input,
      holdSeconds: holdSecondsOf(undefined, ctx.config.credits.reservationMaxHoldSeconds),
      idempotencyKey: null,
      requestHash: null,
      metadata: {},
      now: ctx.clock.now(),
    });
  } catch (err) {
    if (!isUniqueViolation(err, UNIQUE_CONSTRAINTS.creditReservationOpenFlow)) throw err;
    const raced = await repo.findHeldByFlow(ctx.db, input.accountId, input.flowId);
    if (!raced) throw err;
    return toReservation(raced);
  }
}

/** The reservation if the caller may see it: the account's own, and a customer key's own customer's. */
function visible(r: repo.ReservationRow | undefined, principal: Principal, id: string): repo.ReservationRow {
  if (!r || (principal.kind === 'customer' && r.customer_id !== principal.customerId)) throw notFound(`Credit reservation not found: ${id}`);
  return r;
}

export async function getReservation(ctx: AppContext, principal: Principal, id: string) {
  return toReservation(visible(await repo.findReservation(ctx.db, principal.accountId, id), principal, id));
}

const closedMessage = (r: repo.ReservationRow) =>
  r.status === 'CAPTURED'
    ? `Credit reservation ${r.id} was already captured with ${r.capture_requested} credits`
    : `Credit reservation ${r.id} was already ${r.status === 'EXPIRED' ? 'expired' : 'released'}`;

/** Settles a locked HELD reservation and closes it with the outcome. */
async function close(tx: Tx, r: repo.ReservationRow, outcome: Outcome, capture: Decimal | null, now: Date, eventId: string | null) {
  const s = await settle(tx, r, outcome, capture ?? dec(0), now, eventId);
  const row = await repo.closeReservation(tx, r.account_id, r.id, {
    status: outcome,
    settled_at: now,
    ...(outcome === 'CAPTURED' ? { capture_requested: capture!.toFixed(), amount_captured: s.captured.toFixed(), event_id: eventId } : {}),
  });
  // reservation.expired (api-contract-events.md §E5.7): recorded in the closing transaction, whichever
  // path finds the hold past its expiry (the job, a late capture or release, the flow's event); the
  // row lock and the HELD status make it once per reservation.
  if (outcome === 'EXPIRED') await recordEvent(tx, { accountId: r.account_id, type: 'reservation.expired', object: toReservation(row), now });
  return { row, settlement: s };
}

/**
 * Capture: consumes `amount` credits and releases the rest of the hold. Idempotent: the same amount
 * again answers the captured reservation; another amount, or a released or expired reservation, is
 * 409 reservation_closed. A hold past its expiry that the job has not yet released is expired here
 * (committed) and answered 409 too: an expired hold never becomes a charge.
 */
export async function captureReservation(ctx: AppContext, principal: Principal, id: string, amount: Decimal) {
  const now = ctx.clock.now();
  const result = await withTransaction(ctx.db, async (tx) => {
    const r = visible(await repo.lockReservation(tx, principal.accountId, id), principal, id);
    if (r.status === 'CAPTURED' && dec(r.capture_requested!).eq(amount)) return { row: r, closed: false };
    if (r.status !== 'HELD') return { row: r, closed: true };
    if (r.expires_at <= now) return { row: (await close(tx, r, 'EXPIRED', null, now, null)).row, closed: true };
    return { row: (await close(tx, r, 'CAPTURED', amount, now, null)).row, closed: false };
  });
  if (result.closed) throw new AppError('reservation_closed', closedMessage(result.row));
  return toReservation(result.row);
}

/**
 * Release: gives every held credit back. Idempotent: a released or expired reservation answers as it
 * is; a captured one is 409 reservation_closed (its unused part was released by the capture).
 */
export async function releaseReservation(ctx: AppContext, principal: Principal, id: string) {
  const now = ctx.clock.now();
  const row = await withTransaction(ctx.db, async (tx) => {
    const r = visible(await repo.lockReservation(tx, principal.accountId, id), principal, id);
    if (r.status === 'CAPTURED') throw new AppError('reservation_closed', closedMessage(r));
    if (r.status !== 'HELD') return r;
    return (await close(tx, r, r.expires_at <= now ? 'EXPIRED' : 'RELEASED', null, now, null)).row;
  });
  return toReservation(row);
}

/**
 * Expiry job: every HELD reservation past its expiry is released (EXPIRED), each in its own
 * transaction; one that fails is skipped and reported (platform/jobs/items.ts).
 */
export async function expireDueReservations(ctx: AppContext, now: Date) {
  const items = new JobItems();
  await items.each('credit reservation', (after) => repo.expiredReservations(ctx.db, now, after), (item) =>
    withTransaction(ctx.db, async (tx) => {
      const r = await repo.lockReservation(tx, item.account_id, item.id);
      if (!r || r.status !== 'HELD' || r.expires_at > now) return;
      await close(tx, r, 'EXPIRED', null, now, null);
    }),
  );
  items.finish();
}

/** Whether the flow has an open hold: a lock-free read before the ingestion transaction. */
export async function flowHasOpenHold(db: Executor, accountId: string, flowId: string): Promise<boolean> {
  return (await repo.findHeldByFlow(db, accountId, flowId)) !== undefined;
}

/**
 * Many-event ingestion (ADR 0018): locks the open holds of the events' flows, after the counter
 * locks and before any pool lock (the order every settlement uses), and returns the flows that
 * have one; each such event then goes through `captureForEvent` in its turn.
 */
export async function lockFlowHolds(tx: Tx, accountId: string, flowIds: string[]): Promise<Set<string>> {
  return new Set(await repo.lockHeldByFlows(tx, accountId, [...new Set(flowIds)].sort()));
}

/**
 * Inside the ingestion transaction (after the counter lock, before any pool lock): when the event's
 * flow has an open hold on the same subscription and denomination, the event's charge (units ×
 * weight at the clamped occurredAt, rounded once) captures it instead of a plain draw. Null: no such
 * hold, and the caller draws as usual. A hold found past its expiry is expired here first.
 */
export async function captureForEvent(tx: Tx, input: CreditDrawInput & { flowId: string }): Promise<CreditReceipt | null> {
  if (!input.denomination || !input.featureId || !input.subscriptionId) return null;
  const r = await repo.lockHeldByFlow(tx, input.accountId, input.flowId);
  if (!r || r.subscription_id !== input.subscriptionId || r.denomination !== input.denomination) return null;
  if (r.expires_at <= input.now) {
    await close(tx, r, 'EXPIRED', null, input.now, null);
    return null;
  }
  const weight = input.weight ?? (await resolveWeight(tx, input.accountId, input.featureId, input.model, input.occurredAt));
  const charge = roundCredits(input.units.times(weight.weight));
  const { settlement } = await close(tx, r, 'CAPTURED', charge, input.now, input.eventId);
  return {
    creditsDeducted: settlement.captured,
    weightApplied: weight.weight,
    weightId: weight.weightId,
    weightMatch: weight.weightMatch,
    remainingBalance: settlement.remainingBalance,
    usageCovered: coveredUsage(settlement.captured, weight.weight),
  };
}
