import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors/app-error.js';
import { publicBaseUrl } from '../../platform/http/base-url.js';
import { emptyEnvelopeSchema, envelopeSchema, errorEnvelopeSchema, ok, okEmpty } from '../../platform/http/envelope.js';
import { pageSchema } from '../../platform/http/pagination.js';
import { accountIdOf, adminOf, principalOf } from '../../platform/http/principal.js';
import { RefParamsSchema } from '../customers/index.js';
import { getAccountSettings } from '../settings/index.js';
import { getCheckoutSession, listCheckoutSessionPage, type ReturnUrls } from './checkout.js';
import { deleteConnection, getMaskedConnection, registerWebhook, storeApiKey } from './connection.js';
import { hostedInvoicePage } from './hosted-invoice.js';
import { createSetupIntent, setDefaultPaymentMethod } from './payment-methods.js';
import { purchaseCredits } from './purchases.js';
import { getDefaultPaymentMethod, openSetupCheckout } from './setup-checkout.js';
import {
  AccountIdParamsSchema,
  AdminCheckoutSessionSchema,
  CheckoutSessionListQuerySchema,
  CheckoutSessionParamsSchema,
  CheckoutSessionSchema,
  DefaultPaymentMethodSchema,
  HostedInvoiceSchema,
  MaskedConnectionSchema,
  PurchaseRequestSchema,
  PurchaseResultSchema,
  SavedPaymentMethodSchema,
  SetupCheckoutSchema,
  SetupIntentSchema,
  StoreApiKeySchema,
  SubscriptionIdParamsSchema,
} from './schema.js';
import { receiveWebhook } from './webhook.js';
import { defaultReturnUrls } from './return-pages.js';
import { autoTopupClientRoutes } from './auto-topup/routes.js';

const adminTags = ['Payment processor'];
const clientTags = ['Payments'];

/** Where a hosted checkout returns to: the account's URLs, else this service's return pages (agent-v2 §5.6). */
export async function returnUrls(ctx: AppContext, request: FastifyRequest): Promise<ReturnUrls> {
  const settings = await getAccountSettings(ctx.db, accountIdOf(request));
  const base = publicBaseUrl(ctx.config.publicBaseUrl, request);
  const ours = defaultReturnUrls(base, 'payment');
  return { successUrl: settings.stripeCheckoutSuccessUrl ?? ours.successUrl, cancelUrl: settings.stripeCheckoutCancelUrl ?? ours.cancelUrl };
}

/** Admin API (JWT): the account's processor connection (contract §5.4). */
export function paymentAdminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/data/stripe';
    app.post(`${base}/api`, {
      schema: { tags: adminTags, operationId: 'storeStripeApiKey', summary: 'Store the Stripe secret key (checked with one Stripe call, stored encrypted)', body: StoreApiKeySchema, response: { 201: emptyEnvelopeSchema, 502: errorEnvelopeSchema } },
    }, async (request, reply) => {
      await storeApiKey(ctx, accountIdOf(request), request.body.clientStripeApiKey);
      return reply.status(201).send(okEmpty());
    });
    app.get(`${base}/api`, {
      schema: { tags: adminTags, operationId: 'getStripeConnection', summary: 'The stored Stripe secrets, masked', response: { 200: envelopeSchema(MaskedConnectionSchema) } },
    }, async (request) => ok(await getMaskedConnection(ctx, accountIdOf(request))));
    app.delete(`${base}/api`, {
      schema: { tags: adminTags, operationId: 'deleteStripeConnection', summary: 'Delete both Stripe secrets and reset stripeMode to NONE', response: { 200: emptyEnvelopeSchema } },
    }, async (request) => {
      const admin = adminOf(request);
      await deleteConnection(ctx, admin.accountId, `user:${admin.userId}`);
      return okEmpty();
    });
    app.get(`${base}/checkout-sessions`, {
      schema: {
        tags: adminTags,
        operationId: 'listCheckoutSessionsAdmin',
        summary: 'Hosted checkout sessions, newest first, paged; filter by customer, status, purpose',
        querystring: CheckoutSessionListQuerySchema,
        response: { 200: envelopeSchema(pageSchema(AdminCheckoutSessionSchema)) },
      },
    }, async (request) => ok(await listCheckoutSessionPage(ctx, accountIdOf(request), request.query)));
    app.post(`${base}/webhook/register`, {
      schema: { tags: adminTags, operationId: 'registerStripeWebhook', summary: 'Register the webhook endpoint at Stripe (every handled event type) and store its signing secret', response: { 201: emptyEnvelopeSchema, 502: errorEnvelopeSchema } },
    }, async (request, reply) => {
      await registerWebhook(ctx, accountIdOf(request), publicBaseUrl(ctx.config.publicBaseUrl, request));
      return reply.status(201).send(okEmpty());
    });
  };
}

/** Client API: payment methods, checkout sessions, credit purchases, the hosted invoice page. */
export function paymentClientRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app, options) => {
    const base = '/api/v1/client';
    await autoTopupClientRoutes(ctx)(app, options);
    app.post(`${base}/customers/:ref/payment-methods/setup-intent`, {
      config: { customerKey: 'purchase' },
      schema: { tags: clientTags, operationId: 'createSetupIntent', summary: 'Start saving a card: a Stripe setup intent the principal confirms with Stripe directly', params: RefParamsSchema, response: { 200: envelopeSchema(SetupIntentSchema), 502: errorEnvelopeSchema } },
    }, async (request) => ok(await createSetupIntent(ctx, principalOf(request), request.params.ref)));
    app.post(`${base}/customers/:ref/payment-methods/default`, {
      config: { customerKey: 'purchase' },
      schema: { tags: clientTags, operationId: 'setDefaultPaymentMethod', summary: "Attach a payment method and keep it as the customer's default for off-session charges", params: RefParamsSchema, body: DefaultPaymentMethodSchema, response: { 200: emptyEnvelopeSchema, 502: errorEnvelopeSchema } },
    }, async (request) => okEmpty(await setDefaultPaymentMethod(ctx, principalOf(request), request.params.ref, request.body.paymentMethodId)));
    app.post(`${base}/customers/:ref/payment-methods/setup-checkout`, {
      config: { customerKey: 'purchase' },
      schema: {
        tags: clientTags, operationId: 'openSetupCheckout',
        summary: "Add or replace the customer's card on the processor's hosted page (Checkout mode=setup); once completed it is the default for off-session charges",
        description: 'No body. Each call opens a new session (purpose PAYMENT_METHOD). It returns to the portal link\'s returnUrl (a portal token that has one), else the account\'s checkout URLs, else /portal of this service. No processor connected: 400.',
        params: RefParamsSchema, response: { 201: envelopeSchema(SetupCheckoutSchema), 502: errorEnvelopeSchema },
      },
    }, async (request, reply) => reply.status(201).send(ok(await openSetupCheckout(ctx, principalOf(request), request.params.ref, publicBaseUrl(ctx.config.publicBaseUrl, request)))));
    app.get(`${base}/customers/:ref/payment-methods/default`, {
      config: { customerKey: 'read' },
      schema: { tags: clientTags, operationId: 'getDefaultPaymentMethod', summary: "The customer's default payment method (card fields null when the processor does not say); 404 when none is saved", params: RefParamsSchema, response: { 200: envelopeSchema(SavedPaymentMethodSchema) } },
    }, async (request) => ok(await getDefaultPaymentMethod(ctx, principalOf(request), request.params.ref)));
    app.get(`${base}/checkout-sessions/:checkoutSessionId`, {
      config: { customerKey: 'read' },
      schema: { tags: clientTags, operationId: 'getCheckoutSession', summary: 'A hosted checkout: PENDING until the processor reports it paid (COMPLETED) or expired', params: CheckoutSessionParamsSchema, response: { 200: envelopeSchema(CheckoutSessionSchema) } },
    }, async (request) => ok(await getCheckoutSession(ctx, principalOf(request), request.params.checkoutSessionId)));
    app.post(`${base}/credits/purchases`, {
      config: { customerKey: 'purchase' },
      schema: {
        tags: clientTags, operationId: 'purchaseCredits',
        summary: 'Buy credits at the current book price: charged off-session (201) or a hosted checkout (402 with checkoutUrl)',
        description: 'The amount (credits × price, HALF_UP to the currency minor units) must be at least 0.50 and within the agent spend cap (403 spend_cap_exceeded, checked before any charge). Send an Idempotency-Key: a retry never charges twice.',
        body: PurchaseRequestSchema,
        response: { 201: envelopeSchema(PurchaseResultSchema), 402: errorEnvelopeSchema, 502: errorEnvelopeSchema },
      },
    }, async (request, reply) => reply.status(201).send(ok(await purchaseCredits(ctx, principalOf(request), request.body, await returnUrls(ctx, request)))));
    app.post(`${base}/billing/subscriptions/:subscriptionId/stripe/checkout`, {
      schema: { tags: ['Billing'], operationId: 'openHostedInvoicePage', summary: "The processor's hosted page for the subscription's first DUE invoice", description: 'Tenant key; also a customer portal token for its own customer\'s subscription (ADR 0025; another customer\'s is 403). Customer keys: 403.', params: SubscriptionIdParamsSchema, response: { 200: envelopeSchema(HostedInvoiceSchema), 502: errorEnvelopeSchema } },
    }, async (request) => ok(await hostedInvoicePage(ctx, principalOf(request), request.params.subscriptionId)));
    app.post(`${base}/billing/invoices/subscription/:subscriptionId/stripe/checkout`, {
      // Disabled in the original too: kept so old clients get its message, not advertised.
      schema: { hide: true, params: SubscriptionIdParamsSchema },
    }, async () => {
      throw new AppError('forbidden', 'This endpoint is deprecated and inaccessible. Use POST /api/v1/client/billing/subscriptions/{subscriptionId}/stripe/checkout instead.');
    });
  };
}

/** Public: the processor's webhook (signature-verified, contract §5.5). */
export function paymentWebhookRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/public/stripe/ingest/webhook/:accountId', {
      schema: {
        tags: ['Payment processor'], operationId: 'receiveStripeWebhook',
        summary: 'Stripe webhook: verified with the Stripe-Signature header; each event id is applied once',
        params: AccountIdParamsSchema,
        headers: z.object({ 'stripe-signature': z.string().max(4096).optional() }),
        body: z.looseObject({ id: z.string().max(255), type: z.string().max(255) }).describe('The Stripe event, verified against the raw body'),
        response: { 201: emptyEnvelopeSchema, 400: errorEnvelopeSchema },
      },
    }, async (request, reply) => {
      const outcome = await receiveWebhook(ctx, request.params.accountId, request.rawBody ?? '', request.headers['stripe-signature']);
      request.log.info({ accountId: request.params.accountId, type: outcome.type, applied: outcome.applied }, 'stripe webhook');
      return reply.status(201).send(okEmpty());
    });
  };
}
