import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../platform/context.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { getSpendSettingsView, updateSpendSettings } from './service.js';
import { SpendSettingsPutSchema, SpendSettingsSchema } from './schema.js';

const tags = ['Spend settings'];

/** Spend settings (contract §7.3). */
export function spendSettingsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/spend/settings', {
      schema: { tags, operationId: 'getSpendSettings', summary: 'The spend settings (defaults until first saved); secrets only as configured or not', response: { 200: envelopeSchema(SpendSettingsSchema) } },
    }, async (request) => ok(await getSpendSettingsView(ctx, accountIdOf(request))));
    app.put('/api/v1/spend/settings', {
      schema: {
        tags, operationId: 'updateSpendSettings', summary: 'Update spend settings (null or absent leaves a field alone)',
        description: 'Every field is optional; "" removes a secret. The rules are checked on the stored settings merged with the request.',
        body: SpendSettingsPutSchema, response: { 200: envelopeSchema(SpendSettingsSchema) },
      },
    }, async (request) => ok(await updateSpendSettings(ctx, accountIdOf(request), request.body)));
  };
}
