import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, type FieldError } from '../errors/app-error.js';
import { ERROR_CODES, type ErrorCode } from '../errors/codes.js';
import { uniqueViolationOf, UNIQUE_KEY_MESSAGE } from '../db/errors.js';

/**
 * The one error handler: every failure leaves as the one envelope with a stable code and the
 * request id. Causes of 5xx answers go to the log under that id, never to the client.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) {
      request.log.error({ err: error, requestId: request.id }, 'request failed');
    } else {
      request.log.debug({ code: appError.code, requestId: request.id }, appError.message);
    }
    return sendError(request, reply, appError);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new AppError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`)),
  );
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError) {
  const { detail, fields, headers, data } = error.options;
  if (headers) reply.headers(headers);
  return reply.code(error.status).send({
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(detail ? { detail } : {}),
      ...(fields ? { fields } : {}),
      requestId: request.id,
    },
    ...(data === undefined ? {} : { data }),
  });
}

const FASTIFY_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'Unsupported Content-Type: send application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['validation_failed', 'Malformed request body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['validation_failed', 'Malformed request body'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'Request body is too large'],
  FST_ERR_CTP_INVALID_TYPE: ['unsupported_media_type', 'Unsupported Content-Type'],
};

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) return fromValidation(error);
  // A unique violation no service mapped is still a duplicate key, never a 500 (contract §1.4).
  if (uniqueViolationOf(error)) return new AppError('conflict', UNIQUE_KEY_MESSAGE, { cause: error });
  if (error instanceof SyntaxError) return new AppError('validation_failed', 'Malformed request body');
  const fastifyError = error as FastifyError;
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped) return new AppError(mapped[0], mapped[1]);
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    const code = (Object.keys(ERROR_CODES) as ErrorCode[]).find((c) => ERROR_CODES[c].status === status);
    return new AppError(code ?? 'validation_failed', fastifyError.message);
  }
  return new AppError('internal_error', 'Internal Server Error', { cause: error });
}

type ValidationFailure = {
  validation: { instancePath: string; message?: string | undefined }[];
  validationContext?: string;
};

function fromValidation(error: ValidationFailure): AppError {
  const fields: FieldError[] = error.validation.map((issue) => ({
    field: toFieldPath(issue.instancePath),
    message: humanise(issue.message ?? 'is invalid'),
  }));
  const context = error.validationContext;
  if (context === 'querystring' || context === 'params') {
    const first = fields[0]!;
    const missing = first.message === 'is required';
    return new AppError(
      'validation_failed',
      missing ? `Missing required parameter: ${first.field}` : `Invalid value for parameter: ${first.field}`,
      { fields },
    );
  }
  const summary = fields.map((f) => `${f.field || 'body'}: ${f.message}`).join(', ');
  return new AppError('validation_failed', `Validation failed: ${summary}`, { fields });
}

/** "/entries/0/creditsPerUnit" → "entries[0].creditsPerUnit" */
export function toFieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .filter(Boolean)
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

function humanise(message: string): string {
  return /received undefined$/.test(message) ? 'is required' : message.replace(/^Invalid input: /, '');
}
