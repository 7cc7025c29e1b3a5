import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../platform/context.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { OutcomeReportSchema, outcomeReport } from './outcomes.js';
import { PnlSchema, pnlReport } from './pnl.js';
import { SavingsSchema, savingsReport } from './savings.js';
import { SimulateRequestSchema, SimulationSchema, simulateRoute } from './simulate.js';
import { getWindowReport, REPORT_TAGS } from './report-route.js';

const WINDOW = 'Window [from, to), default the last 30 days including today; at most 366 days.';

/** Outcome, savings, simulate and P&L reports (contract §7.9). */
export function moreReportRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/spend/reports';
    getWindowReport(app, ctx, {
      path: `${base}/outcomes`,
      operationId: 'getSpendOutcomeReport',
      summary: 'Spend over outcomes per unit, both with descendants',
      description: `${WINDOW} Outcomes count by their occurredAt day; spend is the allocation report's spendCents. Adds \`recent\`: the latest 200 outcomes regardless of the window.`,
      response: OutcomeReportSchema,
      run: (accountId, w) => outcomeReport(ctx, accountId, w),
    });
    getWindowReport(app, ctx, {
      path: `${base}/savings`,
      operationId: 'getSpendSavingsReport',
      summary: 'Per model: the input side as billed with caching versus the same tokens uncached',
      description: `${WINDOW} Exact fractional cents; savedCents can be negative (cache writes cost more than the reads saved).`,
      response: SavingsSchema,
      run: (accountId, w) => savingsReport(ctx, accountId, w),
    });
    app.post(`${base}/simulate`, {
      schema: {
        tags: REPORT_TAGS,
        operationId: 'simulateSpendRoute',
        summary: 'What fromModel’s tokens of the window would cost at toModel’s rates (advice only; nothing is rerouted)',
        description:
          'Window [from, to): from inclusive (default 30 days before to), to exclusive (default tomorrow). toModel must be in the price book with input and output rates (400 validation_failed otherwise). deltaCents = simulated − current, negative is a saving; caveats is never empty.',
        body: SimulateRequestSchema,
        response: { 200: envelopeSchema(SimulationSchema) },
      },
    }, async (request) => ok(await simulateRoute(ctx, accountIdOf(request), request.body)));
    getWindowReport(app, ctx, {
      path: `${base}/pnl`,
      operationId: 'getSpendPnlReport',
      summary: 'Per PROJECT linked to a feature: build cost against the feature’s revenue and serving cost',
      description: `${WINDOW} Revenue and serve cost are Σ revenueAmount and Σ costAmount × 100 over the feature's CLIENT_TRACKED and ENTITLEMENT_CHECKED events in the window; projects without a feature are listed in unlinkedProjects and left out of the totals.`,
      response: PnlSchema,
      run: (accountId, w) => pnlReport(ctx, accountId, w),
    });
  };
}
