import { COST_MODELS, COST_UNITS, PRICING_MODELS, RESET_MODES, RULE_BOUNDS } from './rule-value.js';

/**
 * The OpenAPI description of a rule `value` (contract §3.3), stating what `parseRuleValue` enforces:
 * an object (or null), its enums, required members and numeric bounds. The legacy flat form
 * (`{ model, price_per_unit, cost_model, … }`) is still accepted, hence no `additionalProperties: false`.
 * Rules a schema cannot say (required members per model, ascending tiers) are in the description.
 */
const rate = { type: 'number', minimum: 0, maximum: Number(RULE_BOUNDS.maxRate), description: `At most ${RULE_BOUNDS.maxScale} decimal places.` };
const units = { type: 'number', minimum: 0, maximum: Number(RULE_BOUNDS.maxUnits), description: `At most ${RULE_BOUNDS.maxScale} decimal places.` };

export const RULE_VALUE_JSON_SCHEMA = {
  type: ['object', 'null'],
  description:
    'Pricing and cost document, snake_case (contract §3.3). `pricing.model` usage needs `price_per_unit`; graduated needs `tiers` ' +
    '(ascending `up_to`, only the last may be "inf"); both need `usage_unit_type`. `max_usage` 0 means unlimited. `cost.model` ' +
    'simple needs `cost_per_unit`; model_aware needs `default_input_cost_per_unit`. Numbers may also be sent as decimal strings.',
  properties: {
    pricing: {
      type: ['object', 'null'],
      required: ['model', 'usage_unit_type'],
      properties: {
        model: { type: 'string', enum: [...PRICING_MODELS] },
        usage_unit_type: { type: 'string', minLength: 1, maxLength: 255 },
        price_per_unit: rate,
        max_usage: units,
        reset_mode: { type: 'string', enum: [...RESET_MODES], description: 'Default reset' },
        tiers: {
          type: 'array',
          maxItems: RULE_BOUNDS.maxTiers,
          items: {
            type: 'object',
            required: ['up_to', 'price_per_unit'],
            properties: {
              up_to: { anyOf: [units, { type: 'string', enum: ['inf'] }] },
              price_per_unit: rate,
              flat_fee: rate,
            },
          },
        },
      },
    },
    cost: {
      type: ['object', 'null'],
      required: ['model'],
      properties: {
        model: { type: 'string', enum: [...COST_MODELS] },
        cost_unit: { type: 'string', enum: [...COST_UNITS] },
        cost_per_unit: rate,
        default_input_cost_per_unit: rate,
        default_output_cost_per_unit: rate,
        model_costs: {
          type: 'object',
          additionalProperties: { type: 'object', required: ['input', 'output'], properties: { input: rate, output: rate } },
        },
      },
    },
  },
};
