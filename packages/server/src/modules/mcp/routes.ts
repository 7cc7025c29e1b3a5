import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { principalOf } from '../../platform/http/principal.js';

/**
 * The MCP SDK and the tools, loaded at the first call, not with the server: a fifth of a second of
 * module loading every process would pay (each node at start, each test file) before anyone calls.
 */
let sdk: Promise<[typeof import('./server.js'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]> | undefined;
const loadSdk = () => (sdk ??= Promise.all([import('./server.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]));

/**
 * CORS for browser clients (the MCP Inspector's direct mode), as the SDK's examples set it: any
 * origin (a key in a header is the credential; no cookies), the MCP headers exposed. Preflights
 * name the headers a client sends: the key headers and the MCP session and protocol headers.
 */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id, X-Request-Id',
} as const;
const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, X-API-Key, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id',
  'access-control-max-age': '600',
} as const;

/** The answer of the SDK's stateless examples to GET and DELETE: no SSE stream, no session to end. */
const METHOD_NOT_ALLOWED = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null } as const;

/**
 * `/mcp` (contract §8): Streamable HTTP, stateless, JSON responses. Each POST gets a fresh server
 * and transport, so any node answers any call. The auth hook has already admitted a tenant or
 * customer key (the route is open to customer keys; each tool checks its own scope). Not in the
 * OpenAPI document: it is a JSON-RPC endpoint, described in the README.
 */
export function mcpRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    if (!ctx.config.mcpEnabled) return;
    const options = { adminToolsEnabled: ctx.config.mcpAdminToolsEnabled };
    // Every reply of this scope, errors of the auth hook included (401 must be readable by the page).
    app.addHook('onSend', async (_request, reply) => {
      reply.headers(CORS_HEADERS);
    });
    app.options('/mcp', { config: { corsPreflight: true }, schema: { hide: true } }, async (_request, reply) => reply.code(204).headers(PREFLIGHT_HEADERS).send());
    app.post('/mcp', { config: { customerKey: 'read' }, schema: { hide: true } }, async (request, reply) => {
      const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await loadSdk();
      const server = createMcpServer({ ctx, principal: principalOf(request), request }, options);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      // The transport writes the response itself: Fastify must not send another.
      reply.hijack();
      reply.raw.setHeader('X-Request-Id', request.id);
      for (const [name, value] of Object.entries(CORS_HEADERS)) reply.raw.setHeader(name, value);
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (err) {
        request.log.error({ err, requestId: request.id }, 'mcp request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' });
          reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }));
        }
      }
    });
    for (const method of ['GET', 'DELETE'] as const) {
      app.route({
        method,
        url: '/mcp',
        config: { customerKey: 'read' },
        schema: { hide: true },
        handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send(METHOD_NOT_ALLOWED),
      });
    }
  };
}
