import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { FieldError } from '../../platform/errors/app-error.js';
import { stringifyJson } from '../../platform/http/json.js';

export const CONFIRMATION_REQUIRED_MESSAGE = 'This tool spends money. Set confirmAction to true after your principal approved it.';

export type ToolError = { code: string; message: string; fields?: FieldError[]; requestId?: string };

/**
 * A successful tool result (§8.3): one text item holding the payload JSON without the envelope,
 * written by the service's own codec (decimals exact), and `structuredContent` with the same data,
 * an array wrapped as `{ items }` because MCP requires an object there. The structured copy is the
 * text read back as plain JSON: the SDK serialises it with JSON.stringify, which cannot carry the
 * codec's exact decimals; the text stays the exact form.
 */
export function toolSuccess(payload: unknown): CallToolResult {
  const text = stringifyJson(payload ?? null);
  const plain: unknown = JSON.parse(text);
  const structured = Array.isArray(plain) ? { items: plain } : plain !== null && typeof plain === 'object' ? plain : { value: plain };
  return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
}

/** A tool error (§8.3): `isError`, the error envelope as the text and as `structuredContent`. */
export function toolFailure(error: ToolError): CallToolResult {
  const envelope = {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.fields ? { fields: error.fields } : {}),
      ...(error.requestId ? { requestId: error.requestId } : {}),
    },
  };
  const text = stringifyJson(envelope);
  return { isError: true, content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
}

/** Zod issues in the REST message format: `Validation failed: <field>: <reason>, …` with `fields[]`. */
export function validationFailure(issues: z.core.$ZodIssue[]): ToolError {
  const fields = issues.map((issue) => ({
    field: issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join(''),
    message: /received undefined$/.test(issue.message) ? 'is required' : issue.message.replace(/^Invalid input: /, ''),
  }));
  return {
    code: 'invalid_request',
    message: `Validation failed: ${fields.map((f) => `${f.field || 'arguments'}: ${f.message}`).join(', ')}`,
    fields,
  };
}
