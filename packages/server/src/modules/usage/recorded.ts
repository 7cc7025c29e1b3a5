import type { Executor } from '../../platform/db/database.js';
import { defineDomainEvent, defineExtension } from '../../platform/hooks.js';
import type { Decimal } from '../../platform/money.js';

/**
 * Usage's domain event (platform/hooks.ts), emitted inside the ingestion transaction of an event
 * counted against a subscription, so a subscriber's writes (the payments module's meter outbox)
 * commit with the event or not at all. `billableUnits` is the usage credits did not cover.
 */
export type UsageRecorded = {
  accountId: string;
  eventId: string;
  customerId: string;
  subscriptionId: string;
  featureId: string;
  featureKey: string;
  billableUnits: Decimal;
  occurredAt: Date;
  now: Date;
};
export const usageRecorded = defineDomainEvent<UsageRecorded>('usage.usage_recorded');

/**
 * Whether an account's counted events need `usage_recorded` at all. Asked before the one-statement
 * ingestion path, outside any lock: an account nobody listens for keeps that path (one statement,
 * the counter row locked for one round trip), instead of a transaction that holds the hot counter
 * row across the subscribers' writes. Payments provides it (PROCESSOR_INTEGRATION accounts only).
 */
export const usageRecordedWanted = defineExtension('usage.usage_recorded_wanted', async (_db: Executor, _accountId: string): Promise<boolean> => false);
