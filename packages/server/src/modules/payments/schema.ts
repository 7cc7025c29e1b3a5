import { z } from 'zod';
import { decimalInput, decimalOutput } from '../../platform/http/decimal-schema.js';
import { pageQuerySchema } from '../../platform/http/pagination.js';
import { CustomerRefSchema } from '../customers/index.js';
import type { CheckoutPurpose, CheckoutStatus } from './tables.js';

/** Largest purchase in credits: the credit columns' range (numeric(24,6)). */
const MAX_PURCHASE_CREDITS = '1000000000';

export const StoreApiKeySchema = z.object({
  clientStripeApiKey: z
    .string()
    .trim()
    .max(255)
    .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,}$/, 'must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_test_…, rk_live_…)')
    .describe("The account's Stripe secret key; validated with one Stripe call and stored encrypted"),
});

export const MaskedConnectionSchema = z.object({
  stripeApiKey: z.string().optional().describe('First 4 characters, 12 asterisks, last 4'),
  webhookSecret: z.string().optional(),
});

export const AccountIdParamsSchema = z.object({ accountId: z.uuid() });
export const CheckoutSessionParamsSchema = z.object({ checkoutSessionId: z.uuid() });
export const SubscriptionIdParamsSchema = z.object({ subscriptionId: z.uuid() });

export const SetupIntentSchema = z.object({
  setup_intent_id: z.string(),
  client_secret: z.string(),
  stripe_customer_id: z.string(),
});

export const SetupCheckoutSchema = z
  .object({
    checkoutSessionId: z.uuid().describe('Our checkout session (purpose PAYMENT_METHOD): GET /checkout-sessions/{id} shows it COMPLETED with paymentMethodId once the card is saved'),
    checkoutUrl: z.string().describe("The processor's hosted page where the customer enters the card"),
  })
  .meta({ id: 'SetupCheckout' });

export const SavedPaymentMethodSchema = z
  .object({
    paymentMethodId: z.string(),
    brand: z.string().nullable(),
    last4: z.string().nullable(),
    expMonth: z.number().int().nullable(),
    expYear: z.number().int().nullable(),
  })
  .meta({ id: 'SavedPaymentMethod' });

export const DefaultPaymentMethodSchema = z.object({
  paymentMethodId: z.string().trim().min(1, 'is required').max(255).describe('A Stripe payment method id (pm_…)'),
});

const CHECKOUT_PURPOSES = ['SUBSCRIPTION', 'CREDIT_TOPUP', 'INVOICE', 'PAYMENT_METHOD', 'SPEND_MANDATE'] as const satisfies readonly CheckoutPurpose[];
const CHECKOUT_STATUSES = ['PENDING', 'COMPLETED', 'EXPIRED'] as const satisfies readonly CheckoutStatus[];

export const CheckoutSessionSchema = z.object({
  id: z.uuid(),
  purpose: z
    .enum(CHECKOUT_PURPOSES)
    .describe('PAYMENT_METHOD: a hosted setup checkout that saves a card (no charge); SPEND_MANDATE: the same page where the principal also approves a spend mandate'),
  status: z.enum(CHECKOUT_STATUSES),
  checkoutUrl: z.string().optional(),
  subscriptionId: z.uuid().optional(),
  credits: decimalOutput.optional(),
  paymentMethodId: z.string().optional().describe('PAYMENT_METHOD and SPEND_MANDATE sessions, once COMPLETED: the payment method saved as the default'),
  createdAt: z.date(),
  completedAt: z.date().optional(),
});

/** The console's list of hosted checkouts: paged, newest first, optional filters. */
export const CheckoutSessionListQuerySchema = pageQuerySchema.extend({
  customerReferenceId: CustomerRefSchema.optional().describe("Only this customer's sessions (an unknown reference lists none)"),
  status: z.enum(CHECKOUT_STATUSES).optional(),
  purpose: z.enum(CHECKOUT_PURPOSES).optional(),
});
export type CheckoutSessionListInput = z.output<typeof CheckoutSessionListQuerySchema>;

export const AdminCheckoutSessionSchema = z
  .object({
    id: z.uuid(),
    customerReferenceId: z.string(),
    purpose: z.enum(CHECKOUT_PURPOSES),
    status: z.enum(CHECKOUT_STATUSES),
    amount: decimalOutput.nullable().describe('What the checkout charges, in currency; null when the processor prices it (a subscription checkout)'),
    currency: z.string().nullable(),
    credits: decimalOutput.nullable().describe('Credits a top-up grants'),
    checkoutUrl: z.string().nullable(),
    processorSessionId: z.string().nullable(),
    processorInvoiceId: z.string().nullable(),
    planId: z.uuid().nullable(),
    subscriptionId: z.uuid().nullable(),
    invoiceId: z.uuid().nullable(),
    createdAt: z.date(),
    completedAt: z.date().nullable(),
  })
  .meta({ id: 'AdminCheckoutSession' });

export const PurchaseRequestSchema = z.object({
  customerReferenceId: CustomerRefSchema.optional().describe('Required for tenant keys; a customer key may omit it'),
  creditPoolId: z.uuid(),
  credits: decimalInput({ min: 0, exclusiveMin: true, max: MAX_PURCHASE_CREDITS, maxScale: 6, description: 'Credits to buy' }),
  paymentMethodId: z.string().trim().min(1).max(255).optional().describe("A Stripe payment method id; defaults to the customer's saved one"),
});

export const PurchaseResultSchema = z.object({
  completed: z.boolean(),
  credits: decimalOutput,
  pricePerCredit: decimalOutput,
  amountCharged: decimalOutput,
  currency: z.string(),
  grantId: z.string().optional(),
  paymentIntentId: z.string().optional(),
  checkoutUrl: z.string().optional(),
  checkoutSessionId: z.string().optional(),
  declineReason: z.string().optional(),
});

export const HostedInvoiceSchema = z.object({ url: z.string() });
