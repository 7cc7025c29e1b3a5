import { z } from 'zod';
import { invalidField } from '../../platform/errors/app-error.js';
import { publicBaseUrl } from '../../platform/http/base-url.js';
import { pageQuerySchema } from '../../platform/http/pagination.js';
import * as catalog from '../catalog/index.js';
import * as credits from '../credits/index.js';
import * as payments from '../payments/index.js';
import * as usage from '../usage/index.js';
import { NoInputSchema, tool, type ToolSpec } from './tool-spec.js';

// Admin tools (§8.4 "Admin (flag)"): tenant keys, only with APP_MCP_ADMIN_TOOLS_ENABLED=true. Each
// takes the Admin API route's own body schema and calls the route's service function.

const id = z.uuid();
const planInput = z.object({ planId: id });
const ruleKey = planInput.extend({ featureId: id });
/** The original's tools take the rule value as a JSON string; `value` (an object) is ours. */
const ruleInput = catalog.RuleRequestSchema.extend({
  valueJson: z.string().max(65_536).optional().describe('The rule value document as a JSON string (alternative to value)'),
});

function toRuleRequest({ valueJson, ...rule }: z.output<typeof ruleInput>) {
  if (valueJson === undefined) return rule;
  try {
    return { ...rule, value: JSON.parse(valueJson) as unknown };
  } catch {
    throw invalidField('valueJson', 'is not valid JSON');
  }
}

const catalogTools: ToolSpec[] = [
  tool({
    name: 'adminListFeatures',
    access: 'admin',
    description: 'List every feature of the catalog. Read-only, free.',
    input: NoInputSchema,
    run: async ({ ctx, principal }) => (await catalog.listAllFeatures(ctx, principal.accountId)).map(catalog.toFeature),
  }),
  tool({
    name: 'adminCreateFeature',
    access: 'admin',
    changesState: true,
    description: 'Create a feature (a metered capability plans can link). Changes the catalog; free.',
    input: catalog.FeatureCreateSchema,
    run: ({ ctx, principal }, args) => catalog.createFeature(ctx, principal.accountId, args),
  }),
  tool({
    name: 'adminUpdateFeature',
    access: 'admin',
    changesState: true,
    description: "Update a feature's name, key, description or enabled flag (only the fields sent). Changes the catalog; free.",
    input: catalog.FeatureUpdateSchema.extend({ featureId: id }),
    run: ({ ctx, principal }, { featureId, ...changes }) => catalog.updateFeature(ctx, principal.accountId, featureId, changes),
  }),
  tool({
    name: 'adminListPlans',
    access: 'admin',
    description: 'List every plan of the catalog, of every status. Read-only, free.',
    input: NoInputSchema,
    run: async ({ ctx, principal }) => (await catalog.listAllPlans(ctx, principal.accountId)).map(catalog.toPlan),
  }),
  tool({
    name: 'adminGetPlanWithFeatures',
    access: 'admin',
    description: 'A plan with its linked features and credit allocations. Read-only, free.',
    input: planInput,
    run: ({ ctx, principal }, args) => catalog.getPlanWithFeatures(ctx, principal.accountId, args.planId),
  }),
  tool({
    name: 'adminCreatePlan',
    access: 'admin',
    changesState: true,
    description: 'Create a plan (always DRAFT; activate it with adminUpdatePlan status ACTIVE once it links a feature). Changes the catalog; free, charges no one.',
    input: catalog.PlanCreateSchema,
    run: ({ ctx, principal }, args) => catalog.createPlan(ctx, principal.accountId, args),
  }),
  tool({
    name: 'adminUpdatePlan',
    access: 'admin',
    changesState: true,
    description:
      'Update a plan (only the fields sent); status moves DRAFT → ACTIVE ⇄ ARCHIVED. An ACTIVE plan keeps its key, price, interval and timing. Changes the catalog; free, charges no one.',
    input: catalog.PlanUpdateSchema.extend({ planId: id }),
    run: ({ ctx, principal }, { planId, ...changes }) => catalog.updatePlan(ctx, principal.accountId, planId, changes),
  }),
  tool({
    name: 'adminGetFeatureRule',
    access: 'admin',
    description: "A plan's rule for a feature (pricing, limits, credit model). Read-only, free.",
    input: ruleKey,
    run: ({ ctx, principal }, args) => catalog.getRuleView(ctx, principal.accountId, args.planId, args.featureId),
  }),
  tool({
    name: 'adminLinkFeatureToPlan',
    access: 'admin',
    changesState: true,
    description: "Link a feature to a plan with its pricing rule (value or valueJson). Changes what the plan's subscribers are entitled to and billed; free itself.",
    input: ruleInput,
    run: ({ ctx, principal }, args) => catalog.createRule(ctx, principal.accountId, toRuleRequest(args)),
  }),
  tool({
    name: 'adminUpdateFeatureRule',
    access: 'admin',
    changesState: true,
    description: "Update a plan's rule for a feature (only the fields sent). Changes what subscribers are entitled to and billed from now on; free itself.",
    input: ruleInput,
    run: ({ ctx, principal }, args) => catalog.updateRule(ctx, principal.accountId, toRuleRequest(args)),
  }),
  tool({
    name: 'adminUnlinkFeatureFromPlan',
    access: 'admin',
    confirm: true,
    changesState: true,
    description: "Unlink a feature from a plan: the plan's subscribers lose the entitlement. Free, but hard to reverse: needs confirmAction: true.",
    input: ruleKey,
    run: async ({ ctx, principal }, args) => {
      await catalog.deleteRule(ctx, principal.accountId, args.planId, args.featureId);
      return { planId: args.planId, featureId: args.featureId, unlinked: true };
    },
  }),
];

const modelInput = z.object({ modelId: id });
const poolInput = z.object({ poolId: id });
const linkKey = z.object({ poolId: id, subscriptionId: id });

const creditTools: ToolSpec[] = [
  tool({
    name: 'adminListCreditModels',
    access: 'admin',
    description: 'List the credit models (denominations, hard limit, rollover). Read-only, free.',
    input: NoInputSchema,
    run: ({ ctx, principal }) => credits.listModels(ctx, principal.accountId),
  }),
  tool({
    name: 'adminGetCreditModel',
    access: 'admin',
    description: 'One credit model. Read-only, free.',
    input: modelInput,
    run: async ({ ctx, principal }, args) => credits.toModel(await credits.getModel(ctx, principal.accountId, args.modelId)),
  }),
  tool({
    name: 'adminCreateCreditModel',
    access: 'admin',
    changesState: true,
    description: 'Create a credit model (a denomination, unique per account). Free.',
    input: credits.ModelCreateSchema,
    run: ({ ctx, principal }, args) => credits.createModel(ctx, principal.accountId, args),
  }),
  tool({
    name: 'adminDeleteCreditModel',
    access: 'admin',
    confirm: true,
    changesState: true,
    description: 'Delete a credit model (soft): rules and allocations on it stop granting or quoting credits. Free, but hard to reverse: needs confirmAction: true.',
    input: modelInput,
    run: async ({ ctx, principal }, args) => {
      await credits.deleteModel(ctx, principal.accountId, args.modelId);
      return { modelId: args.modelId, deleted: true };
    },
  }),
  tool({
    name: 'adminAddCreditAllocationToPlan',
    access: 'admin',
    changesState: true,
    description: "Include credits of a model in a plan: each paid period grants creditAmount to the subscriber's pool. Free; grants credits (value) to subscribers.",
    input: z.object({
      modelId: id,
      planId: id,
      creditAmount: credits.AllocationQuerySchema.shape.creditAmount,
      grantExpiresMonths: credits.AllocationQuerySchema.shape.grantExpiresMonths,
      hardLimit: z.boolean().optional(),
    }),
    run: ({ ctx, principal }, args) => credits.allocateToPlan(ctx, principal.accountId, args),
  }),
  tool({
    name: 'adminListCreditAllocationsForPlan',
    access: 'admin',
    description: "A plan's credit allocations. Read-only, free.",
    input: planInput,
    run: ({ ctx, principal }, args) => credits.listPlanAllocations(ctx, principal.accountId, args.planId),
  }),
  tool({
    name: 'adminRemoveCreditAllocationFromPlan',
    access: 'admin',
    confirm: true,
    changesState: true,
    description: "Remove a plan's credit allocation: later periods grant no more of those credits. Free, but hard to reverse: needs confirmAction: true.",
    input: z.object({ modelId: id, planId: id }),
    run: async ({ ctx, principal }, args) => {
      await credits.removeAllocation(ctx, principal.accountId, args.modelId, args.planId);
      return { modelId: args.modelId, planId: args.planId, removed: true };
    },
  }),
  tool({
    name: 'adminListCreditPools',
    access: 'admin',
    description: 'Every credit pool of the account with its balance. Read-only, free.',
    input: NoInputSchema,
    run: ({ ctx, principal }) => credits.listAccountPools(ctx, principal.accountId),
  }),
  tool({
    name: 'adminGetCreditPool',
    access: 'admin',
    description: 'One credit pool with its balance and totals. Read-only, free.',
    input: poolInput,
    run: async ({ ctx, principal }, args) => credits.toPool(await credits.getCreditPool(ctx, principal.accountId, args.poolId)),
  }),
  tool({
    name: 'adminGetCreditPoolsByCustomer',
    access: 'admin',
    description: "A customer's credit pools, by the customer's internal id (the id getCustomer shows). Read-only, free.",
    input: z.object({ customerId: id }),
    run: ({ ctx, principal }, args) => credits.listAccountPools(ctx, principal.accountId, args.customerId),
  }),
  tool({
    name: 'adminCreateCreditPool',
    access: 'admin',
    changesState: true,
    description: 'Create a credit pool (empty) for a customer or the account. Free.',
    input: credits.PoolCreateSchema,
    run: ({ ctx, principal }, args) => credits.createPool(ctx, principal.accountId, args),
  }),
  tool({
    name: 'adminGrantCredits',
    access: 'admin',
    changesState: true,
    description:
      'Grant credits into a pool (PROMOTIONAL, MANUAL, REFUND, …; PURCHASED grants are stamped at the book price). Charges no one, but the credits are spendable value. ' +
      'A repeated idempotencyKey returns the first grant.',
    input: credits.GrantCreateSchema,
    run: async ({ ctx, principal }, args) => (await credits.createGrant(ctx, principal.accountId, args)).grant,
  }),
  tool({
    name: 'adminGetPoolGrants',
    access: 'admin',
    description: "A pool's grants, oldest first. Read-only, free.",
    input: poolInput,
    run: ({ ctx, principal }, args) => credits.listPoolGrants(ctx, principal.accountId, args.poolId),
  }),
  tool({
    name: 'adminDeductCredits',
    access: 'admin',
    confirm: true,
    changesState: true,
    description: "Deduct credits from a pool, oldest grants first: the customer loses that value. Charges no card. Hard to reverse: needs confirmAction: true.",
    input: credits.DeductionSchema,
    run: ({ ctx, principal }, args) => credits.createDeduction(ctx, principal.accountId, args),
  }),
  tool({
    name: 'adminGetPoolTransactions',
    access: 'admin',
    description: "A pool's ledger, oldest first. Read-only, free.",
    input: poolInput,
    run: ({ ctx, principal }, args) => credits.listPoolTransactions(ctx, principal.accountId, args.poolId),
  }),
  tool({
    name: 'adminReverseTransaction',
    access: 'admin',
    confirm: true,
    changesState: true,
    description: 'Reverse a ledger row, once (a new opposite row; the original stays). Moves credits, charges no card. Hard to reverse: needs confirmAction: true.',
    input: z.object({ transactionId: id, description: z.string().max(1000).optional() }),
    run: ({ ctx, principal }, args) => credits.reverseCreditTransaction(ctx, principal.accountId, args.transactionId, args.description),
  }),
  tool({
    name: 'adminLinkPoolToSubscription',
    access: 'admin',
    changesState: true,
    description: "Let a subscription's usage draw from a pool, with a draw priority (lower first) and an optional lifetime draw limit. Free.",
    input: linkKey.extend({ drawPriority: credits.LinkQuerySchema.shape.drawPriority, drawLimit: credits.LinkQuerySchema.shape.drawLimit }),
    run: ({ ctx, principal }, args) => credits.linkPool(ctx, principal.accountId, args),
  }),
  tool({
    name: 'adminUnlinkPoolFromSubscription',
    access: 'admin',
    confirm: true,
    changesState: true,
    description: "Stop a subscription's usage drawing from a pool. Free, but hard to reverse: needs confirmAction: true.",
    input: linkKey,
    run: async ({ ctx, principal }, args) => {
      await credits.unlinkPool(ctx, principal.accountId, args.poolId, args.subscriptionId);
      return { poolId: args.poolId, subscriptionId: args.subscriptionId, unlinked: true };
    },
  }),
];

const eventFilter = usage.EventListQuerySchema;

const eventTools: ToolSpec[] = [
  tool({
    name: 'getEvents',
    access: 'admin',
    description: 'Usage events of the account, newest first, filtered by customer, feature, time, type or flow; one page (limit ≤ 200, offset). Read-only, free.',
    input: pageQuerySchema.extend(eventFilter.shape),
    run: ({ ctx, principal }, args) => usage.listEventPage(ctx, principal.accountId, args),
  }),
  tool({
    name: 'getGroupedEvents',
    access: 'admin',
    description:
      'Usage events summed per customer, feature, eventName, model or UTC day (same filters as getEvents): count, units, revenue and cost per group, exact. ' +
      'At most 1000 groups (truncated says so). Read-only, free.',
    input: eventFilter.extend({ groupBy: z.enum(['customer', 'feature', 'eventName', 'model', 'day']) }),
    run: ({ ctx, principal }, args) => usage.groupEventTotals(ctx, principal.accountId, args),
  }),
];


/**
 * Processor-setup tools of §8.4 (behind the admin flag): the connection's status, storing the secret
 * key (checked with one Stripe call) and registering the webhook — the Admin API's own service
 * functions. There is no Stripe data import: those three names answer a tool error saying so.
 */
const processorTools: ToolSpec[] = [
  tool({
    name: 'getStripeIntegrationStatus',
    access: 'admin',
    description: 'The payment-processor connection: the stored Stripe secret key and webhook signing secret, masked (absent when not stored). Read-only, free.',
    input: NoInputSchema,
    run: ({ ctx, principal }) => payments.getMaskedConnection(ctx, principal.accountId),
  }),
  tool({
    name: 'registerStripeApiKey',
    access: 'admin',
    confirm: true,
    changesState: true,
    description: 'Store the Stripe secret key for this account (checked with one Stripe call, stored encrypted; a refusal is vendor_error). Needs confirmAction: true. Free.',
    input: z.object({ stripeApiKey: z.string().trim().min(1).max(255).describe('sk_test_…, sk_live_… or a restricted key rk_…') }),
    run: async ({ ctx, principal }, args) => {
      await payments.storeApiKey(ctx, principal.accountId, args.stripeApiKey);
      return { stored: true };
    },
  }),
  tool({
    name: 'setupStripeIntegration',
    access: 'admin',
    confirm: true,
    changesState: true,
    description: "Register this service's webhook endpoint at Stripe (every event type it handles) and store the signing secret. Needs a stored key and confirmAction: true. Free.",
    input: NoInputSchema,
    run: async ({ ctx, principal, request }) => {
      await payments.registerWebhook(ctx, principal.accountId, publicBaseUrl(ctx.config.publicBaseUrl, request));
      return { webhookRegistered: true };
    },
  }),
];

export const ADMIN_TOOLS: readonly ToolSpec[] = [...catalogTools, ...creditTools, ...eventTools, ...processorTools];

export const UNAVAILABLE_TOOLS: ReadonlyMap<string, string> = new Map(
  ['discoverStripeData', 'importStripeData', 'getStripeImportStatus'].map((name) => [
    name,
    `${name} is not available on this install: there is no Stripe data import (plans sync to Stripe in PROCESSOR_INTEGRATION instead).`,
  ]),
);

/** Every admin and processor-setup tool name of §8.4: with the flag off, a call to any is `admin_tools_disabled`. */
export const ADMIN_TOOL_NAMES: ReadonlySet<string> = new Set([...ADMIN_TOOLS.map((t) => t.name), ...UNAVAILABLE_TOOLS.keys()]);
