import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { DeliveryOutcomesSchema } from '../deliveries/schema.js';
import { getDigest, sendDigest } from './service.js';

const tags = ['Spend digest'];

const DigestRowSchema = z
  .object({
    unitId: z.uuid(),
    name: z.string(),
    cents: decimalOutput.describe("The unit's allocation spendCents in [from, to) (with descendants and person estimates)"),
    previousCents: decimalOutput.describe('The same for the 7 days before from'),
    monthlySpentCents: decimalOutput.describe('Month to date (the UTC month holding now)'),
    monthlyLimitCents: decimalOutput.nullable().describe('The monthly ceiling in force (the bump while it lasts); null without one'),
    bumpReason: z.string().nullable().describe("The bump's reason while the bump is in force"),
  })
  .meta({ id: 'SpendDigestRow' });

const digestFields = {
  from: z.string().meta({ format: 'date' }).describe('First of the last 7 full UTC days'),
  to: z.string().meta({ format: 'date' }).describe('Today (exclusive)'),
  totalCents: decimalOutput.describe('Metered spend in [from, to), attributed or not'),
  previousTotalCents: decimalOutput.describe('The same for the 7 days before from'),
  unattributedCents: decimalOutput.describe('Metered spend in [from, to) no rule attributes'),
  alertsFired: z.number().int().describe('Alerts fired in [from, to)'),
  rows: z.array(DigestRowSchema).describe('Every unit, largest spend first, then by name'),
};
const DigestSchema = z.object(digestFields).meta({ id: 'SpendDigest' });
const SentDigestSchema = z.object({ ...digestFields, delivery: DeliveryOutcomesSchema }).meta({ id: 'SpendSentDigest' });

/** The weekly digest (contract §7.5): preview and send now. JWT only. */
export function digestRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/spend/digest', {
      schema: { tags, operationId: 'getSpendDigest', summary: 'Preview the weekly digest: the last 7 full UTC days against the 7 before, per unit', response: { 200: envelopeSchema(DigestSchema) } },
    }, async (request) => ok(await getDigest(ctx, accountIdOf(request))));
    app.post('/api/v1/spend/digest/send', {
      schema: {
        tags, operationId: 'sendSpendDigest', summary: 'Send the digest now to every configured channel and answer each outcome',
        description: 'One attempt per channel; FAILED is final (nothing is retried behind the caller). A channel without settings is NOT_CONFIGURED; e-mail recipients without APP_RESEND_API_KEY is FAILED.',
        response: { 200: envelopeSchema(SentDigestSchema) },
      },
    }, async (request) => ok(await sendDigest(ctx, accountIdOf(request), request.log)));
  };
}
