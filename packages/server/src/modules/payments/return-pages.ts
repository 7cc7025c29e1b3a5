import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { MEDIA_TYPE_KEY } from '../../platform/http/openapi.js';

/**
 * The pages a human lands on after the processor's hosted checkout (contract agent-v2 §5.6): fixed
 * HTML, always 200 (a human who paid must land somewhere), never cached or indexed. Nothing from the
 * request is written into them: `kind` only chooses between two fixed texts.
 */
export const CHECKOUT_COMPLETE_PATH = '/public/checkout/complete';
export const CHECKOUT_CANCELLED_PATH = '/public/checkout/cancelled';

/** What a hosted page was for: a payment (payment and subscription checkouts) or saving a method (setup and mandate pages). */
export type CheckoutReturnKind = 'payment' | 'setup';

/**
 * Where a hosted checkout returns to when the account set no URLs of its own (operator URLs win):
 * the service's own pages on `base` (APP_PUBLIC_BASE_URL, else the request's origin).
 */
export function defaultReturnUrls(base: string, kind: CheckoutReturnKind): { successUrl: string; cancelUrl: string } {
  return { successUrl: `${base}${CHECKOUT_COMPLETE_PATH}?kind=${kind}`, cancelUrl: `${base}${CHECKOUT_CANCELLED_PATH}` };
}

const page = (title: string, text: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:15vh auto;padding:0 1.5rem;line-height:1.5;color:#1f2937}h1{font-size:1.5rem}</style>
</head>
<body>
<h1>${title}</h1>
<p>${text}</p>
</body>
</html>
`;

const ALL_SET = "You're all set";
const PAYMENT_DONE = page(ALL_SET, 'Your payment went through. You can close this tab; your agent will see the change within a minute.');
const SETUP_DONE = page(ALL_SET, 'Your payment details were saved. You can close this tab; your agent will see the change within a minute.');
const CANCELLED = page('Nothing was charged', 'You left the payment page before finishing. You can close this tab, or go back to your agent for a new link.');

const html = (description: string) => z.string().meta({ description, [MEDIA_TYPE_KEY]: 'text/html' });
// Never a 400: a repeated or odd `kind` is just not `payment`.
const KindQuerySchema = z.object({ kind: z.unknown().optional().describe('`payment` after a payment or subscription checkout; anything else (or none): a saved payment method') });

/** Public, unauthenticated: the two return pages. */
export function checkoutReturnRoutes(_ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(CHECKOUT_COMPLETE_PATH, {
      schema: {
        tags: ['Payments'], operationId: 'getCheckoutCompletePage', summary: 'The page a hosted checkout returns to when it was completed',
        description: 'Fixed HTML, always 200, `Cache-Control: no-store`, not indexed. `kind=payment`: the payment went through; otherwise: the payment details were saved.',
        querystring: KindQuerySchema, response: { 200: html("You're all set") },
      },
    }, async (request, reply) =>
      reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(request.query.kind === 'payment' ? PAYMENT_DONE : SETUP_DONE));

    app.get(CHECKOUT_CANCELLED_PATH, {
      schema: {
        tags: ['Payments'], operationId: 'getCheckoutCancelledPage', summary: 'The page a hosted checkout returns to when it was left unfinished',
        description: 'Fixed HTML, always 200, `Cache-Control: no-store`, not indexed.',
        response: { 200: html('Nothing was charged') },
      },
    }, async (_request, reply) => reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(CANCELLED));
  };
}
