import { sql } from 'kysely';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors/app-error.js';
import { MEDIA_TYPE_KEY } from '../../platform/http/openapi.js';
import { tokenMatches } from '../../platform/metrics.js';

const StatusSchema = z.object({ status: z.literal('ok') });

/** How long /readyz waits for this node's boot registration before answering 503 (it is still starting). */
const BOOT_WAIT_MS = 2_000;

/**
 * Settles once the node's boot is registered (or its registration failed: the node then runs with
 * leases that name no node, and only their expiry frees them). Still pending after BOOT_WAIT_MS: 503.
 */
async function awaitBoot(booted: () => Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    booted().then(
      () => 'settled',
      () => 'settled',
    ),
    new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), BOOT_WAIT_MS))),
  ]);
  clearTimeout(timer);
  if (outcome === 'pending') throw new AppError('service_unavailable', 'This node is starting: its boot is not registered yet');
}

/** `booted`: settles once this node's boot is registered (ADR 0033); a node is not ready before. */
export function healthRoutes(ctx: AppContext, node: { booted: () => Promise<unknown> }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/healthz',
      { schema: { tags: ['Operations'], operationId: 'checkLiveness', summary: 'Liveness: the process is up', response: { 200: StatusSchema } } },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      '/readyz',
      {
        schema: { tags: ['Operations'], operationId: 'checkReadiness', summary: 'Readiness: the database answers and this node has registered its boot', response: { 200: StatusSchema } },
      },
      async (request) => {
        await awaitBoot(node.booted);
        try {
          await sql`select 1`.execute(ctx.db);
        } catch (err) {
          request.log.warn({ err }, 'readiness check failed');
          throw new AppError('service_unavailable', 'Database unreachable');
        }
        return { status: 'ok' as const };
      },
    );
    app.get(
      '/metrics',
      {
        schema: {
          tags: ['Operations'],
          operationId: 'getMetrics',
          summary: 'Prometheus metrics of this node (text exposition format)',
          description:
            'Request counts and latency by route pattern and status, usage events ingested by outcome, credits drawn (an approximation for dashboards: the credit ledger is the exact record), ' +
            'job runs and failures, outbound calls by vendor and status, database pool usage, and the process. When APP_METRICS_TOKEN is set, `Authorization: Bearer <token>` is required (else 401).',
          response: { 200: z.string().meta({ description: 'Prometheus text exposition format 0.0.4', [MEDIA_TYPE_KEY]: 'text/plain' }) },
        },
      },
      async (request, reply) => {
        const expected = ctx.config.metricsToken;
        if (expected !== undefined) {
          const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
          if (!match || !tokenMatches(match[1]!, expected)) throw new AppError('unauthorized', 'A valid metrics token is required (Authorization: Bearer …)');
        }
        const { contentType, text } = await ctx.metrics.render();
        return reply.header('content-type', contentType).send(text);
      },
    );
  };
}
