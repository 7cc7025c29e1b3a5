import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';

/** Not built yet. */
export function reportRoutes(_ctx: AppContext): FastifyPluginAsyncZod {
  return async () => {};
}
