import { z } from 'zod';
import { decimalOutput } from '../../platform/http/decimal-schema.js';
import { JsonObjectSchema } from '../../platform/http/json-object-schema.js';
import { CustomerRefSchema } from '../customers/index.js';

export const SubscribeRequestSchema = z.object({
  customerReferenceId: CustomerRefSchema.optional().describe("Required with a tenant key (400 without it). With a customer key it may be omitted (the key's own customer); another customer's reference is 403."),
  planId: z.string().min(1).max(255).optional().describe('Plan uuid, or the plan key. Required unless planKey is sent.'),
  planKey: z.string().min(1).max(255).optional().describe('Plan key; used when planId is absent'),
  paymentMethodId: z.string().min(1).max(255).optional(),
  gracePeriod: z.number().int().min(0).max(365).optional(),
}).meta({ anyOf: [{ required: ['planId'] }, { required: ['planKey'] }] });

export const SubscriptionSchema = z
  .object({
    id: z.uuid(),
    isActive: z.boolean(),
    status: z.enum(['PENDING_PAYMENT', 'ACTIVE', 'CANCEL_SCHEDULED', 'CANCELLED']),
    intervalMonths: z.number().int().nullable(),
    customer: JsonObjectSchema,
    customerReferenceId: z.string(),
    plan: JsonObjectSchema.nullable(),
    gracePeriodDays: z.number().int(),
    currentPeriodStart: z.date(),
    currentPeriodEnd: z.date(),
    billingAnchorDay: z.number().int(),
    cancelMode: z.string().nullable(),
    cancelEffectiveAt: z.date().nullable(),
    cancelledAt: z.date().nullable(),
    scheduledChange: JsonObjectSchema.nullable(),
    metadata: JsonObjectSchema,
  })
  .meta({ id: 'Subscription' });

export const InvoiceSchema = z
  .object({
    id: z.uuid(),
    number: z.string().nullable().describe('<prefix>-<YYYY>-<NNNNNN>, given when the invoice is finalised (leaves PENDING); null for a PENDING or never-finalised VOID invoice'),
    finalizedAt: z.date().nullable().describe('When the invoice was finalised (number given, issuer and customer copied); null while PENDING'),
    customerReferenceId: z.string(),
    status: z.string(),
    type: z.string(),
    amount: decimalOutput,
    currency: z.string(),
    dueDate: z.date(),
    subscriptionId: z.uuid(),
    subscription: SubscriptionSchema.nullable().optional().describe('The invoice subscription, nested as the original API sent it'),
    periodStart: z.date(),
    periodEnd: z.date(),
    paidAt: z.date().nullable(),
    metadata: JsonObjectSchema,
    createdAt: z.date(),
    modifiedAt: z.date(),
    items: z
      .array(
        z.object({
          id: z.uuid(),
          invoiceId: z.uuid(),
          chargeAmount: decimalOutput,
          quantity: decimalOutput.describe('1 for base-price, proration, credit and adjustment lines; the period units for usage'),
          unitPrice: decimalOutput.nullable().describe('≤ 6 dp; null for graduated usage. chargeAmount stays the authoritative line amount'),
          description: z.string(),
          createdAt: z.date(),
          modifiedAt: z.date(),
        }),
      )
      .optional(),
  })
  .meta({ id: 'Invoice' });

export const SubscribeResultSchema = z.object({
  subscription: SubscriptionSchema.nullable(),
  invoice: InvoiceSchema.nullable(),
  checkoutUrl: z.string().nullable(),
  checkoutSessionId: z.string().nullable(),
  /** Set when an off-session charge was declined and a checkout stands in for it. */
  declineReason: z.string().optional(),
});

export const CancelQuerySchema = z.object({
  cancelMode: z.enum(['END_OF_PERIOD', 'IMMEDIATE']).default('END_OF_PERIOD'),
});

export const PlanChangeRequestSchema = z.object({
  changeToPlanId: z.uuid(),
  changeType: z.enum(['UPGRADE', 'DOWNGRADE']),
  paymentMethodId: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe("A paid upgrade's off-session charge uses it instead of the customer's saved default (PAYMENT_PASS_THROUGH; where the processor drives billing it charges the subscription's own method)"),
});

/** A plan change's answer (and its preview's): the subscription after it, and the adjustment invoice when one is raised. */
export const PlanChangeResultSchema = z.object({ subscription: SubscriptionSchema.nullable(), invoice: InvoiceSchema.nullable() });

/** A tenant key's paid upgrade that waits for a person to pay its invoice (api-contract-agent-v2.md §4.8): 202. */
export const PlanChangePendingSchema = z.object({
  status: z.literal('payment_pending'),
  paymentUrl: z.string().describe('The hosted invoice to pay; the plan changes once it is paid'),
  subscription: SubscriptionSchema.nullable().describe('Still on its current plan, the upgrade as its scheduledChange (PENDING)'),
  invoice: InvoiceSchema.nullable().describe("The upgrade's DUE ADJUSTMENT invoice"),
});

export const SubscriptionIdParamsSchema = z.object({ subscriptionId: z.uuid() });
export const InvoiceIdParamsSchema = z.object({ invoiceId: z.uuid() });

export type SubscribeRequest = z.output<typeof SubscribeRequestSchema>;

export const BillingOverviewSchema = z
  .object({
    asOf: z.date().describe("The service's now: the overview's 30-day window ends here"),
    activeSubscriptions: z.number().int().describe('Subscriptions that bill: ACTIVE and CANCEL_SCHEDULED'),
    mrr: z
      .array(z.object({ currency: z.string(), amount: decimalOutput, subscriptions: z.number().int() }))
      .describe('Monthly recurring revenue per currency: Σ plan price ÷ interval months over the subscriptions that bill'),
    pastDueInvoices: z
      .array(z.object({ currency: z.string(), amount: decimalOutput, invoices: z.number().int() }))
      .describe('Invoices past due per currency: PAST_DUE, or DUE with its due date plus the grace period passed'),
  })
  .meta({ id: 'BillingOverview' });
