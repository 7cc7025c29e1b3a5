import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { MEDIA_TYPE_KEY } from '../../platform/http/openapi.js';
import { z } from 'zod';
import { queryBoolean } from '../../platform/http/query-schema.js';
import type { AppContext } from '../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../platform/http/envelope.js';
import { pageQuerySchema, pageSchema } from '../../platform/http/pagination.js';
import { publicBaseUrl } from '../../platform/http/base-url.js';
import { accountIdOf, principalOf } from '../../platform/http/principal.js';
import { RefParamsSchema } from '../customers/index.js';
import {
  BillingOverviewSchema,
  CancelQuerySchema,
  InvoiceIdParamsSchema,
  InvoiceSchema,
  PlanChangePendingSchema,
  PlanChangeRequestSchema,
  PlanChangeResultSchema,
  SubscribeRequestSchema,
  SubscribeResultSchema,
  SubscriptionIdParamsSchema,
  SubscriptionSchema,
} from './schema.js';
import * as service from './service.js';
import { getInvoicePdf } from './document/service.js';

const tags = ['Subscriptions and billing'];

/** Any string: an id that is not a uuid is 404 like an unknown one (api-contract-money.md §4.3). */
const PdfParamsSchema = z.object({ invoiceId: z.string().min(1).max(255) });
const PdfSchema = z.string().meta({ format: 'binary', description: 'The PDF document (no envelope)', [MEDIA_TYPE_KEY]: 'application/pdf' });
const PDF_DESCRIPTION =
  'Byte-identical for an unchanged invoice (ADR 0036). A finalised invoice prints the issuer and customer copied when it was finalised; a PENDING one is a draft (filename draft-<invoiceId>.pdf). ' +
  'Unknown, another account\'s or a non-uuid id: 404. Client API: tenant key; a portal token for its own customer\'s invoices (another customer\'s: 403); customer keys 403.';

/** The document itself (§4.3): no envelope, shown inline, never cached. */
function sendPdf(reply: FastifyReply, pdf: { fileName: string; bytes: Uint8Array }) {
  return reply
    .type('application/pdf')
    .header('content-disposition', `inline; filename="${pdf.fileName}"`)
    .header('cache-control', 'private, no-store')
    .send(Buffer.from(pdf.bytes));
}

const PLAN_CHANGE_DESCRIPTION =
  'A paid upgrade (its proration costs money, asked with an API key while a processor collects payments) moves the plan only once paid: charged off-session with paymentMethodId or the saved method → 200; ' +
  'otherwise the plan stays, the DUE ADJUSTMENT invoice gets a hosted page, and a customer key gets 402 payment_required (gate complete_checkout, url the hosted invoice, poll the customer status; data { subscription, invoice, checkoutUrl }) ' +
  'while the tenant key gets 202 { status: payment_pending, paymentUrl, subscription, invoice }. Paying it completes the change; asking again while it waits returns the same invoice; ' +
  'DELETE …/plan-change/scheduled voids it. Another change while it waits: 409. Mode NONE, downgrades, free upgrades and console changes apply as before.';

/** Client API: subscribe, cancel, change plan, invoices and mark-paid. */
export function billingClientRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/client';
    app.post(`${base}/subscriptions`, {
      config: { customerKey: 'purchase' },
      schema: { tags, operationId: 'createSubscription', summary: 'Subscribe a customer to an ACTIVE plan (a DUE invoice is raised for paid plans)', description: 'planId (uuid or key) or planKey is required. customerReferenceId is required with a tenant key; with a customer key it may be omitted, and another customer\'s reference is 403. Only ACTIVE plans accept subscriptions (400 otherwise).', body: SubscribeRequestSchema, response: { 201: envelopeSchema(SubscribeResultSchema) } },
    }, async (request, reply) => reply.code(201).send(ok(await service.subscribe(ctx, principalOf(request), request.body, { returnBaseUrl: publicBaseUrl(ctx.config.publicBaseUrl, request) }))));

    app.post(`${base}/subscriptions/cancellation/:subscriptionId`, {
      config: { customerKey: 'read' },
      schema: { tags, operationId: 'cancelSubscription', summary: 'Cancel at period end (default) or immediately', params: SubscriptionIdParamsSchema, querystring: CancelQuerySchema, response: { 200: emptyEnvelopeSchema } },
    }, async (request) => okEmpty(await service.cancelSubscription(ctx, principalOf(request), request.params.subscriptionId, request.query.cancelMode)));

    app.delete(`${base}/subscriptions/cancellation/:subscriptionId/scheduled`, {
      config: { customerKey: 'read' },
      schema: { tags, operationId: 'undoSubscriptionCancellation', summary: 'Undo a scheduled end-of-period cancellation', params: SubscriptionIdParamsSchema, response: { 200: emptyEnvelopeSchema } },
    }, async (request) => okEmpty(await service.undoScheduledCancellation(ctx, principalOf(request), request.params.subscriptionId)));

    app.post(`${base}/subscriptions/:subscriptionId/plan-change`, {
      config: { customerKey: 'purchase' },
      schema: { tags, operationId: 'changeSubscriptionPlan', summary: 'Upgrade now (prorated) or downgrade at period end', description: PLAN_CHANGE_DESCRIPTION, params: SubscriptionIdParamsSchema, body: PlanChangeRequestSchema, response: { 200: envelopeSchema(PlanChangeResultSchema), 202: envelopeSchema(PlanChangePendingSchema) } },
    }, async (request, reply) => {
      const result = await service.changePlan(ctx, principalOf(request), request.params.subscriptionId, request.body);
      return reply.code('status' in result ? 202 : 200).send(ok(result));
    });

    app.post(`${base}/subscriptions/:subscriptionId/plan-change/preview`, {
      config: { customerKey: 'purchase' },
      schema: { tags, operationId: 'previewSubscriptionPlanChange', summary: 'What a plan change would answer now (the subscription after it and the prorated adjustment invoice), keeping nothing', description: 'Same body, rules and refusals as plan-change: the change runs in a transaction that is rolled back, so the answer is the one plan-change would give at this instant (ids of the records it would create aside). Nothing is written, no processor is called. Where the processor drives billing the proration is its own: the preview shows the pending change and invoice null.', params: SubscriptionIdParamsSchema, body: PlanChangeRequestSchema, response: { 200: envelopeSchema(PlanChangeResultSchema) } },
    }, async (request) => ok(await service.previewPlanChange(ctx, principalOf(request), request.params.subscriptionId, request.body)));

    app.delete(`${base}/subscriptions/:subscriptionId/plan-change/scheduled`, {
      config: { customerKey: 'read' },
      schema: { tags, operationId: 'cancelScheduledPlanChange', summary: 'Cancel a pending scheduled plan change', params: SubscriptionIdParamsSchema, response: { 200: emptyEnvelopeSchema } },
    }, async (request) => okEmpty(await service.cancelScheduledPlanChange(ctx, principalOf(request), request.params.subscriptionId)));

    app.get(`${base}/billing/invoices/:ref`, {
      schema: { tags, operationId: 'listCustomerInvoices', summary: "A customer's invoices, newest first", description: 'Tenant key; also a customer portal token for its own customer (ADR 0025; another reference is 403). Customer keys: 403.', params: RefParamsSchema, querystring: pageQuerySchema, response: { 200: envelopeSchema(pageSchema(InvoiceSchema)) } },
    }, async (request) => ok(await service.listCustomerInvoicePage(ctx, principalOf(request), request.params.ref, request.query)));

    app.get(`${base}/billing/invoices/:invoiceId/pdf`, {
      schema: { tags, operationId: 'getInvoicePdf', summary: 'The invoice as a PDF document', description: PDF_DESCRIPTION, params: PdfParamsSchema, response: { 200: PdfSchema } },
    }, async (request, reply) => sendPdf(reply, await getInvoicePdf(ctx, principalOf(request), request.params.invoiceId)));

    app.post(`${base}/billing/invoices/:invoiceId/mark-paid`, {
      schema: { tags, operationId: 'markInvoicePaid', summary: 'Settle a DUE invoice (no payment processor connected)', params: InvoiceIdParamsSchema, response: { 200: envelopeSchema(InvoiceSchema) } },
    }, async (request) => ok(await service.markInvoicePaid(ctx, accountIdOf(request), request.params.invoiceId)));
  };
}

const adminTags = ['Subscriptions and billing (admin)'];

/** Admin API: invoices and subscriptions of the account. */
export function billingAdminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/monetization';
    app.get(`${base}/billing/invoices`, {
      schema: { tags: adminTags, operationId: 'listInvoices', summary: 'Invoices of the account, newest first', querystring: z.object({ onlyDue: queryBoolean.optional(), customerId: z.uuid().optional() }), response: { 200: envelopeSchema(z.array(InvoiceSchema)) } },
    }, async (request) => ok(await service.listAccountInvoices(ctx, accountIdOf(request), request.query)));
    app.get(`${base}/billing/invoices/:invoiceId`, {
      schema: { tags: adminTags, operationId: 'getInvoice', summary: 'An invoice with its lines', params: InvoiceIdParamsSchema, response: { 200: envelopeSchema(InvoiceSchema) } },
    }, async (request) => ok(await service.getInvoice(ctx, accountIdOf(request), request.params.invoiceId)));
    app.get(`${base}/billing/invoices/:invoiceId/pdf`, {
      schema: { tags: adminTags, operationId: 'getInvoicePdfAdmin', summary: 'The invoice as a PDF document', description: PDF_DESCRIPTION, params: PdfParamsSchema, response: { 200: PdfSchema } },
    }, async (request, reply) => sendPdf(reply, await getInvoicePdf(ctx, principalOf(request), request.params.invoiceId)));
    app.patch(`${base}/billing/invoices/:invoiceId`, {
      schema: { tags: adminTags, operationId: 'markInvoicePaidAdmin', summary: 'Mark an invoice paid', params: InvoiceIdParamsSchema, response: { 200: envelopeSchema(InvoiceSchema) } },
    }, async (request) => ok(await service.markInvoicePaid(ctx, accountIdOf(request), request.params.invoiceId)));
    app.get(`${base}/billing/overview`, {
      schema: { tags: adminTags, operationId: 'getBillingOverview', summary: 'Subscriptions that bill, MRR from plan prices and invoices past due, per currency (the console overview)', response: { 200: envelopeSchema(BillingOverviewSchema) } },
    }, async (request) => ok(await service.getBillingOverview(ctx, accountIdOf(request))));
    app.get(`${base}/subscriptions/:subscriptionId`, {
      schema: { tags: adminTags, operationId: 'getSubscription', summary: 'A subscription', params: SubscriptionIdParamsSchema, response: { 200: envelopeSchema(SubscriptionSchema) } },
    }, async (request) => ok(await service.getSubscriptionView(ctx, accountIdOf(request), request.params.subscriptionId)));
  };
}
