import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { decimalInputCheckedLater, decimalOutput } from '../../../platform/http/decimal-schema.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import * as budgets from './service.js';
import { CEILING_SCALE, DEFAULT_ALERT_THRESHOLD, MAX_BUMP_REASON, MAX_CEILING_CENTS } from './domain.js';

const tags = ['Spend budgets'];
const IdParams = z.object({ id: z.uuid() });
const ceiling = (what: string) =>
  decimalInputCheckedLater({ min: 0, max: MAX_CEILING_CENTS, maxScale: CEILING_SCALE, description: `${what} in cents (fractional allowed); null = none` });

const BudgetRequestSchema = z.object({
  dailyCents: ceiling('Daily ceiling').nullish(),
  monthlyCents: ceiling('Monthly ceiling').nullish(),
  alertThreshold: z.number().int().nullish().meta({ minimum: 1, maximum: 100, description: `Percent of a ceiling that fires THRESHOLD; default ${DEFAULT_ALERT_THRESHOLD}` }),
  monthlyMode: z.enum(['ALERT', 'BLOCK']).nullish().describe('BLOCK also enforces the monthly ceiling at the LiteLLM gateway; default ALERT'),
});

const BumpRequestSchema = z.object({
  monthlyCents: decimalInputCheckedLater({ min: 0, max: MAX_CEILING_CENTS, maxScale: CEILING_SCALE, description: 'The lifted monthly ceiling in cents; above the standing one' }),
  expiresAt: z.iso.datetime({ offset: true }).describe('In the future'),
  reason: z.string().max(4 * MAX_BUMP_REASON).nullish().meta({ maxLength: MAX_BUMP_REASON }),
});

const nullableCents = decimalOutput.nullable();
const BudgetSchema = z
  .object({
    spendUnitId: z.uuid(),
    dailyCents: nullableCents,
    monthlyCents: nullableCents,
    alertThreshold: z.number().int(),
    monthlyMode: z.enum(['ALERT', 'BLOCK']),
    dailySpentCents: decimalOutput.describe("The unit's allocation spendCents for the UTC day"),
    monthlySpentCents: decimalOutput.describe("The unit's allocation spendCents for the UTC month"),
    dailyResetsAt: z.date(),
    monthlyResetsAt: z.date(),
    effectiveMonthlyCents: nullableCents.describe('The bump while it lasts, else monthlyCents'),
    gatewaySpentCents: nullableCents.describe("What LiteLLM counts this month for the unit's LiteLLM rules; null without one"),
    bumpMonthlyCents: nullableCents,
    bumpExpiresAt: z.date().nullable(),
    bumpReason: z.string().nullable(),
    enforcementTarget: z.string().nullable().describe('Where the monthly ceiling is enforced, e.g. litellm:team:backend (the first of the unit\'s LiteLLM rules); null when nothing is'),
    enforcedAt: z.date().nullable().describe('When the ceiling was last pushed successfully'),
    enforcementError: z.string().nullable().describe("The proxy's message when the last push failed"),
  })
  .meta({ id: 'SpendBudget' });

/** Unit budgets and bumps (contract §7.5). JWT only. */
export function budgetRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/spend/units/:id/budget';
    const response = { 200: envelopeSchema(BudgetSchema) };
    app.get(base, { schema: { tags, operationId: 'getSpendBudget', summary: "The unit's budget with today's and this month's spend", params: IdParams, response } },
      async (request) => ok(await budgets.getBudget(ctx, accountIdOf(request), request.params.id)));
    app.put(base, { schema: { tags, operationId: 'putSpendBudget', summary: "Set the unit's budget (a full replace; at least one ceiling), then push it to the LiteLLM gateway", params: IdParams, body: BudgetRequestSchema, response } },
      async (request) => ok(await budgets.putBudget(ctx, accountIdOf(request), request.params.id, request.body)));
    app.delete(base, { schema: { tags, operationId: 'deleteSpendBudget', summary: "Push max_budget null to the LiteLLM gateway, then delete the unit's budget (502 vendor_error, budget kept, when the proxy refuses)", params: IdParams, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await budgets.deleteBudget(ctx, accountIdOf(request), request.params.id)));
    app.post(`${base}/bump`, { schema: { tags, operationId: 'bumpSpendBudget', summary: 'Lift the monthly ceiling until an expiry', params: IdParams, body: BumpRequestSchema, response } },
      async (request) => {
        const { monthlyCents, expiresAt, reason } = request.body;
        return ok(await budgets.bumpBudget(ctx, accountIdOf(request), request.params.id, { monthlyCents, expiresAt: new Date(expiresAt), reason: reason ?? null }));
      });
    app.delete(`${base}/bump`, { schema: { tags, operationId: 'endSpendBudgetBump', summary: 'End the bump now', params: IdParams, response } },
      async (request) => ok(await budgets.endBump(ctx, accountIdOf(request), request.params.id)));
  };
}
