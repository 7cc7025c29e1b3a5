import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { dayInput, dayOf, usageWindow, type DayWindow } from './window.js';

/** What the spend reports share (contract §7.9): their tag, the window query, the per-unit report shape and the GET route of a window report. */

export const REPORT_TAGS = ['Spend — Reports'];

export const WindowQuerySchema = z.object({ from: dayInput.optional(), to: dayInput.optional() });

/** A unit's place in the unit tree, as the per-unit reports show it. */
export const unitTreeFields = { type: z.enum(['TEAM', 'PROJECT', 'PERSON']), parentId: z.uuid().nullable() };

/** A report over units for [from, to): the window, one row per unit (`unitId`, `name`, then the report's own fields), then the report's totals. */
export function unitReportSchema<R extends z.ZodRawShape, T extends z.ZodRawShape>(row: R, totals: T) {
  return z.object({ from: z.string(), to: z.string(), rows: z.array(z.object({ unitId: z.uuid(), name: z.string(), ...row })), ...totals });
}

type App = Parameters<FastifyPluginAsyncZod>[0];

type WindowReport<S extends z.ZodType> = {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  response: S;
  /** How the query's `from` and `to` become the window (default: `usageWindow`, the last 30 days). */
  window?: (today: string, from: string | undefined, to: string | undefined) => DayWindow;
  run: (accountId: string, w: DayWindow) => Promise<z.input<S>>;
};

/** GET of a report over the window the query names (`?from=&to=`), tagged as a spend report. */
export function getWindowReport<S extends z.ZodType>(app: App, ctx: AppContext, report: WindowReport<S>): void {
  const windowOf = report.window ?? usageWindow;
  app.get(report.path, {
    schema: {
      tags: REPORT_TAGS,
      operationId: report.operationId,
      summary: report.summary,
      description: report.description,
      querystring: WindowQuerySchema,
      // The reply is checked against the schema where `run` is written (its result is z.input<S>).
      response: { 200: envelopeSchema(report.response) as z.ZodType },
    },
  }, async (request) => ok(await report.run(accountIdOf(request), windowOf(dayOf(ctx.clock.now()), request.query.from, request.query.to))));
}
