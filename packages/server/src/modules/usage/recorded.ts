import { defineDomainEvent } from '../../platform/hooks.js';
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
