import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { accountIdOf, adminOf } from '../../../platform/http/principal.js';
import { queryBoolean } from '../../../platform/http/query-schema.js';
import { ackAlert, ALERT_LIST_LIMIT, evaluateBudgets, listAlerts } from './service.js';

const tags = ['Spend alerts'];

export const AlertSchema = z
  .object({
    id: z.uuid(),
    spendUnitId: z.uuid(),
    unitName: z.string().describe("The unit's name when the alert fired"),
    kind: z.enum(['THRESHOLD', 'BREACH', 'SPIKE', 'PROJECTED']),
    period: z.enum(['DAY', 'MONTH']),
    windowStart: z.string().meta({ format: 'date' }).describe('The UTC day (DAY) or the first day of the UTC month (MONTH) the alert is about; it fires at most once per unit, kind, period and window'),
    spentCents: decimalOutput.describe("The unit's spend in the window when it fired (SPIKE: today)"),
    limitCents: decimalOutput.nullable().describe('The ceiling in force (the bump while it lasts); null for SPIKE'),
    message: z.string(),
    firedAt: z.date(),
    ackedAt: z.date().nullable(),
    ackedBy: z.string().nullable().describe("The acknowledging user's e-mail (their username: users have no separate e-mail)"),
  })
  .meta({ id: 'SpendAlert' });

const AlertListQuery = z.object({
  unackedOnly: queryBoolean.optional().describe(`true: every unacknowledged alert; else the latest ${ALERT_LIST_LIMIT}`),
});

/** Budget evaluation and alerts (contract §7.5). JWT only. */
export function alertRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const alerts = { 200: envelopeSchema(z.array(AlertSchema)) };
    app.post('/api/v1/spend/budgets/evaluate', {
      schema: {
        tags, operationId: 'evaluateSpendBudgets', summary: 'Evaluate every budget now and answer the alerts this run fired',
        description: 'THRESHOLD and BREACH per ceiling (daily, and monthly with a bump in force), PROJECTED on the monthly ceiling, SPIKE per unit. An alert fires at most once per (unit, kind, period, window start): alerts fired earlier in their window are not in the answer. Expired bumps are dropped.',
        response: alerts,
      },
    }, async (request) => ok(await evaluateBudgets(ctx, accountIdOf(request), request.log)));
    app.get('/api/v1/spend/alerts', {
      schema: { tags, operationId: 'listSpendAlerts', summary: `Alerts, newest first: every unacknowledged one (unackedOnly=true), else the latest ${ALERT_LIST_LIMIT}`, querystring: AlertListQuery, response: alerts },
    }, async (request) => ok(await listAlerts(ctx, accountIdOf(request), request.query.unackedOnly ?? false)));
    app.post('/api/v1/spend/alerts/:id/ack', {
      schema: { tags, operationId: 'ackSpendAlert', summary: 'Acknowledge an alert (again: no change)', params: z.object({ id: z.uuid() }), response: { 200: envelopeSchema(AlertSchema) } },
    }, async (request) => ok(await ackAlert(ctx, accountIdOf(request), request.params.id, adminOf(request).username)));
  };
}
