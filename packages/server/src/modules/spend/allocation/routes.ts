import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';
import { getWindowReport, unitReportSchema, unitTreeFields } from '../reports/report-route.js';
import { allocate } from './service.js';

const AllocationSchema = unitReportSchema(
  {
    ...unitTreeFields,
    ownCents: decimalOutput.describe('Metered cents of the buckets whose first matching rule is this unit'),
    totalCents: decimalOutput.describe('ownCents plus the descendants’ ownCents'),
    personEstimateCents: decimalOutput.describe('Per-person coding-assistant estimates of PERSON units in this subtree (person level on)'),
    spendCents: decimalOutput.describe('totalCents + personEstimateCents'),
  },
  {
    unattributedCents: decimalOutput,
    totalMeteredCents: decimalOutput.describe('Σ ownCents + unattributedCents, exactly'),
    personLevelEnabled: z.boolean(),
  },
).meta({ id: 'SpendAllocation' });

export function allocationRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    getWindowReport(app, ctx, {
      path: '/api/v1/spend/reports/allocation',
      operationId: 'getSpendAllocationReport',
      summary: 'Metered spend per unit for [from, to) (default: the last 30 days)',
      description:
        'Each usage bucket goes to the first matching attribution rule (lowest priority, then oldest), else to unattributed. Rules apply at report time, so editing a rule re-allocates history. Exact fractional cents, no rounding. A window spans at most 366 days.',
      response: AllocationSchema,
      run: (accountId, w) => allocate(ctx, accountId, w),
    });
  };
}
