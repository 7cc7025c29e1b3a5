import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../platform/context.js';

/** Admin API: weight tariff and price book (publish, list, history, delete). */
export function tariffAdminRoutes(_ctx: AppContext): FastifyPluginAsyncZod {
  return async () => {};
}

/** Client API: prices in effect now. */
export function tariffClientRoutes(_ctx: AppContext): FastifyPluginAsyncZod {
  return async () => {};
}
