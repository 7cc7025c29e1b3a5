import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { listSpendDeliveries, sendSpendEventNow } from './service.js';
import { DeliveryListQuerySchema, DeliveryOutcomesSchema, SpendDeliverySchema } from './schema.js';

const tags = ['Spend deliveries'];

export const TEST_MESSAGE = 'Test message from Tally: spend alerts and digests will reach this channel.';

/** Outbound deliveries (contract §7.6; ours): a test message to every configured channel, the delivery log. */
export function deliveryRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/v1/spend/deliveries/test', {
      schema: {
        tags, operationId: 'sendSpendTestDelivery', summary: 'Send a test message to every configured channel (chat, webhook, e-mail) and answer each outcome',
        description: 'One attempt per channel, now (event type spend.test); FAILED is final, nothing is retried. A channel without settings is NOT_CONFIGURED; e-mail recipients without APP_RESEND_API_KEY is FAILED.',
        response: { 200: envelopeSchema(DeliveryOutcomesSchema) },
      },
    }, async (request) => {
      const payload = { message: TEST_MESSAGE, sentAt: ctx.clock.now().toISOString() };
      return ok(await sendSpendEventNow(ctx, { accountId: accountIdOf(request), type: 'spend.test', payload }, request.log));
    });
    app.get('/api/v1/spend/deliveries', {
      schema: {
        tags, operationId: 'listSpendDeliveries', summary: 'The latest 200 outbound deliveries (alerts, digests, test messages), newest first, with their status and last error',
        querystring: DeliveryListQuerySchema, response: { 200: envelopeSchema(z.array(SpendDeliverySchema)) },
      },
    }, async (request) => ok(await listSpendDeliveries(ctx, accountIdOf(request), request.query.status)));
  };
}
