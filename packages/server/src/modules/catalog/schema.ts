import { z } from 'zod';
import { CURRENCY_CODES, MAX_MINOR_UNITS } from '../../platform/currency.js';
import { decimalInput, decimalOutput } from '../../platform/http/decimal-schema.js';
import { JsonObjectSchema } from '../../platform/http/json-object-schema.js';
import { RULE_VALUE_JSON_SCHEMA } from './rule-value-schema.js';

/** Largest plan base price (README "Bounds"): stored as numeric(20,4) (16 integer digits). */
const MAX_PLAN_PRICE = '1000000000000';
const currency = z.enum(CURRENCY_CODES as [string, ...string[]], { error: 'must be an ISO 4217 code such as USD' });

export const FeatureCreateSchema = z.object({
  name: z.string({ error: 'Feature name cannot be null' }).trim().min(1, 'Feature name cannot be blank').max(255),
  key: z.string({ error: 'Feature key cannot be null' }).trim().min(1, 'Feature key cannot be blank').max(128),
  description: z.string().max(4000).nullish(),
  featureType: z.literal('METERED').optional(),
  isEnabled: z.boolean().optional(),
  metadata: JsonObjectSchema.optional(),
});
export const FeatureUpdateSchema = FeatureCreateSchema.partial();

export const FeatureSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    key: z.string(),
    description: z.string().nullable(),
    featureType: z.string(),
    isEnabled: z.boolean(),
    metadata: JsonObjectSchema,
    createdAt: z.date(),
    modifiedAt: z.date(),
  })
  .meta({ id: 'Feature' });

// Checked by the service, so an unknown value gets the contract's message ("Invalid plan status: …").
const planStatus = z.string().max(32).meta({ enum: ['DRAFT', 'ACTIVE', 'ARCHIVED'], description: 'DRAFT → ACTIVE ⇄ ARCHIVED; ignored on create (plans start as DRAFT)' });

export const PlanCreateSchema = z.object({
  key: z.string({ error: 'Plan key cannot be null' }).trim().min(1, 'Plan key cannot be blank').max(128),
  name: z.string().trim().min(1).max(255).nullish(),
  description: z.string().max(4000).nullish(),
  priceAmount: decimalInput({
    min: 0,
    max: MAX_PLAN_PRICE,
    maxScale: MAX_MINOR_UNITS,
    description: "Base price per period, with at most the currency's ISO 4217 minor units (JPY 0, USD 2, KWD 3), else 400.",
  }).nullish(),
  intervalMonths: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(120).nullish(),
  billingTiming: z.enum(['IN_ADVANCE', 'IN_ARREARS']).optional(),
  currency: currency.optional(),
  status: planStatus.optional(),
  metadata: JsonObjectSchema.optional(),
});
export const PlanUpdateSchema = PlanCreateSchema.partial();

export const PlanSchema = z
  .object({
    id: z.uuid(),
    key: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    priceAmount: decimalOutput.nullable(),
    currency: z.string(),
    intervalMonths: z.number().int().nullable(),
    billingTiming: z.enum(['IN_ADVANCE', 'IN_ARREARS']),
    status: z.enum(['DRAFT', 'ACTIVE', 'ARCHIVED']),
    metadata: JsonObjectSchema,
    createdAt: z.date(),
    modifiedAt: z.date(),
  })
  .meta({ id: 'Plan' });

export const RuleRequestSchema = z.object({
  planId: z.uuid(),
  featureId: z.uuid(),
  isEnabled: z.boolean().optional(),
  type: z.literal('BASE').optional(),
  value: z.unknown().optional().meta({ ...RULE_VALUE_JSON_SCHEMA }),
  creditModelId: z.uuid().nullish(),
});

export const RuleSchema = z
  .object({
    id: z.uuid(),
    planId: z.uuid(),
    featureId: z.uuid(),
    type: z.literal('BASE'),
    enabled: z.boolean(),
    value: JsonObjectSchema,
    creditModelId: z.uuid().nullable(),
    creditModelName: z.string().nullable(),
    creditDenomination: z.string().nullable(),
  })
  .meta({ id: 'PlanFeatureRule' });

export const IdParamsSchema = z.object({ id: z.uuid() });
export const RuleParamsSchema = z.object({ planId: z.uuid(), featureId: z.uuid() });

const PricingViewSchema = z.object({
  model: z.string(),
  pricePerUnit: decimalOutput.nullable(),
  unitLabel: z.string().nullable(),
  maxUsage: decimalOutput.nullable(),
  resetMode: z.string(),
  tiers: z.array(z.object({ upTo: decimalOutput.nullable(), pricePerUnit: decimalOutput, flatFee: decimalOutput.nullable() })).nullable(),
});

export const CatalogPlanSchema = z
  .object({
    plan: PlanSchema.omit({ status: true, createdAt: true, modifiedAt: true }),
    features: z.array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        key: z.string(),
        description: z.string().nullable(),
        pricingType: z.enum(['included', 'usage_based', 'graduated']),
        pricing: PricingViewSchema.nullable(),
      }),
    ),
    creditAllocations: z.array(JsonObjectSchema),
  })
  .meta({ id: 'CatalogPlan' });

export type FeatureCreate = z.output<typeof FeatureCreateSchema>;
export type FeatureUpdate = z.output<typeof FeatureUpdateSchema>;
export type PlanCreate = z.output<typeof PlanCreateSchema>;
export type PlanUpdate = z.output<typeof PlanUpdateSchema>;
export type RuleRequest = z.output<typeof RuleRequestSchema>;
