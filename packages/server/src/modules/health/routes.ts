import { sql } from 'kysely';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors/app-error.js';

const StatusSchema = z.object({ status: z.literal('ok') });

export function healthRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/healthz',
      { schema: { tags: ['Operations'], operationId: 'checkLiveness', summary: 'Liveness: the process is up', response: { 200: StatusSchema } } },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      '/readyz',
      {
        schema: { tags: ['Operations'], operationId: 'checkReadiness', summary: 'Readiness: the database answers', response: { 200: StatusSchema } },
      },
      async (request) => {
        try {
          await sql`select 1`.execute(ctx.db);
        } catch (err) {
          request.log.warn({ err }, 'readiness check failed');
          throw new AppError('service_unavailable', 'Database unreachable');
        }
        return { status: 'ok' as const };
      },
    );
  };
}
