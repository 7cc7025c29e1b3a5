import { z } from 'zod';
import { decimalOutput } from '../../platform/http/decimal-schema.js';
import { SpendMandateAnswerSchema, SpendMandateRequestSchema } from './mandate/schema.js';
import { PRICING_SCHEMA_URL } from './pricing/domain.js';
import { AgentLimitsSchema } from './status/schema.js';

/** Largest signup body: an e-mail and a name fit many times over; anything bigger is 413 before parsing. */
export const SIGNUP_BODY_LIMIT_BYTES = 4 * 1024;

export const PRICING_CACHE_CONTROL = 'public, max-age=60';

export const SlugParamsSchema = z.object({ slug: z.string().min(1).max(255).describe('The catalog slug set in the account settings') });

const PricingPlanSchema = z.object({
  id: z.string().describe('The plan key'),
  name: z.string(),
  price: z.object({ amount: decimalOutput, currency: z.string(), per: z.enum(['month', 'year']) }),
  features: z.array(z.string()).optional().describe('Feature keys of the enabled rules; omitted when none'),
  included_usage: z.record(z.string(), decimalOutput).optional().describe('Credits per period by denomination; omitted when none'),
  trial: z
    .object({ days: z.number().int(), requires_payment_method: z.boolean(), api_provisioning_url: z.string() })
    .optional()
    .describe('Only on the agent signup plan while signup is open'),
});

/** The public pricing document (contract §5.2; the external pricing.json schema). No envelope. */
export const PricingDocumentSchema = z
  .object({
    $schema: z.literal(PRICING_SCHEMA_URL),
    product: z.object({ name: z.string(), vendor: z.string(), category: z.literal('saas'), url: z.string() }),
    revenue_model: z.object({
      type: z.enum(['credit', 'usage', 'flat']),
      billing_frequency: z.array(z.enum(['monthly', 'annual'])),
      agent_onboarding: z.boolean(),
    }),
    plans: z.array(PricingPlanSchema).min(1),
    credits: z
      .object({
        currency_name: z.string().optional(),
        weight_table: z.record(z.string(), decimalOutput).describe('Credits per unit: `featureKey` (default) or `featureKey:model`'),
        price_book: z.array(z.object({ denomination: z.string(), price_per_credit: decimalOutput, currency: z.string() })),
      })
      .optional(),
    governance: z.object({ per_key_limits: z.boolean(), budget_controls: z.boolean(), spend_alerts: z.boolean(), burndown_api: z.boolean() }),
    integration: z.object({ api_docs_url: z.string(), openapi_spec_url: z.string(), mcp_server: z.boolean(), auth_methods: z.array(z.literal('api-key')) }),
  })
  .meta({ id: 'PricingDocument' });

export const SignupRequestSchema = z.object({
  email: z
    .string({ error: 'Email is required' })
    .trim()
    .min(1, 'Email is required')
    .max(320)
    .pipe(z.email({ error: 'must be a valid e-mail address' }))
    .meta({ format: 'email', description: 'Contact e-mail of the agent or its operator (surrounding spaces are trimmed)' }),
  name: z.string().max(100).optional().describe("Stored as the customer's first name"),
  spend_mandate: SpendMandateRequestSchema.optional().describe('Ask the principal for a spend mandate (api-contract-agent-v2.md §4.6); a 400 here saves nothing'),
});

export const SignupResultSchema = z
  .object({
    customerReferenceId: z.string().describe('`agent_` + 32 hex characters'),
    apiKey: z.string().describe('The customer key (ck_…), shown once'),
    apiKeyScopes: z.array(z.enum(['read', 'purchase'])),
    plan: z.string().describe('Key of the plan subscribed to'),
    status: z.literal('provisional'),
    expires_at: z.date().describe('Signup time + agentProvisionalDays'),
    limits: AgentLimitsSchema,
    spend_mandate: SpendMandateAnswerSchema.nullable().describe('null unless asked; else pending (a page was opened) or unavailable'),
    status_url: z.string(),
    owner_url: z.string(),
    nextSteps: z.object({
      base_url: z.string(),
      check_entitlement: z.string(),
      record_usage: z.string(),
      credit_balances: z.string(),
      docs: z.string(),
      pricing: z.string(),
      check_entitlement_template: z.string(),
      check_entitlement_example: z.string().optional().describe('Only when the plan has a feature'),
      usage_summary: z.string(),
      usage_history: z.string(),
      usage_events: z.string(),
      buy_credits: z.string(),
      change_plan: z.string(),
      runbook: z.string(),
    }),
  })
  .meta({ id: 'AgentSignup' });
