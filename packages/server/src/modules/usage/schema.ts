import { z } from 'zod';
import { queryBoolean } from '../../platform/http/query-schema.js';
import { decimalInput, decimalOutput } from '../../platform/http/decimal-schema.js';
import { ReservationSchema } from '../credits/index.js';

/**
 * Bounds of event inputs (README "Bounds"): one event's units × the largest price per unit
 * (catalog: 1,000,000) is at most 1e15, exact in Decimal; invoice lines are unconstrained NUMERIC sums (migration 0009).
 */
export const MAX_EVENT_UNITS = '1000000000';
/** Largest costAmount / revenueAmount of one event (= max units × max price per unit). */
const MAX_EVENT_AMOUNT = '1000000000000000';
/** Largest inputTokens / outputTokens of one event (bigint columns; × a cost per token ≤ 1e6 stays exact). */
export const MAX_EVENT_TOKENS = 1_000_000_000;

const units = decimalInput({ min: 0, max: MAX_EVENT_UNITS, maxScale: 6, description: 'Units of usage; default 1.' });
const positiveUnits = decimalInput({ min: 0, exclusiveMin: true, max: MAX_EVENT_UNITS, maxScale: 6, description: 'Proposed units; default 1.' });
const eventAmount = (what: string) => decimalInput({ min: 0, max: MAX_EVENT_AMOUNT, maxScale: 12, roundsTo: 6, description: what });
const tokens = z.number().int().min(0).max(MAX_EVENT_TOKENS);
/** A flow id names a flow: empty or blank text names none, so it is refused (omit the field or send null instead). */
const flowId = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => v.trim() !== '', 'must not be empty or blank (omit it, or send null, for no flow)');

export const EventRequestSchema = z.object({
  eventName: z.string().trim().min(1).max(255),
  eventIdempotencyKey: z.string().min(1).max(255).optional(),
  customerReferenceId: z.string().min(1).max(255).optional().describe("Required with a tenant key (400 without it; an unknown reference auto-creates the customer). With a customer key the key's own customer is used and this field is ignored."),
  featureKey: z.string().trim().min(1).max(128),
  usageUnits: units.nullish(),
  occurredAt: z.unknown().optional().describe('ISO 8601 timestamp; never a reason to reject (unparseable means now)'),
  costAmount: eventAmount('Cost (COGS) of the event; default: from the rule cost model.').nullish(),
  revenueAmount: eventAmount('Revenue of the event; default: units × the rule price.').nullish(),
  costInput: z
    .object({
      model: z.string().max(128).nullish(),
      modelProvider: z.string().max(128).nullish(),
      inputTokens: tokens.nullish(),
      outputTokens: tokens.nullish(),
      costUnits: z.unknown().optional().describe('Deprecated: use costAmount and the model fields'),
    })
    .optional(),
  context: z.object({ flowId: flowId(255).nullish() }).passthrough().optional(),
  flowId: flowId(255).nullish(),
  meta: z.record(z.string(), z.unknown()).optional(),
});
export type EventRequest = z.output<typeof EventRequestSchema>;

export const EventReceiptSchema = z.object({
  eventId: z.uuid(),
  eventIdempotencyKey: z.string(),
  usageLimitExceeded: z.boolean().optional(),
  message: z.string().optional(),
  creditsDeducted: decimalOutput.optional(),
  weightApplied: decimalOutput.optional(),
  weightId: z.uuid().nullable().optional(),
  weightMatch: z.string().optional(),
  remainingBalance: decimalOutput.optional(),
});

/** Most events in one batch (POST /events/batch); more is 400. */
export const MAX_BATCH_EVENTS = 1000;
/** Largest batch body: 4 MiB, about 4 KB per event at the maximum count (the app-wide limit is 1 MiB). */
export const BATCH_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

export const EventBatchRequestSchema = z
  .object({
    events: z
      .array(EventRequestSchema)
      .min(1)
      .max(MAX_BATCH_EVENTS)
      .describe('1 … 1,000 events, each exactly as POST /events takes it; applied in this order. A malformed event makes the whole batch 400 (naming events[i].field) and nothing is applied.'),
  });
export type EventBatchRequest = z.output<typeof EventBatchRequestSchema>;

export const EventBatchResultSchema = z
  .object({
    results: z.array(
      z.object({
        index: z.number().int().describe('Position of the event in the request'),
        status: z.enum(['stored', 'duplicate', 'refused']).describe('stored: written (201 alone, or 200 zeroed with usageLimitExceeded); duplicate: its eventIdempotencyKey was already stored, by an earlier request or an earlier event of this batch (409 conflict alone); refused: a hard-limit credit pool could not cover it, nothing written (409 insufficient_credits alone)'),
        eventId: z.uuid().optional().describe('The stored event (for a duplicate: the event stored first under the key)'),
        eventIdempotencyKey: z.string(),
        usageLimitExceeded: z.boolean().optional(),
        creditsDeducted: decimalOutput.optional(),
        weightApplied: decimalOutput.optional(),
        remainingBalance: decimalOutput.optional(),
        error: z.object({ code: z.enum(['conflict', 'insufficient_credits', 'budget_exceeded']).describe('Stable code, as the single-event route answers it (budget_exceeded: the calling key\'s credit budget, 403 alone)'), message: z.string() }).optional(),
      }),
    ),
  })
  .meta({ id: 'EventBatchResult' });
export type EventBatchResult = z.output<typeof EventBatchResultSchema>;

export const EvaluateRequestSchema = z.object({
  customerReferenceId: z.string().min(1).max(128).optional().describe("Required with a tenant key (400 without it). With a customer key it may be omitted (the key's own customer); another customer's reference is 403."),
  featureKey: z.string().min(1).max(128),
  usage: z
    .object({
      usageUnits: positiveUnits.optional(),
      model: z.string().max(128).nullish(),
      eventName: z.string().max(128).optional(),
      meta: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  track: z.object({ usageUnits: positiveUnits.optional(), model: z.string().max(128).nullish() }).optional(),
  context: z.object({ flowId: flowId(128).optional(), idempotencyKey: z.string().max(128).optional() }).optional(),
  reserve: z
    .boolean()
    .optional()
    .describe('Hold the quoted credits under the flow (ADR 0012) until the usage event carrying the same flowId captures them, or the hold expires (300 s). Returned in `reservation`; a repeated evaluate of a flow with an open hold returns that hold.'),
});

const CreditQuoteSchema = z.object({
  weight: decimalOutput,
  estimatedCredits: decimalOutput,
  weightId: z.uuid().nullable(),
  weightMatch: z.enum(['MODEL', 'FEATURE_DEFAULT', 'NONE']),
  pricePerCredit: decimalOutput.nullable(),
  currency: z.string().nullable(),
  estimatedCost: decimalOutput.nullable(),
});

const CreditSummarySchema = z
  .object({
    denomination: z.string(),
    balance: decimalOutput.describe("What the pools can give a draw now: their balances (credits held by reservations are already out), each capped by its link's draw limit; the check's credit limit decision compares the charge with it"),
    totalGranted: decimalOutput.describe("The pools' granted totals"),
    totalConsumed: decimalOutput.describe("The pools' consumed totals (a shared pool's include other subscriptions' draws)"),
    hardLimit: z.boolean().describe('Some pool is hard-limit: a charge above `balance` is refused (CREDIT_LIMIT_REACHED)'),
  })
  .describe("Present when the feature's rule has a credit model and the customer's active subscription has an ACTIVE or DEPLETED pool in its denomination linked (the pools its usage draws from); sums over those pools");

export const EntitlementResultSchema = z
  .object({
    customerReferenceId: z.string().describe('The customer checked (the name every other route uses)'),
    referenceCustomerId: z.string().describe('The same reference under the original system\'s name, kept for its clients'),
    featureKey: z.string(),
    allowed: z.boolean(),
    meta: z.object({ reason: z.object({ code: z.string(), description: z.string() }) }).nullable(),
    flowId: z.string().nullable(),
    usage: z.object({ used: decimalOutput, limit: decimalOutput.optional(), remaining: decimalOutput.optional(), unlimited: z.boolean() }).optional(),
    simulation: z.object({ requestedUsage: decimalOutput, projectedUsage: decimalOutput, projectedRemaining: decimalOutput, wouldExceedLimit: z.boolean() }).optional(),
    credit: CreditSummarySchema.optional(),
    creditQuote: CreditQuoteSchema.optional(),
    reservation: ReservationSchema.nullable().optional().describe('Evaluate with `reserve: true` only: the hold of the quoted credits, null when nothing was held (denied, no credits, zero quote, no pool)'),
  })
  .meta({ id: 'EntitlementResult' });

export const SubscriptionEntitlementsSchema = z
  .object({
    subscriptionId: z.uuid(),
    entitlements: z.array(z.object({ featureKey: z.string(), allowed: z.boolean().describe('The rule is enabled and not revoked for a past-due invoice (limits: check the feature)') })),
  })
  .meta({ id: 'SubscriptionEntitlements' });

export const EntitlementParamsSchema = z.object({ ref: z.string().min(1).max(255), featureKey: z.string().min(1).max(128) });
export const EntitlementQuerySchema = z.object({ record: queryBoolean.default(true).describe('Record an ENTITLEMENT_CHECKED event (default true)') });

export const EventListQuerySchema = z.object({
  customerReferenceId: z.string().min(1).max(255).optional(),
  featureKey: z.string().min(1).max(128).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  eventType: z.enum(['CLIENT_TRACKED', 'ENTITLEMENT_CHECKED']).optional(),
  flowId: z.string().min(1).max(255).optional(),
});

export const EventGroupQuery = EventListQuerySchema.extend({
  groupBy: z.enum(['customer', 'feature', 'eventName', 'model', 'day']).describe('customer (reference), feature (key), eventName, model, or day (UTC, YYYY-MM-DD)'),
});

export const EventGroupsSchema = z
  .object({
    groupBy: z.string(),
    items: z.array(
      z.object({
        key: z.string().nullable().describe('The group: a customer reference, feature key, event name, model (null: none) or UTC day'),
        eventCount: z.number().int(),
        usageUnits: decimalOutput,
        revenueAmount: decimalOutput,
        costAmount: decimalOutput,
      }),
    ),
    truncated: z.boolean().describe('True when there were more than 1,000 groups (the first 1,000 in key order are listed)'),
  })
  .meta({ id: 'EventGroups' });

export const EventOverviewQuerySchema = z.object({
  days: z.coerce.number().int().min(1).max(366).default(30).describe('Whole UTC days in the window, ending with the service\'s current day (default 30)'),
  top: z.coerce.number().int().min(1).max(100).default(5).describe('Features and customers listed, most events first (default 5)'),
  eventType: z.enum(['CLIENT_TRACKED', 'ENTITLEMENT_CHECKED']).optional(),
});

const EventTotalsShape = { eventCount: z.number().int(), usageUnits: decimalOutput, revenueAmount: decimalOutput, costAmount: decimalOutput };

export const EventOverviewSchema = z
  .object({
    from: z.date().describe('Start of the window: 00:00 UTC of its first day'),
    to: z.date().describe('End of the window (exclusive): 00:00 UTC after the service\'s current day'),
    days: z.array(z.object({ day: z.string().describe('UTC day, YYYY-MM-DD'), ...EventTotalsShape })).describe('Every day of the window, oldest first; a day without events has zeros'),
    topFeatures: z.array(z.object({ key: z.string(), ...EventTotalsShape })).describe('Most events first, then key'),
    topCustomers: z.array(z.object({ key: z.string().describe('Customer reference'), ...EventTotalsShape })).describe('Most events first, then reference'),
  })
  .meta({ id: 'EventOverview' });

export const StoredEventSchema = z.object({
  id: z.uuid(),
  eventName: z.string(),
  eventIdempotencyKey: z.string(),
  eventType: z.string(),
  customerReferenceId: z.string(),
  featureKey: z.string(),
  subscriptionId: z.uuid().nullable(),
  usageUnits: decimalOutput,
  revenueAmount: decimalOutput,
  costAmount: decimalOutput.nullable(),
  model: z.string().nullable(),
  modelProvider: z.string().nullable(),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  flowId: z.string().nullable(),
  occurredAt: z.date(),
  ingestedAt: z.date(),
  context: z.record(z.string(), z.unknown()),
});

export const UsageReportSchema = z
  .object({
    customerReferenceId: z.string(),
    asOf: z.date(),
    subscriptions: z.array(
      z.object({
        subscriptionId: z.uuid(),
        planKey: z.string(),
        currentPeriodStart: z.date(),
        currentPeriodEnd: z.date(),
        features: z.array(
          z.object({
            featureKey: z.string(),
            used: decimalOutput,
            limit: decimalOutput.optional(),
            remaining: decimalOutput.optional(),
            projectedEndOfPeriod: decimalOutput.optional().describe('used ÷ elapsed share of the period (4 dp); absent before 5 % has elapsed'),
            wouldExceedLimit: z.boolean().optional(),
          }),
        ),
      }),
    ),
    creditPools: z.array(
      z.object({
        poolId: z.uuid(),
        denomination: z.string(),
        balance: decimalOutput,
        totalConsumed: decimalOutput,
        averageDailyBurn: decimalOutput.optional(),
        projectedDepletionDate: z.date().optional(),
        pricePerCredit: decimalOutput.optional(),
        currency: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'UsageReport' });

const usageWindowQuery = {
  from: z.iso.datetime({ offset: true }).describe('Start of the window, inclusive (ISO 8601 timestamp)'),
  to: z.iso.datetime({ offset: true }).describe('End of the window, exclusive (ISO 8601 timestamp)'),
  featureKey: z.string().min(1).max(128).optional().describe('Only this feature (exact key); an unknown key matches nothing'),
};

/** GET …/usage/events: `to` defaults to now, `from` to `to` − 90 days; at most 366 days (contract agent-v2 §6.1). */
export const UsageEventsQuerySchema = z.object({
  from: usageWindowQuery.from.optional().describe('Start of the window, inclusive; default `to` − 90 days'),
  to: usageWindowQuery.to.optional().describe('End of the window, exclusive; default now'),
  featureKey: usageWindowQuery.featureKey,
});

/** GET …/usage/history: `from` and `to` required; at most 366 days (contract agent-v2 §6.2). */
export const UsageHistoryQuerySchema = z.object({
  ...usageWindowQuery,
  subscriptionId: z.uuid().optional().describe('Only events counted against this subscription'),
});

export const CustomerUsageEventSchema = z
  .object({
    id: z.uuid(),
    eventIdempotencyKey: z.string().describe('The key the event was stored under (the generated one when the client sent none)'),
    eventName: z.string(),
    featureKey: z.string(),
    subscriptionId: z.uuid().nullable().describe('Null when the event counted against no subscription'),
    usageUnits: decimalOutput.describe('Units as stored (an event sent without units counts 1; an event over max_usage is stored with 0)'),
    usageUnitType: z.string().nullable().describe("The unit of the rule the event's plan has for its feature, else null"),
    occurredAt: z.date(),
  })
  .meta({ id: 'CustomerUsageEvent' });

export const CustomerUsageHistorySchema = z
  .object({
    customerReferenceId: z.string(),
    from: z.date(),
    to: z.date(),
    usage: z.array(
      z.object({
        subscriptionId: z.uuid().nullable(),
        planKey: z.string().nullable().describe('Null when the events carried no subscription'),
        featureKey: z.string(),
        eventName: z.string(),
        usageUnits: decimalOutput.describe('Σ units of the events'),
        events: z.number().int().describe('How many events'),
        firstOccurredAt: z.date(),
        lastOccurredAt: z.date(),
      }),
    ),
  })
  .meta({ id: 'CustomerUsageHistory' });
