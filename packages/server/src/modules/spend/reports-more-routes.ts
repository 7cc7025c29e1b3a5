import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { envelopeSchema, ok } from '../../platform/http/envelope.js';
import { accountIdOf } from '../../platform/http/principal.js';
import { OutcomeReportSchema, outcomeReport } from './reports-outcomes.js';
import { SavingsSchema, savingsReport } from './reports-savings.js';
import { dayInput, dayOf, usageWindow } from './reports-window.js';

const tags = ['Spend — Reports'];
const WindowQuery = z.object({ from: dayInput.optional(), to: dayInput.optional() });
const WINDOW = 'Window [from, to), default the last 30 days including today; at most 366 days.';

/** Outcome, savings, simulate and P&L reports (contract §7.9). */
export function moreReportRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/spend/reports';
    const windowOf = (q: { from?: string | undefined; to?: string | undefined }) => usageWindow(dayOf(ctx.clock.now()), q.from, q.to);
    app.get(`${base}/outcomes`, {
      schema: {
        tags,
        operationId: 'getSpendOutcomeReport',
        summary: 'Spend over outcomes per unit, both with descendants',
        description: `${WINDOW} Outcomes count by their occurredAt day; spend is the allocation report's spendCents. Adds \`recent\`: the latest 200 outcomes regardless of the window.`,
        querystring: WindowQuery,
        response: { 200: envelopeSchema(OutcomeReportSchema) },
      },
    }, async (request) => ok(await outcomeReport(ctx, accountIdOf(request), windowOf(request.query))));
    app.get(`${base}/savings`, {
      schema: {
        tags,
        operationId: 'getSpendSavingsReport',
        summary: 'Per model: the input side as billed with caching versus the same tokens uncached',
        description: `${WINDOW} Exact fractional cents; savedCents can be negative (cache writes cost more than the reads saved).`,
        querystring: WindowQuery,
        response: { 200: envelopeSchema(SavingsSchema) },
      },
    }, async (request) => ok(await savingsReport(ctx, accountIdOf(request), windowOf(request.query))));
  };
}
