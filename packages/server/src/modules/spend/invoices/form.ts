import type { FastifyRequest } from 'fastify';
import { AppError, invalidField } from '../../../platform/errors/app-error.js';
import { MAX_INVOICE_FILE_BYTES } from './schema.js';

/** Longest text part (provider, dates, currency are short; anything longer is a mistake). */
const MAX_FIELD_BYTES = 1024;
/** Form parts accepted: the five the contract names and a few a client might add. */
const MAX_PARTS = 20;
/** Longest uploaded file name kept as `importedFrom`. */
const MAX_FILE_NAME_LENGTH = 255;

/** Busboy limits of the invoice upload (the file part is the only one that may be large). */
export const INVOICE_MULTIPART_LIMITS = {
  fileSize: MAX_INVOICE_FILE_BYTES,
  files: 2,
  fields: MAX_PARTS,
  parts: MAX_PARTS,
  fieldSize: MAX_FIELD_BYTES,
  fieldNameSize: 100,
};

const fileNames = new WeakMap<FastifyRequest, string | null>();

/** The name of the file uploaded with this request (`importedFrom`), or null. */
export function uploadedFileName(request: FastifyRequest): string | null {
  return fileNames.get(request) ?? null;
}

/**
 * preValidation of the invoice upload: reads the multipart stream into `request.body` (text parts
 * as strings, the `file` part as its bytes; its name for `uploadedFileName`) so the route's schema validates
 * it like any body. A body that is not multipart answers 415; limits and malformed multipart
 * answer 413 or 400 with a stable code, never a 500.
 */
export async function readInvoiceForm(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) {
    throw new AppError('unsupported_media_type', 'Send the invoice as multipart/form-data (parts provider, periodStart, periodEnd, currency, file)');
  }
  const body: Record<string, string | Buffer> = {};
  try {
    for await (const part of request.parts({ limits: INVOICE_MULTIPART_LIMITS })) {
      if (Object.hasOwn(body, part.fieldname)) throw invalidField(part.fieldname, 'sent more than once');
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw invalidField(part.fieldname, 'unexpected file part; send the CSV in the part named file');
        body.file = await part.toBuffer();
        fileNames.set(request, fileNameOf(part.filename));
      } else {
        if (part.fieldname === 'file') throw invalidField('file', 'must be a file part holding the CSV (curl: -F file=@invoice.csv)');
        if (part.valueTruncated) throw invalidField(part.fieldname, `longer than ${MAX_FIELD_BYTES} bytes`);
        body[part.fieldname] = String(part.value);
      }
    }
  } catch (err) {
    throw toFormError(err);
  }
  request.body = body;
}

/** The uploaded file's own name (no directories, no control characters), or null. */
function fileNameOf(name: string | undefined): string | null {
  // eslint-disable-next-line no-control-regex
  const base = (name ?? '').split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').replace(/[\ud800-\udfff]/g, '').trim();
  return base === '' ? null : base.slice(0, MAX_FILE_NAME_LENGTH);
}

/** Errors of @fastify/multipart and busboy as the one envelope's codes. */
function toFormError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError('payload_too_large', `file: larger than ${MAX_INVOICE_FILE_BYTES} bytes`);
    case 'FST_FILES_LIMIT':
      return invalidField('file', 'send one file part, named file');
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new AppError('payload_too_large', `At most ${MAX_PARTS} form parts`);
    case 'FST_PROTO_VIOLATION':
      return new AppError('validation_failed', 'Malformed multipart/form-data body: a part name is reserved');
    default:
      // Busboy's own failures (no boundary, truncated body, bad part headers) and a JSON part
      // that does not parse: the body is malformed.
      return new AppError('validation_failed', `Malformed multipart/form-data body: ${(err as Error).message ?? 'unreadable'}`, { cause: err });
  }
}
