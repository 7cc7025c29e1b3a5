import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { withStatement } from '../../platform/db/transaction.js';
import { dec } from '../../platform/money.js';
import type { UsageRecorded } from '../usage/index.js';
import { connectedProcessor } from './connection.js';
import { toMeterValue } from './domain.js';
import { isAlreadyExistsError, isInvalidRequestError, processorMessage, type Processor } from './processor/stripe.js';
import * as repo from './repo.js';

/**
 * Usage to the processor's meters (PROCESSOR_INTEGRATION, contract §5.4): an outbox row per usage
 * event with billable units (not covered by credits) is written in the event's own ingestion
 * transaction (usage's `usage_recorded` domain event), and the `stripe-meter-sync` job sends PENDING
 * rows with `identifier` = our event id. The processor refuses a second event with one identifier,
 * so a resend after a lost answer never counts twice; a failure leaves the row PENDING for the next
 * run, so a processor outage loses nothing.
 */

/** Meter event names: one meter per feature, `tally_<feature key>`. */
export const meterEventName = (featureKey: string) => `tally_${featureKey.replace(/[^A-Za-z0-9_]/g, '_')}`;

/** The usage_recorded subscriber: queues the event when the account's processor drives billing. */
export function queueMeterEvent(tx: Tx, event: UsageRecorded): Promise<void> {
  return repo.queueMeterEvent(tx, {
    accountId: event.accountId, eventId: event.eventId, customerId: event.customerId, featureId: event.featureId,
    eventName: meterEventName(event.featureKey), units: event.billableUnits.toFixed(), occurredAt: event.occurredAt, now: event.now,
  });
}

const BATCH = 200;

/** The job: every account with PENDING rows, oldest rows first; one account's outage stops only its run. */
export async function runMeterSync(ctx: AppContext): Promise<void> {
  for (const accountId of await repo.accountsWithPendingMeterEvents(ctx.db)) {
    const processor = await connectedProcessor(ctx, accountId);
    if (!processor) continue;
    await syncAccount(ctx, accountId, processor);
  }
}

async function syncAccount(ctx: AppContext, accountId: string, processor: Processor): Promise<void> {
  const meters = new Set<string>();
  let after: string | null = null;
  for (;;) {
    const rows = await repo.pendingMeterEvents(ctx.db, accountId, after, BATCH);
    if (rows.length === 0) return;
    for (const row of rows) {
      after = row.event_id;
      const outcome = await send(ctx, processor, row, meters);
      const now = ctx.clock.now();
      if (outcome === 'sent') await withStatement(ctx.db, (db) => repo.markMeterEventSent(db, accountId, row.event_id, now));
      else await withStatement(ctx.db, (db) => repo.markMeterEventFailed(db, accountId, row.event_id, outcome.error));
      // Stripe unreachable or failing: the rest waits for the next run instead of failing one by one.
      if (outcome !== 'sent' && outcome.retryLater) return;
    }
  }
}

type SendOutcome = 'sent' | { error: string; retryLater: boolean };

async function send(ctx: AppContext, processor: Processor, row: repo.MeterEventRow, meters: Set<string>): Promise<SendOutcome> {
  const value = toMeterValue(dec(row.units));
  if (value === 0) return 'sent';
  const link = await repo.findProcessorCustomer(ctx.db, row.account_id, row.customer_id);
  if (!link) return { error: 'the customer has no Stripe customer', retryLater: false };
  try {
    if (!meters.has(row.event_name)) {
      await ensureMeter(processor, row.account_id, row.event_name);
      meters.add(row.event_name);
    }
    await processor.sendMeterEvent(
      { eventName: row.event_name, identifier: row.event_id, timestampSeconds: Math.floor(row.created_at.getTime() / 1000), customer: link.processor_customer_id, value },
      `tally-meter-event-${row.event_id}`,
    );
    return 'sent';
  } catch (err) {
    // Sent before, its answer lost: the processor kept the first one.
    if (isAlreadyExistsError(err)) return 'sent';
    const retryLater = !isInvalidRequestError(err);
    return { error: processorMessage(err).slice(0, 500), retryLater };
  }
}

/** The feature's meter id, the meter created on first need (the create is keyed by its event name). */
export async function ensureMeter(processor: Processor, accountId: string, eventName: string): Promise<string> {
  return (await processor.findMeter(eventName)) ?? processor.createMeter(eventName, `tally-meter-${accountId}-${eventName}`);
}
