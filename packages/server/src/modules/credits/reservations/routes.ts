import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../platform/context.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { principalOf } from '../../../platform/http/principal.js';
import { CaptureSchema, ReservationParamsSchema, ReservationSchema, reservationSchemas } from './schema.js';
import * as service from './service.js';

const tags = ['Credits'];
const customerKeyNote = "Open to customer keys (the key's own customer only; another customer's reservation is 404), like event ingestion.";

/** Client API: credit reservations for streaming calls (hold → capture or release; ADR 0012). */
export function reservationClientRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { create } = reservationSchemas(ctx.config.credits.reservationMaxHoldSeconds);
  return async (app) => {
    const base = '/api/v1/client/credits/reservations';
    app.post(base, {
      config: { customerKey: 'read' },
      schema: {
        tags,
        operationId: 'createCreditReservation',
        summary: 'Hold estimated credits before a streaming call',
        description:
          'Takes `amount` credits out of the available balance of the customer\'s active subscription\'s linked pools in `denomination` (draw priority, link limits, FIFO grants) until captured, released or expired. ' +
          'A hard-limit pool that cannot cover it is 409 insufficient_credits; soft pools hold what they have (`amountHeld` may be lower). No active subscription is 409 conflict; no linked pool in the denomination is 404. ' +
          'A repeated idempotencyKey returns the first reservation (same body, 200) or 409 idempotency_conflict. ' + customerKeyNote,
        body: create,
        response: { 200: envelopeSchema(ReservationSchema), 201: envelopeSchema(ReservationSchema) },
      },
    }, async (request, reply) => {
      const { reservation, replayed } = await service.createReservation(ctx, principalOf(request), request.body);
      return reply.code(replayed ? 200 : 201).send(ok(reservation));
    });
    app.get(`${base}/:reservationId`, {
      config: { customerKey: 'read' },
      schema: { tags, operationId: 'getCreditReservation', summary: 'A credit reservation', description: customerKeyNote, params: ReservationParamsSchema, response: { 200: envelopeSchema(ReservationSchema) } },
    }, async (request) => ok(await service.getReservation(ctx, principalOf(request), request.params.reservationId)));
    app.post(`${base}/:reservationId/capture`, {
      config: { customerKey: 'read' },
      schema: {
        tags,
        operationId: 'captureCreditReservation',
        summary: 'Capture the actual credits of a finished call and release the rest',
        description:
          'Below the hold, the rest is released to the grants it came from. Above it, the excess is drawn from the linked pools as far as they go, on soft and hard pools alike, never below zero; the shortfall is `uncoveredCredits`. ' +
          'The same amount again answers the captured reservation (idempotent); another amount, or a released or expired reservation (also one past its expiry that the job has not reached yet), is 409 reservation_closed. ' + customerKeyNote,
        params: ReservationParamsSchema,
        body: CaptureSchema,
        response: { 200: envelopeSchema(ReservationSchema) },
      },
    }, async (request) => ok(await service.captureReservation(ctx, principalOf(request), request.params.reservationId, request.body.amount)));
    app.post(`${base}/:reservationId/release`, {
      config: { customerKey: 'read' },
      schema: {
        tags,
        operationId: 'releaseCreditReservation',
        summary: 'Release a hold without consuming anything',
        description: 'Idempotent: a released or expired reservation answers as it is; a captured one is 409 reservation_closed. ' + customerKeyNote,
        params: ReservationParamsSchema,
        response: { 200: envelopeSchema(ReservationSchema) },
      },
    }, async (request) => ok(await service.releaseReservation(ctx, principalOf(request), request.params.reservationId)));
  };
}
