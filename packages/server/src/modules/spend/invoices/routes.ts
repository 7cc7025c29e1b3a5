import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors/app-error.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { MAX_INVOICE_ROWS } from './csv.js';
import { INVOICE_MULTIPART_LIMITS, readInvoiceForm, uploadedFileName } from './form.js';
import { InvoiceFormSchema, InvoiceIdParams, MAX_INVOICE_FILE_BYTES, SpendInvoiceSchema } from './schema.js';
import * as service from './service.js';

const tags = ['Spend invoices'];
const base = '/api/v1/spend/invoices';

const IMPORT_DESCRIPTION = [
  'multipart/form-data with the parts provider, periodStart, periodEnd (dates, both inclusive), currency (default USD) and file (the CSV).',
  'Every row is checked before anything is written: a file with any bad row imports nothing and answers 400 validation_failed,',
  'the message naming the first problem ("Row 3, column amount: not a number: \'abc\'"; the header is row 1) and `fields` listing up to 50.',
  'Amounts are major units (dollars) converted exactly to cents; negative lines (credits, discounts) are allowed, a negative total is not.',
  `Limits: the file at most ${MAX_INVOICE_FILE_BYTES} bytes (else 413 payload_too_large) and ${MAX_INVOICE_ROWS} line items;`,
  'a body that is not multipart/form-data answers 415 unsupported_media_type.',
].join(' ');

/** Invoice import, list and delete (contract §7.8). Multipart parsing is registered here only. */
export function invoiceRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(multipart, { limits: INVOICE_MULTIPART_LIMITS });
    // Any other body type on these routes: 415 naming what the upload takes (JSON stays parsed, and
    // the upload refuses it in readInvoiceForm).
    app.addContentTypeParser('*', (_request, _payload, done) =>
      done(new AppError('unsupported_media_type', 'Unsupported Content-Type: send the invoice as multipart/form-data'), undefined));

    app.post(base, {
      schema: { tags, operationId: 'importSpendInvoice', summary: 'Import a vendor invoice from a CSV file', description: IMPORT_DESCRIPTION, consumes: ['multipart/form-data'], body: InvoiceFormSchema, response: { 201: envelopeSchema(SpendInvoiceSchema) } },
      preValidation: readInvoiceForm,
    }, async (request, reply) => {
      const invoice = await service.importInvoice(ctx, { accountId: accountIdOf(request), form: request.body, fileName: uploadedFileName(request) });
      return reply.code(201).send(ok(invoice));
    });
    app.get(base, { schema: { tags, operationId: 'listSpendInvoices', summary: 'Imported invoices, latest period first (then in import order), with their lines', response: { 200: envelopeSchema(z.array(SpendInvoiceSchema)) } } },
      async (request) => ok(await service.listInvoices(ctx, accountIdOf(request))));
    app.delete(`${base}/:id`, { schema: { tags, operationId: 'deleteSpendInvoice', summary: 'Delete an imported invoice and its lines', params: InvoiceIdParams, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await service.deleteInvoice(ctx, accountIdOf(request), request.params.id)));
  };
}
