import { z } from 'zod';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';

/** Status and owner bodies (api-contract-agent-v2.md §4.4–§4.6); null fields are written out, never omitted. */

export const AgentLimitsSchema = z
  .object({
    features: z.record(
      z.string(),
      z.object({
        included: decimalOutput.nullable().describe('max_usage per period; null = unmetered'),
        period: z.string().describe('`month` for 1-month plans, else `<n> months`'),
        unlimited: z.boolean(),
      }),
    ),
    spend_cap: decimalOutput.nullable().describe('agentMaxTopupAmount; null = none'),
    currency: z.string(),
  })
  .meta({ id: 'AgentLimits' });

export const SpendMandateViewSchema = z
  .object({
    status: z.enum(['none', 'pending', 'active', 'expired']),
    setup_url: z.string().nullable(),
    max_amount: decimalOutput.nullable(),
    spent: decimalOutput.nullable(),
    remaining: decimalOutput.nullable(),
    period: z.enum(['day', 'week', 'month']).nullable(),
    resets_at: z.date().nullable(),
    currency: z.string().nullable(),
  })
  .meta({ id: 'SpendMandateStatus' });

export const AgentStatusSchema = z
  .object({
    customerReferenceId: z.string(),
    status: z.enum(['provisional', 'claimed', 'expired']),
    expires_at: z.date().nullable().describe('null once claimed and for customers not made by signup'),
    claimed_at: z.date().nullable(),
    plan: z.string().nullable().describe("Key of the plan of the customer's newest active subscription"),
    limits: AgentLimitsSchema,
    remaining: z.record(z.string(), decimalOutput.nullable()).describe('Per feature: max(0, max_usage − used) this period; null when unmetered'),
    spend: z
      .object({ cap: decimalOutput, spent: decimalOutput, remaining: decimalOutput, currency: z.string(), resets_at: z.date().nullable() })
      .nullable()
      .describe("The calling key's money budget; null for a tenant key or a key without a money limit"),
    owner_email: z.string().nullable(),
    spend_mandate: SpendMandateViewSchema,
  })
  .meta({ id: 'AgentStatus' });

export const OWNER_EMAIL_MAX_LENGTH = 255;

export const OwnerRequestSchema = z.object({
  email: z
    .string({ error: 'email is required' })
    .trim()
    .min(1, 'email must not be blank')
    .max(OWNER_EMAIL_MAX_LENGTH, `email must be at most ${OWNER_EMAIL_MAX_LENGTH} characters`)
    .pipe(z.email({ error: 'must be a valid e-mail address' }))
    .meta({ format: 'email', description: "The principal's e-mail: stored trimmed and lower-cased" }),
});
