import { z } from 'zod';
import { decimalInputCheckedLater, decimalOutput } from '../../platform/http/decimal-schema.js';
import { JsonObjectSchema } from '../../platform/http/json-object-schema.js';
import { MAX_ADDRESS_LINES, MAX_LINE_LENGTH, MAX_TAX_ID_LENGTH } from '../../platform/document-fields.js';
import { COST_RATE_SCALE, MAX_COST_RATE, MAX_MODEL_COSTS } from './cost-config.js';
import { AGENT_MANDATE_SCALE, MAX_AGENT_MANDATE_AMOUNT, MAX_AGENT_PROVISIONAL_DAYS, MAX_AGENT_SIGNUP_PER_IP_CAP, MIN_AGENT_PROVISIONAL_DAYS } from './agent-onboarding.js';
import {
  AGENT_TOPUP_SCALE,
  MAX_AGENT_SIGNUP_HOURLY_CAP,
  MAX_AGENT_TOPUP_AMOUNT,
  MAX_URL_LENGTH,
  MAX_LEGAL_NAME_LENGTH,
  MAX_USAGE_THRESHOLD_PERCENTS,
  MESSAGES,
  STRIPE_MODE_ALIASES,
  STRIPE_MODES,
} from './domain.js';

// Rules the contract words itself (slug, currency, cap, mode…) are checked in domain.ts so the
// 400 carries its exact message; the schema refuses only wrong types and states every bound.

const costRate = (description: string) =>
  decimalInputCheckedLater({ min: 0, max: MAX_COST_RATE, maxScale: COST_RATE_SCALE, description }).nullish();

const redirectUrl = (what: string) =>
  z.string().max(MAX_URL_LENGTH).nullish().meta({
    format: 'uri',
    description: `Absolute http(s) URL the browser is sent to ${what} hosted checkout; null clears it.`,
  });

const CostConfigInputSchema = z.object({
  modelCosts: z
    .record(
      z.string().min(1).max(255),
      z.object({ input: costRate('Cost per unit of input for this model.'), output: costRate('Cost per unit of output for this model.') }),
    )
    .nullish()
    .describe(`Rates per model name (at most ${MAX_MODEL_COSTS} models)`),
  defaultInputCostPerUnit: costRate('Input cost per unit for models not listed.'),
  defaultOutputCostPerUnit: costRate('Output cost per unit for models not listed.'),
  costUnit: z.string().max(64).nullish().describe('The unit the rates are per, e.g. "1M tokens"'),
});

export const SettingsPatchSchema = z.object({
  slug: z
    .string()
    .max(255)
    .nullish()
    .describe(
      'Public catalog address, unique across the instance (409 if taken). Trimmed and lower-cased, then must match `[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])?`. null clears it, refused while the public catalog is enabled.',
    ),
  publicCatalogEnabled: z.boolean().optional().describe('Turning it on needs a slug (set now or before); turning it off is always allowed.'),
  agentSignupEnabled: z.boolean().optional().describe('Turning it on needs a free ACTIVE default plan; turning it off is always allowed.'),
  agentSignupDefaultPlanId: z
    .uuid()
    .nullish()
    .describe('A plan of this account that is ACTIVE and free (no price or 0). null clears it, refused while agent signup is enabled.'),
  agentSignupHourlyCap: z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .optional()
    .meta({ minimum: 1, maximum: MAX_AGENT_SIGNUP_HOURLY_CAP, description: 'Agent signups per rolling hour; at least 1 (default 10).' }),
  agentMaxTopupAmount: decimalInputCheckedLater({
    min: 0,
    max: MAX_AGENT_TOPUP_AMOUNT,
    maxScale: AGENT_TOPUP_SCALE,
    description: 'Cap on one agent-initiated charge, in the account currency. 0 or null clears the cap.',
  }).nullish(),
  agentProvisionalDays: z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .optional()
    .meta({ minimum: MIN_AGENT_PROVISIONAL_DAYS, maximum: MAX_AGENT_PROVISIONAL_DAYS, description: 'Days a signed-up customer stays provisional before it expires (default 14). Applies to later signups.' }),
  agentSignupPerIpCap: z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .nullish()
    .meta({ minimum: 0, maximum: MAX_AGENT_SIGNUP_PER_IP_CAP, description: 'Agent signups per client address per rolling hour, across all accounts. 0 or null: no per-address cap (the default).' }),
  agentSpendMandateEnabled: z.boolean().optional().describe('Lets agents ask their principal for a spend mandate; turning it on needs agentMaxMandateAmount.'),
  agentMaxMandateAmount: decimalInputCheckedLater({
    min: 0,
    max: MAX_AGENT_MANDATE_AMOUNT,
    maxScale: AGENT_MANDATE_SCALE,
    description: 'Largest max_amount per period an agent may ask its principal to approve, in the account currency. 0 or null clears it (refused while the mandate is on).',
  }).nullish(),
  stripeMode: z
    .string()
    .max(64)
    .optional()
    .meta({
      enum: [...STRIPE_MODES, ...Object.keys(STRIPE_MODE_ALIASES)],
      description: 'Payment-processor mode. STRIPE_INTEGRATION and FULL_SYNC are aliases of PROCESSOR_INTEGRATION (answered as that). Every change is audit-logged.',
    }),
  currency: z.string().max(16).optional().describe('ISO 4217 code (case-insensitive); default USD.'),
  stripeCheckoutSuccessUrl: redirectUrl('after a successful'),
  stripeCheckoutCancelUrl: redirectUrl('after a cancelled'),
  defaultCostConfig: CostConfigInputSchema.nullish().describe('Replaced whole. Values ≥ 0. null, or a config with nothing set, clears it.'),
  usageThresholdPercents: z
    .array(z.number({ error: MESSAGES.usageThresholdPercents }).int(MESSAGES.usageThresholdPercents), { error: MESSAGES.usageThresholdPercents })
    .nullish()
    .describe(
      `Percents of a feature limit at which usage.threshold_reached is recorded: 0–${MAX_USAGE_THRESHOLD_PERCENTS} distinct integers from 1 to 100, stored ascending. [] turns the event off; null resets to the default [80, 100].`,
    ),
  invoiceNumberPrefix: z
    .string()
    .nullish()
    .meta({ maxLength: MAX_LEGAL_NAME_LENGTH, description: 'Prefix of invoice numbers (<prefix>-<YYYY>-<NNNNNN>): trimmed and upper-cased, then 1-10 letters or digits. null or "" puts back INV. Affects invoices finalised afterwards only.' }),
  legalName: z.string().nullish().meta({ maxLength: MAX_LEGAL_NAME_LENGTH, description: 'Issuer name on invoice documents; null or "" clears it.' }),
  addressLines: z
    .array(z.string().meta({ maxLength: MAX_LINE_LENGTH }))
    .nullish()
    .meta({ description: `Issuer address, one entry per printed line: at most ${MAX_ADDRESS_LINES} lines of ${MAX_LINE_LENGTH} characters; entries trimmed, empty ones dropped; null clears.` }),
  taxId: z.string().nullish().meta({ maxLength: MAX_TAX_ID_LENGTH, description: 'Issuer tax or VAT number; null or "" clears it.' }),
  contactEmail: z.string().nullish().meta({ maxLength: 320, description: 'E-mail printed on invoices (local@domain); null or "" clears it.' }),
});

const costRateOutput = decimalOutput.nullable();

export const AccountSettingsSchema = z
  .object({
    stripeMode: z.enum(STRIPE_MODES as [string, ...string[]]),
    stripeEnabled: z.boolean().describe('stripeMode is not NONE'),
    stripeCheckoutSuccessUrl: z.string().nullable(),
    stripeCheckoutCancelUrl: z.string().nullable(),
    currency: z.string(),
    defaultCostConfig: z
      .object({
        modelCosts: z.record(z.string(), z.object({ input: costRateOutput, output: costRateOutput })).nullable(),
        defaultInputCostPerUnit: costRateOutput,
        defaultOutputCostPerUnit: costRateOutput,
        costUnit: z.string().nullable(),
      })
      .nullable(),
    slug: z.string().nullable(),
    publicCatalogEnabled: z.boolean(),
    agentSignupEnabled: z.boolean(),
    agentSignupDefaultPlanId: z.uuid().nullable(),
    agentSignupHourlyCap: z.number().int(),
    agentMaxTopupAmount: decimalOutput.nullable().describe('null = no cap'),
    agentProvisionalDays: z.number().int(),
    agentSignupPerIpCap: z.number().int().nullable().describe('null = no per-address cap'),
    agentSpendMandateEnabled: z.boolean(),
    agentMaxMandateAmount: decimalOutput.nullable().describe('null = no mandate may be asked for'),
    usageThresholdPercents: z.array(z.number().int()).describe('Percents of a feature limit that record usage.threshold_reached, ascending (default [80, 100]; [] = off)'),
    invoiceNumberPrefix: z.string().describe('Prefix of invoice numbers finalised from now on (default INV)'),
    legalName: z.string().nullable(),
    addressLines: z.array(z.string()),
    taxId: z.string().nullable(),
    contactEmail: z.string().nullable(),
  })
  .meta({ id: 'AccountSettings' });

const AUDIT_LOG_DEFAULT_LIMIT = 50;
const AUDIT_LOG_MAX_LIMIT = 200;

export const AuditLogQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(AUDIT_LOG_MAX_LIMIT)
    .default(AUDIT_LOG_DEFAULT_LIMIT)
    .describe(`Entries to return, newest first; default ${AUDIT_LOG_DEFAULT_LIMIT}, at most ${AUDIT_LOG_MAX_LIMIT}`),
});

export const AuditLogEntrySchema = z
  .object({
    id: z.uuid(),
    actor: z.string().describe('`user:<userId>` for an operator, `system` for the service itself'),
    action: z.string().describe('e.g. STRIPE_MODE_CHANGED, SLUG_CHANGED, PUBLIC_CATALOG_ENABLED_CHANGED'),
    details: JsonObjectSchema.describe('For a settings change: `{ field, from, to }`'),
    createdAt: z.date(),
  })
  .meta({ id: 'AuditLogEntry' });
