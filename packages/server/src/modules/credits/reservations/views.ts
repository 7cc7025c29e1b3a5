import { dec } from '../../../platform/money.js';
import type { ReservationRow } from './repo.js';

export const toReservation = (r: ReservationRow) => ({
  id: r.id,
  status: r.status,
  customerId: r.customer_id,
  subscriptionId: r.subscription_id,
  denomination: r.denomination,
  flowId: r.flow_id,
  idempotencyKey: r.idempotency_key,
  amountRequested: dec(r.amount_requested),
  amountHeld: dec(r.amount_held),
  captureRequested: r.capture_requested === null ? null : dec(r.capture_requested),
  amountCaptured: r.amount_captured === null ? null : dec(r.amount_captured),
  uncoveredCredits: r.capture_requested === null || r.amount_captured === null ? null : dec(r.capture_requested).minus(dec(r.amount_captured)),
  eventId: r.event_id,
  expiresAt: r.expires_at,
  settledAt: r.settled_at,
  metadata: r.metadata,
  createdAt: r.created_at,
});

export type Reservation = ReturnType<typeof toReservation>;
