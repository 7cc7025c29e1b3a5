import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestService } from '../../harness.js';

/** The SDK's own client on real HTTP to the test service, with the key in the X-API-Key header. */
export async function mcpClient(svc: TestService, key: string, options: { fetch?: typeof fetch } = {}): Promise<Client> {
  const client = new Client({ name: 'tally-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${svc.baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': key } }, ...options });
  await client.connect(transport);
  return client;
}

export type ToolOutcome = { isError: boolean; text: string; json: any; structured: any };

/** Calls a tool and reads its one text item as JSON. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const item = result.content[0] as { type: string; text: string };
  if (result.content.length !== 1 || item.type !== 'text') throw new Error(`expected one text item: ${JSON.stringify(result)}`);
  return { isError: result.isError === true, text: item.text, json: JSON.parse(item.text), structured: result.structuredContent };
}

const SAFELISTED_REQUEST = new Set(['accept', 'accept-language', 'content-language']);
const SAFELISTED_RESPONSE = new Set(['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma']);

/**
 * A fetch that applies a browser's CORS checks for a page on `origin` (the MCP Inspector in direct
 * mode): a preflight for every non-simple request that must admit the method and each header, an
 * Access-Control-Allow-Origin on every answer, and only safelisted or exposed response headers
 * readable. A refusal throws, as a browser's fetch does.
 */
export function browserCorsFetch(origin: string): typeof fetch {
  const list = (v: string | null) => (v ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const allowsOrigin = (res: Response) => ['*', origin].includes(res.headers.get('access-control-allow-origin') ?? '');
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers);
    const custom = [...headers.keys()].filter((h) => !SAFELISTED_REQUEST.has(h) && !(h === 'content-type' && /^(text\/plain|multipart\/form-data|application\/x-www-form-urlencoded)/.test(headers.get(h)!)));
    if (custom.length > 0 || !['GET', 'HEAD', 'POST'].includes(method)) {
      const preflight = await fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': custom.sort().join(',') } });
      if (!preflight.ok || !allowsOrigin(preflight)) throw new TypeError(`CORS preflight refused: ${preflight.status}`);
      const methods = list(preflight.headers.get('access-control-allow-methods'));
      if (!['get', 'head', 'post'].includes(method.toLowerCase()) && !methods.includes(method.toLowerCase())) throw new TypeError(`CORS preflight: method ${method} not allowed`);
      const allowed = list(preflight.headers.get('access-control-allow-headers'));
      for (const h of custom) if (!allowed.includes(h)) throw new TypeError(`CORS preflight: header ${h} not allowed`);
    }
    headers.set('origin', origin);
    const res = await fetch(url, { ...init, headers });
    if (!allowsOrigin(res)) throw new TypeError(`CORS: no Access-Control-Allow-Origin on ${method} ${res.status}`);
    const exposed = new Set(list(res.headers.get('access-control-expose-headers')));
    const visible = new Headers();
    res.headers.forEach((value, name) => {
      if (SAFELISTED_RESPONSE.has(name) || exposed.has(name)) visible.set(name, value);
    });
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers: visible });
  };
}
