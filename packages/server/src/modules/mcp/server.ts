import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AppError } from '../../platform/errors/app-error.js';
import { credentialOf } from '../../platform/http/auth.js';
import { toAppError } from '../../platform/http/error-handler.js';
import { keyHint } from '../../platform/security/api-keys.js';
import { CONFIRMATION_REQUIRED_MESSAGE, toolFailure, toolSuccess, validationFailure, type ToolError } from './result.js';
import { ADMIN_TOOL_NAMES, TOOLS, TOOLS_BY_NAME, UNAVAILABLE_TOOLS, type ToolCall, type ToolSpec } from './tools.js';

const CONFIRM_ACTION = z.boolean().optional().describe('Must be true, after your principal approved this action; without it nothing runs (confirmation_required).');

/** The schema a tool validates its arguments with: its input, plus `confirmAction` when it needs one. */
const schemas = new Map<string, z.ZodObject>(TOOLS.map((t) => [t.name, t.confirm ? t.input.extend({ confirmAction: CONFIRM_ACTION }) : t.input]));

/** What tools/list says of a tool: its name, description and input as JSON Schema (computed once). */
const descriptors = new Map<string, Tool>(
  TOOLS.map((t) => [
    t.name,
    {
      name: t.name,
      description: t.description,
      inputSchema: z.toJSONSchema(schemas.get(t.name)!, { io: 'input', unrepresentable: 'any' }) as Tool['inputSchema'],
      annotations: { readOnlyHint: !t.changesState, destructiveHint: Boolean(t.confirm), openWorldHint: false },
    },
  ]),
);

type McpOptions = { adminToolsEnabled: boolean };

/** The tools this key may see (§8.1): customer keys the six curated, tenant keys also the tenant tools, admin tools behind the flag. */
function visibleTools(call: Pick<ToolCall, 'principal'>, options: McpOptions): ToolSpec[] {
  return TOOLS.filter((t) =>
    t.access === 'curated' ? true : call.principal.kind !== 'tenant' ? false : t.access === 'tenant' ? true : options.adminToolsEnabled,
  );
}

/** A fresh MCP server for one request (stateless: nothing outlives the request). */
export function createMcpServer(call: ToolCall, options: McpOptions): Server {
  const server = new Server({ name: 'tally', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: visibleTools(call, options).map((t) => descriptors.get(t.name)!) }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => callTool(call, options, req.params.name, req.params.arguments ?? {}));
  return server;
}

/**
 * One tool call, in the contract's order: the tool must exist for this key (admin flag, key kind);
 * then confirmAction before any other check; the purchase scope; the arguments; the customer
 * reference a tenant key must send; then the same service function as the REST route. A
 * payment_required outcome is a result with checkoutUrl, not an error (§8.3).
 */
export async function callTool(call: ToolCall, options: McpOptions, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const { principal, request } = call;
  const spec = TOOLS_BY_NAME.get(name);
  if (ADMIN_TOOL_NAMES.has(name) && !options.adminToolsEnabled) {
    return fail(call, { code: 'admin_tools_disabled', message: `Admin tools are switched off on this install: APP_MCP_ADMIN_TOOLS_ENABLED=false (${name})` });
  }
  const unavailable = UNAVAILABLE_TOOLS.get(name);
  if (!spec && !unavailable) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
  if (spec?.access !== 'curated' && principal.kind !== 'tenant') return fail(call, { code: 'forbidden', message: 'Access denied' });
  if (!spec) return fail(call, { code: 'not_found', message: unavailable! });
  if (spec.confirm && args.confirmAction !== true) return fail(call, { code: 'confirmation_required', message: CONFIRMATION_REQUIRED_MESSAGE });
  if (spec.purchase && principal.kind === 'customer' && !principal.scopes.includes('purchase')) {
    return fail(call, { code: 'forbidden', message: "This API key lacks the 'purchase' scope" });
  }
  const parsed = schemas.get(name)!.safeParse(args);
  if (!parsed.success) return fail(call, validationFailure(parsed.error.issues));
  const { confirmAction: _confirm, ...input } = parsed.data as Record<string, unknown>;
  if (spec.customerScoped && principal.kind === 'tenant' && input.customerReferenceId === undefined) {
    return fail(call, { code: 'invalid_request', message: 'customerReferenceId is required for tenant API keys' });
  }
  let result: CallToolResult;
  try {
    result = toolSuccess(await spec.run(call, input));
  } catch (err) {
    const error = toAppError(err);
    if (error.code === 'payment_required' && error.options.data !== undefined) {
      result = toolSuccess(error.options.data);
    } else {
      if (error.status >= 500) request.log.error({ err, requestId: request.id, mcpTool: name }, 'mcp tool failed');
      result = fail(call, fromAppError(error));
    }
  }
  if (spec.changesState) logStateChange(call, name, result);
  return result;
}

function fromAppError(error: AppError): ToolError {
  return {
    code: error.code === 'validation_failed' ? 'invalid_request' : error.code,
    message: error.message,
    ...(error.options.fields ? { fields: error.options.fields } : {}),
  };
}

function fail(call: ToolCall, error: ToolError): CallToolResult {
  return toolFailure({ ...error, requestId: call.request.id });
}

/** Every state-changing call, with the key's hint (never the key) and the tool name. */
function logStateChange({ principal, request }: ToolCall, tool: string, result: CallToolResult) {
  const credential = credentialOf(request);
  request.log.info(
    {
      mcpTool: tool,
      keyHint: credential ? keyHint(credential) : null,
      keyId: principal.kind === 'admin' ? null : principal.keyId,
      outcome: result.isError ? (JSON.parse((result.content[0] as { text: string }).text) as { error: { code: string } }).error.code : 'ok',
    },
    'mcp tool call',
  );
}
