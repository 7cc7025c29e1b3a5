import { sql, type RawBuilder } from 'kysely';
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
 * Whether an account's counted events need `usage_recorded` at all, as a SQL predicate over the
 * account id column: the ingestion context query answers it with the context (no round trip of its
 * own), and the one-statement ingestion path of an event whose context is kept in memory checks it
 * again in its statement. An account nobody listens for keeps that path (one statement, the counter
 * row locked for one round trip), instead of a transaction that holds the hot counter row across
 * the subscribers' writes. Payments provides it (PROCESSOR_INTEGRATION accounts only). The fragment
 * must not depend on anything but the column (its text is part of prepared statements).
 */
export const usageRecordedWanted = defineExtension('usage.usage_recorded_wanted', (_accountId: RawBuilder<unknown>): RawBuilder<boolean> => sql<boolean>`false`);
