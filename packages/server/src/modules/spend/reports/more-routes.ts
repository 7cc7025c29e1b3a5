import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { OutcomeReportSchema, outcomeReport } from './outcomes.js';
import { PnlSchema, pnlReport } from './pnl.js';
import { SavingsSchema, savingsReport } from './savings.js';
import { SimulateRequestSchema, SimulationSchema, simulateRoute } from './simulate.js';
import { dayInput, dayOf, usageWindow } from './window.js';

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
    app.post(`${base}/simulate`, {
      schema: {
        tags,
        operationId: 'simulateSpendRoute',
        summary: 'What fromModel’s tokens of the window would cost at toModel’s rates (advice only; nothing is rerouted)',
        description:
          'Window [from, to): from inclusive (default 30 days before to), to exclusive (default tomorrow). toModel must be in the price book with input and output rates (400 validation_failed otherwise). deltaCents = simulated − current, negative is a saving; caveats is never empty.',
        body: SimulateRequestSchema,
        response: { 200: envelopeSchema(SimulationSchema) },
      },
    }, async (request) => ok(await simulateRoute(ctx, accountIdOf(request), request.body)));
    app.get(`${base}/pnl`, {
      schema: {
        tags,
        operationId: 'getSpendPnlReport',
        summary: 'Per PROJECT linked to a feature: build cost against the feature’s revenue and serving cost',
        description: `${WINDOW} Revenue and serve cost are Σ revenueAmount and Σ costAmount × 100 over the feature's CLIENT_TRACKED and ENTITLEMENT_CHECKED events in the window; projects without a feature are listed in unlinkedProjects and left out of the totals.`,
        querystring: WindowQuery,
        response: { 200: envelopeSchema(PnlSchema) },
      },
    }, async (request) => ok(await pnlReport(ctx, accountIdOf(request), windowOf(request.query))));
  };
}
