import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { allocate } from './service.js';
import { dayInput, dayOf, usageWindow } from '../reports/window.js';

const AllocationSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    rows: z.array(
      z.object({
        unitId: z.uuid(),
        name: z.string(),
        type: z.enum(['TEAM', 'PROJECT', 'PERSON']),
        parentId: z.uuid().nullable(),
        ownCents: decimalOutput.describe('Metered cents of the buckets whose first matching rule is this unit'),
        totalCents: decimalOutput.describe('ownCents plus the descendants’ ownCents'),
        personEstimateCents: decimalOutput.describe('Per-person coding-assistant estimates of PERSON units in this subtree (person level on)'),
        spendCents: decimalOutput.describe('totalCents + personEstimateCents'),
      }),
    ),
    unattributedCents: decimalOutput,
    totalMeteredCents: decimalOutput.describe('Σ ownCents + unattributedCents, exactly'),
    personLevelEnabled: z.boolean(),
  })
  .meta({ id: 'SpendAllocation' });

export function allocationRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/spend/reports/allocation', {
      schema: {
        tags: ['Spend — Reports'],
        operationId: 'getSpendAllocationReport',
        summary: 'Metered spend per unit for [from, to) (default: the last 30 days)',
        description:
          'Each usage bucket goes to the first matching attribution rule (lowest priority, then oldest), else to unattributed. Rules apply at report time, so editing a rule re-allocates history. Exact fractional cents, no rounding. A window spans at most 366 days.',
        querystring: z.object({ from: dayInput.optional(), to: dayInput.optional() }),
        response: { 200: envelopeSchema(AllocationSchema) },
      },
    }, async (request) => ok(await allocate(ctx, accountIdOf(request), usageWindow(dayOf(ctx.clock.now()), request.query.from, request.query.to))));
  };
}
