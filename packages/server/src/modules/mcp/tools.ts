import { z } from 'zod';
import { AppError } from '../../platform/errors/app-error.js';
import { publicBaseUrl } from '../../platform/http/base-url.js';
import { decimalInput } from '../../platform/http/decimal-schema.js';
import { newId } from '../../platform/ids.js';
import { dec } from '../../platform/money.js';
import * as billing from '../billing/index.js';
import * as catalog from '../catalog/index.js';
import * as credits from '../credits/index.js';
import * as customers from '../customers/index.js';
import * as payments from '../payments/index.js';
import * as usage from '../usage/index.js';
import { ADMIN_TOOLS } from './admin-tools.js';
import { firstPage, NoInputSchema, tool, type ToolSpec } from './tool-spec.js';

const optionalRef = customers.CustomerRefSchema.optional().describe("The customer's customerReferenceId. Required with a tenant key; with a customer key omit it (the key's own customer).");
/** The input of a tool about one named customer. */
const customerInput = z.object({ customerReferenceId: customers.CustomerRefSchema });
const units = decimalInput({ min: 0, exclusiveMin: true, max: '1000000000', maxScale: 6, description: 'Proposed units; default 1.' });

// Curated tools (§8.2): tenant and customer keys.

/** A curated tool that spends the customer's money: confirmed by its principal, purchase scope on a customer key. */
const SPENDS_MONEY = { access: 'curated', customerScoped: true, confirm: true, purchase: true, changesState: true } as const;

const curated: ToolSpec[] = [
  tool({
    name: 'listPlans',
    access: 'curated',
    description: 'List the ACTIVE plans with their features, pricing and credit allocations (the catalog). Read-only, free.',
    input: NoInputSchema,
    run: ({ ctx, principal }) => catalog.listActiveCatalogItems(ctx, principal.accountId),
  }),
  tool({
    name: 'getCreditPrices',
    access: 'curated',
    description: 'The credit price in effect now for each credit denomination. Read-only, free.',
    input: NoInputSchema,
    run: ({ ctx, principal }) => credits.listAllPricesInEffect(ctx, principal.accountId),
  }),
  tool({
    name: 'checkEntitlement',
    access: 'curated',
    customerScoped: true,
    description:
      'Check whether the customer may use a feature now, simulating the proposed usage (default 1 unit) against limits and quoting its credit cost. ' +
      'A denial is allowed: false with a reason, not an error. Records the check; spends nothing.',
    input: z.object({
      featureKey: z.string().min(1).max(128).describe('The feature key'),
      usageUnits: units.optional(),
      model: z.string().max(128).optional().describe('The AI model the usage would run on (selects the credit weight)'),
      customerReferenceId: optionalRef,
    }),
    run: ({ ctx, principal }, args) =>
      usage.checkEntitlement(ctx, principal, {
        customerReferenceId: args.customerReferenceId,
        featureKey: args.featureKey,
        evaluate: { units: args.usageUnits ?? dec(1), model: args.model ?? null, flowId: newId() },
        record: true,
      }),
  }),
  tool({
    name: 'getUsageForecast',
    access: 'curated',
    customerScoped: true,
    description: "The customer's current-period usage per feature with its projection to the period end (burndown). Read-only, free.",
    input: z.object({ customerReferenceId: optionalRef }),
    run: ({ ctx, principal }, args) => usage.getUsageReport(ctx, principal, args.customerReferenceId),
  }),
  tool({
    name: 'subscribePlan',
    ...SPENDS_MONEY,
    description:
      "Subscribe the customer to an ACTIVE plan. SPENDS MONEY on a paid plan: the first invoice is charged to the saved card, or the result carries checkoutUrl for a human to pay. " +
      'Needs confirmAction: true after your principal approved it; a customer key needs the purchase scope.',
    input: z.object({
      planId: z.string().min(1).max(255).describe('Plan uuid or plan key'),
      paymentMethodId: z.string().min(1).max(255).optional().describe("A payment method id; default the customer's saved one"),
      customerReferenceId: optionalRef,
    }),
    run: ({ ctx, principal, request }, args) =>
      billing.subscribe(
        ctx,
        principal,
        { planId: args.planId, paymentMethodId: args.paymentMethodId, customerReferenceId: args.customerReferenceId },
        { returnBaseUrl: publicBaseUrl(ctx.config.publicBaseUrl, request) },
      ),
  }),
  tool({
    name: 'purchaseCredits',
    ...SPENDS_MONEY,
    description:
      'Buy credits into one of the customer\'s credit pools at the current price. SPENDS MONEY: credits × price (at least 0.50, within the agent spend cap) is charged to the saved card, ' +
      'or the result carries checkoutUrl for a human to pay. Needs confirmAction: true after your principal approved it; a customer key needs the purchase scope.',
    input: z.object({
      creditPoolId: z.uuid().describe('The credit pool to fill'),
      credits: decimalInput({ min: 0, exclusiveMin: true, max: '1000000000000', maxScale: 6, description: 'Credits to buy' }),
      paymentMethodId: z.string().trim().min(1).max(255).optional().describe("A payment method id; default the customer's saved one"),
      customerReferenceId: optionalRef,
    }),
    run: async ({ ctx, principal, request }, args) =>
      payments.purchaseCredits(
        ctx,
        principal,
        { creditPoolId: args.creditPoolId, credits: args.credits, paymentMethodId: args.paymentMethodId, customerReferenceId: args.customerReferenceId },
        await payments.returnUrls(ctx, request),
      ),
  }),
  tool({
    name: 'getMyBudget',
    access: 'curated',
    description:
      "The calling customer key's budget (api-contract-agent-v2.md §2.8): period, credit and money limits, what was spent in the current window and what is left, " +
      'when the window resets, and whether the alert threshold was crossed. Read-only, free. Customer keys only.',
    input: NoInputSchema,
    run: async ({ ctx, principal }) => {
      if (principal.kind !== 'customer') throw new AppError('validation_failed', 'getMyBudget needs a customer key; tenant keys have no budget');
      return customers.getKeyBudget(ctx.db, principal.accountId, principal.keyId, ctx.clock.now());
    },
  }),
];

// Tenant tools (§8.4): tenant keys only.

const poolInput = customerInput.extend({ poolId: z.uuid() });

const tenant: ToolSpec[] = [
  tool({
    name: 'listFeatures',
    access: 'tenant',
    description: 'List every feature of the catalog. Read-only, free.',
    input: NoInputSchema,
    run: async ({ ctx, principal }) => (await catalog.listAllFeatures(ctx, principal.accountId)).map(catalog.toFeature),
  }),
  tool({
    name: 'getFeature',
    access: 'tenant',
    description: 'One feature by its key. Read-only, free.',
    input: z.object({ featureKey: z.string().min(1).max(128) }),
    run: ({ ctx, principal }, args) => catalog.getFeatureByKey(ctx, principal.accountId, args.featureKey),
  }),
  tool({
    name: 'listCustomerEntitlements',
    access: 'tenant',
    description:
      "A customer's entitlements per active subscription: each linked feature with allowed (false for a disabled rule or while a past-due invoice revokes them). " +
      'Usage and credit limits are not in it: use evaluateEntitlement for one feature. Read-only, free (first 200 subscriptions).',
    input: customerInput,
    run: ({ ctx, principal }, args) => usage.listEntitlementPage(ctx, principal, args.customerReferenceId, firstPage),
  }),
  tool({
    name: 'evaluateEntitlement',
    access: 'tenant',
    description: 'Evaluate a proposed usage of a feature for a customer: entitlement, limit simulation and credit quote. Records the check; spends nothing.',
    input: z.object({ customerReferenceId: customers.CustomerRefSchema, featureKey: z.string().min(1).max(128), requestedUsage: units.optional() }),
    run: ({ ctx, principal }, args) =>
      usage.checkEntitlement(ctx, principal, {
        customerReferenceId: args.customerReferenceId,
        featureKey: args.featureKey,
        evaluate: { units: args.requestedUsage ?? dec(1), model: null, flowId: newId() },
        record: true,
      }),
  }),
  tool({
    name: 'getCustomer',
    access: 'tenant',
    description: 'A customer with its subscriptions. Read-only, free.',
    input: customerInput,
    run: async ({ ctx, principal }, args) =>
      customers.toClientCustomerView(ctx, await customers.resolveCallerCustomer(ctx.db, principal, args.customerReferenceId)),
  }),
  tool({
    name: 'createCustomer',
    access: 'tenant',
    changesState: true,
    description: 'Create a customer with your reference id and e-mail. Free.',
    input: z.object({
      customerReferenceId: z.string().trim().min(1).max(255),
      email: customers.CustomerCreateSchema.shape.email,
      firstName: z.string().max(255).optional(),
      lastName: z.string().max(255).optional(),
    }),
    run: async ({ ctx, principal }, args) => customers.toClientCustomer(await customers.createCustomer(ctx, principal.accountId, args)),
  }),
  tool({
    name: 'updateCustomer',
    access: 'tenant',
    changesState: true,
    description: "Update a customer's e-mail, names or phone number (only the fields sent). Free.",
    input: z.object({
      customerReferenceId: customers.CustomerRefSchema,
      email: customers.CustomerUpdateSchema.shape.email,
      firstName: customers.CustomerUpdateSchema.shape.firstName,
      lastName: customers.CustomerUpdateSchema.shape.lastName,
      phoneNumber: customers.CustomerUpdateSchema.shape.phoneNumber,
    }),
    run: async ({ ctx, principal }, { customerReferenceId, ...changes }) =>
      customers.toClientCustomerView(ctx, await customers.updateCustomer(ctx, principal.accountId, customerReferenceId, changes)),
  }),
  tool({
    name: 'createSubscription',
    access: 'tenant',
    // The contract does not star it, but with a saved card the first invoice is charged at once (§8.3: every spending tool confirms).
    confirm: true,
    changesState: true,
    description:
      "Subscribe a customer to an ACTIVE plan. A paid plan raises a DUE invoice, which MAY SPEND MONEY at once: it is charged to the customer's saved card when a payment processor is connected. " +
      'Needs confirmAction: true after your principal approved it.',
    input: z.object({ customerReferenceId: customers.CustomerRefSchema, planId: z.string().min(1).max(255).describe('Plan uuid or plan key') }),
    run: ({ ctx, principal, request }, args) =>
      billing.subscribe(ctx, principal, { customerReferenceId: args.customerReferenceId, planId: args.planId }, { returnBaseUrl: publicBaseUrl(ctx.config.publicBaseUrl, request) }),
  }),
  tool({
    name: 'cancelSubscription',
    access: 'tenant',
    confirm: true,
    changesState: true,
    description:
      'Cancel a subscription at the period end (default) or immediately (entitlements end now). Charges nothing and refunds nothing. Hard to reverse: needs confirmAction: true.',
    input: z.object({ subscriptionId: z.uuid(), cancelMode: z.enum(['END_OF_PERIOD', 'IMMEDIATE']).default('END_OF_PERIOD') }),
    run: async ({ ctx, principal }, args) => {
      await billing.cancelSubscription(ctx, principal, args.subscriptionId, args.cancelMode);
      return { subscriptionId: args.subscriptionId, cancelMode: args.cancelMode };
    },
  }),
  tool({
    name: 'changeSubscriptionPlan',
    access: 'tenant',
    confirm: true,
    changesState: true,
    description:
      'Move a subscription to another plan: UPGRADE now with a prorated charge, DOWNGRADE at the period end. May spend money: needs confirmAction: true. ' +
      "A paid upgrade moves only once paid: charged to the saved card at once, else the result is { status: 'payment_pending', paymentUrl } (the invoice for a human to pay; the plan changes when it is paid).",
    input: z.object({ subscriptionId: z.uuid(), newPlanId: z.uuid(), changeType: z.enum(['UPGRADE', 'DOWNGRADE']) }),
    run: ({ ctx, principal }, args) => billing.changePlan(ctx, principal, args.subscriptionId, { changeToPlanId: args.newPlanId, changeType: args.changeType }),
  }),
  tool({
    name: 'ingestEvent',
    access: 'tenant',
    changesState: true,
    description:
      "Record a usage event for a customer. BILLS USAGE: its revenue goes on the customer's next invoice and its credits are drawn from the customer's pools (no card is charged now). " +
      'A repeated eventIdempotencyKey is a conflict (nothing recorded twice). Numbers may be sent as strings.',
    input: z.object({
      eventIdempotencyKey: z.string().min(1).max(255),
      eventName: usage.EventRequestSchema.shape.eventName,
      occurredAt: z.string().max(64).optional(),
      customerReferenceId: customers.CustomerRefSchema,
      featureKey: usage.EventRequestSchema.shape.featureKey,
      usageUnits: usage.EventRequestSchema.shape.usageUnits,
      model: z.string().max(128).optional(),
      modelProvider: z.string().max(128).optional(),
      costUnits: z.union([z.string().max(64), z.number()]).optional().describe('Deprecated and ignored, as on REST: send costAmount'),
      costAmount: usage.EventRequestSchema.shape.costAmount,
      revenueAmount: usage.EventRequestSchema.shape.revenueAmount,
    }),
    run: async ({ ctx, principal }, args) => {
      const { model, modelProvider, costUnits, ...event } = args;
      const { receipt } = await usage.ingestEvent(ctx, principal, { ...event, costInput: { model, modelProvider, costUnits } }, undefined);
      return receipt;
    },
  }),
  tool({
    name: 'listCustomerInvoices',
    access: 'tenant',
    description: "A customer's invoices (first 200). Read-only, free.",
    input: customerInput,
    run: ({ ctx, principal }, args) => billing.listCustomerInvoicePage(ctx, principal, args.customerReferenceId, firstPage),
  }),
  tool({
    name: 'markInvoicePaid',
    access: 'tenant',
    confirm: true,
    changesState: true,
    description:
      'Mark a DUE or PAST_DUE invoice as paid outside the processor (activates a pending subscription, restores revoked entitlements, grants plan credits). ' +
      'Moves no money itself: it records a payment received elsewhere. Hard to reverse: needs confirmAction: true.',
    input: z.object({ invoiceId: z.uuid() }),
    run: ({ ctx, principal }, args) => billing.markInvoicePaid(ctx, principal.accountId, args.invoiceId),
  }),
  tool({
    name: 'getCreditPools',
    access: 'tenant',
    description: "A customer's credit pools with their balances (first 200). Read-only, free.",
    input: customerInput,
    run: ({ ctx, principal }, args) => credits.listCustomerCreditPools(ctx, principal, args.customerReferenceId, firstPage),
  }),
  tool({
    name: 'getCreditBalance',
    access: 'tenant',
    description: "One of a customer's credit pools with its balance. Read-only, free.",
    input: poolInput,
    run: ({ ctx, principal }, args) => credits.getCustomerCreditPool(ctx, principal, args.customerReferenceId, args.poolId),
  }),
  tool({
    name: 'getPoolTransactions',
    access: 'tenant',
    description: "A credit pool's ledger, oldest first (first 200). Read-only, free.",
    input: poolInput,
    run: ({ ctx, principal }, args) => credits.listCustomerCreditTransactions(ctx, principal, args.customerReferenceId, args.poolId, firstPage),
  }),
  tool({
    name: 'getPoolGrants',
    access: 'tenant',
    description: "A credit pool's grants (first 200). Read-only, free.",
    input: poolInput,
    run: ({ ctx, principal }, args) => credits.listCustomerCreditGrants(ctx, principal, args.customerReferenceId, args.poolId, firstPage),
  }),
];

export { ADMIN_TOOL_NAMES, UNAVAILABLE_TOOLS } from './admin-tools.js';
export type { ToolCall, ToolSpec } from './tool-spec.js';

export const TOOLS: readonly ToolSpec[] = [...curated, ...tenant, ...ADMIN_TOOLS];
export const TOOLS_BY_NAME: ReadonlyMap<string, ToolSpec> = new Map(TOOLS.map((t) => [t.name, t]));
