import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type FieldError } from '../errors/app-error.js';
import { ERROR_CODES, type ErrorCode } from '../errors/codes.js';
import { uniqueViolationOf, UNIQUE_KEY_MESSAGE } from '../db/errors.js';
import { defaultGate, isGatedAnswer, toGateFields } from '../errors/gate.js';
import { publicBaseUrl } from './base-url.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The answer carried a gate (api-contract-agent-v2.md §1.2): idempotency does not store it (§1.4). */
    gated?: boolean;
  }
}

/**
 * The one error handler: every failure leaves as the one envelope with a stable code and the
 * request id. Causes of 5xx answers go to the log under that id, never to the client.
 *
 * `allowedMethods(path)` lists the methods routed on a path (empty when the path is unknown): a
 * known path with another method answers 405 method_not_allowed with `Allow`, an unknown one 404.
 * `fallback` may answer an unrouted request first (the console's history fallback); null passes.
 * `configuredBaseUrl` (APP_PUBLIC_BASE_URL) makes a gate's URLs absolute (else the request's origin).
 */
export function registerErrorHandling(
  app: FastifyInstance,
  allowedMethods: (path: string) => string[] = () => [],
  fallback: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | null = () => null,
  configuredBaseUrl?: string,
): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else if (appError !== error && isDataException(error)) {
      request.log.warn({ err: error }, 'input refused by the database');
    } else {
      request.log.debug({ code: appError.code }, appError.message);
    }
    return sendError(request, reply, appError, configuredBaseUrl);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]!;
    const allowed = allowedMethods(path);
    // A routed method can still miss (a wildcard route's file does not exist): that is a 404.
    const routed = allowed.includes(request.method === 'HEAD' ? 'GET' : request.method);
    if (allowed.length > 0 && !routed) {
      return sendError(
        request,
        reply,
        new AppError('method_not_allowed', `Method ${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, {
          headers: { allow: allowed.join(', ') },
        }),
      );
    }
    return fallback(request, reply) ?? sendError(request, reply, new AppError('not_found', `No route for ${request.method} ${path}`));
  });
}

/**
 * Fastify's `frameworkErrors`: failures before routing (a path that is not valid percent-encoded
 * UTF-8, a path parameter longer than the router accepts) in the envelope.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'Invalid value for parameter: a path segment is longer than the service accepts'
      : error.code === 'FST_ERR_BAD_URL'
        ? 'Malformed URL: the path is not valid percent-encoded UTF-8'
        : 'Malformed request';
  request.log.debug({ code: error.code }, message);
  return sendError(request, reply, new AppError('validation_failed', message));
}

/**
 * Node's `clientError` (the request could not be parsed as HTTP: unknown method, headers or URL
 * too large, timeout): the envelope written on the socket, with a fresh request id.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const [code, message]: [ErrorCode, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ['headers_too_large', 'The request line or headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', 'The request took too long to arrive']
        : ['validation_failed', 'Malformed HTTP request'];
  const status = ERROR_CODES[code].status;
  const requestId = randomUUID();
  const body = JSON.stringify({ success: false, error: { code, message, requestId } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Renders the one envelope. On the Client API every 402 and every gated 403 (api-contract-agent-v2.md
 * §1.2) carries the five gate fields (the thrower's gate, else the default for its code) and
 * `detail: errorId=<requestId>`; nothing else carries them (Admin API, MCP, 401, 404, 429).
 */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError, configuredBaseUrl?: string) {
  const { detail, fields, headers, data } = error.options;
  reply.header('X-Request-Id', request.id);
  if (headers) reply.headers(headers);
  const gated = isGatedAnswer(error.status, error.code) && request.url.startsWith('/api/v1/client/');
  if (gated) request.gated = true;
  const gate = gated
    ? toGateFields(error.options.gate ?? defaultGate(error.code, error.message, data), publicBaseUrl(configuredBaseUrl, request))
    : undefined;
  return reply.code(error.status).send({
    success: false,
    error: {
      code: error.code,
      ...gate,
      message: error.message,
      ...(gated ? { detail: `errorId=${request.id}` } : detail ? { detail } : {}),
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

/** Any thrown value as the AppError the envelope reports (unique violations → conflict, data exceptions → 400, the rest 500). */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) return fromValidation(error);
  // A unique violation no service mapped is still a duplicate key, never a 500 (contract §1.4).
  if (uniqueViolationOf(error)) return new AppError('conflict', UNIQUE_KEY_MESSAGE, { cause: error });
  if (error instanceof SyntaxError) return new AppError('validation_failed', 'Malformed request body');
  if (isDataException(error)) {
    return new AppError('validation_failed', 'Validation failed: a value is out of the range or format the service can store');
  }
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

/**
 * A safety net, not a validation: PostgreSQL data exceptions caused by input (SQLSTATE class 22:
 * numeric out of range, invalid text representation, bad encoding, NUL in text, datetime out of
 * range; 54000 program limit exceeded) answer 400, never 500. Route schemas state the real bounds.
 */
function isDataException(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, hops = 0; e && hops < 3; e = e.cause as typeof e, hops++) {
    if (typeof e.code === 'string' && /^(22[0-9A-Z]{3}|54000)$/.test(e.code) && !('statusCode' in e)) return true;
  }
  return false;
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
