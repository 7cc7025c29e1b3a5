import { sql, type RawBuilder } from 'kysely';
import type { Tx } from '../../platform/db/database.js';
import { recordEvent } from '../../platform/events/outbox.js';
import { defineExtension } from '../../platform/hooks.js';
import { dec, type Decimal } from '../../platform/money.js';

/**
 * usage.threshold_reached (api-contract-events.md §E5.8). The account's usageThresholdPercents come
 * with the ingestion context (a SQL fragment over the account id column, provided by the settings
 * module at startup; no round trip of its own, as `usage_recorded_wanted`). An event whose context
 * has percents and a limited rule goes through the transactional path; there, under the counter's
 * row lock, each counted event that takes `used` across a percent is a crossing, and a mark per
 * (subscription, feature, window start, percent) makes its event once per key.
 */
export const usageThresholdPercents = defineExtension(
  'usage.threshold_percents',
  (_accountId: RawBuilder<unknown>): RawBuilder<number[]> => sql<number[]>`'{}'::smallint[]`,
);

/** What one event's crossing check needs, read with its context (null: no thresholds apply). */
export type ThresholdWatch = {
  percents: number[];
  limit: Decimal;
  /** Usage counted outside the event's counter (accumulate mode: the other periods). */
  elsewhere: Decimal;
  subscriptionId: string;
  featureId: string;
  customerReferenceId: string;
  featureKey: string;
  windowStart: Date;
  windowEnd: Date | null;
};

export type Crossing = { watch: ThresholdWatch; percent: number; used: Decimal; eventId: string };

/**
 * The percents an event crosses, ascending: `before × 100 < p × limit ≤ after × 100`, exact decimals.
 * `counterBefore` is its counter's usage before the event (under the lock).
 */
export function crossingsOf(watch: ThresholdWatch, counterBefore: Decimal, units: Decimal, eventId: string): Crossing[] {
  const before = counterBefore.plus(watch.elsewhere);
  const after = before.plus(units);
  return watch.percents
    .filter((p) => before.times(100).lt(watch.limit.times(p)) && after.times(100).gte(watch.limit.times(p)))
    .map((percent) => ({ watch, percent, used: after, eventId }));
}

/** The event's object (§E5.8 "Usage threshold"). */
export const toUsageThreshold = (c: Crossing) => ({
  subscriptionId: c.watch.subscriptionId,
  customerReferenceId: c.watch.customerReferenceId,
  featureKey: c.watch.featureKey,
  percent: c.percent,
  used: c.used,
  limit: c.watch.limit,
  remaining: c.watch.limit.minus(c.used).gt(0) ? c.watch.limit.minus(c.used) : dec(0),
  periodStart: c.watch.windowStart,
  periodEnd: c.watch.windowEnd,
  eventId: c.eventId,
});

/**
 * Records the crossings of a committed-to-be ingestion, in the order given: a mark per key (one
 * statement; a key marked before, by an earlier limit, records nothing), then the event of each new mark.
 */
export async function recordCrossings(tx: Tx, accountId: string, crossings: Crossing[], now: Date): Promise<void> {
  if (crossings.length === 0) return;
  const keyOf = (subscriptionId: string, featureId: string, windowStart: Date, percent: number) => `${subscriptionId}|${featureId}|${windowStart.getTime()}|${percent}`;
  const marked = await tx
    .insertInto('usage_threshold_marks')
    .values(
      crossings.map((c) => ({
        account_id: accountId,
        subscription_id: c.watch.subscriptionId,
        feature_id: c.watch.featureId,
        window_start: c.watch.windowStart,
        percent: c.percent,
        event_id: c.eventId,
        created_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['account_id', 'subscription_id', 'feature_id', 'window_start', 'percent']).doNothing())
    .returning(['subscription_id', 'feature_id', 'window_start', 'percent'])
    .execute();
  const fresh = new Set(marked.map((m) => keyOf(m.subscription_id, m.feature_id, new Date(m.window_start), Number(m.percent))));
  for (const c of crossings) {
    if (!fresh.delete(keyOf(c.watch.subscriptionId, c.watch.featureId, c.watch.windowStart, c.percent))) continue;
    await recordEvent(tx, { accountId, type: 'usage.threshold_reached', object: toUsageThreshold(c), now });
  }
}
