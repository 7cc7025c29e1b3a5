import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestService } from '../../harness.js';

/** The SDK's own client on real HTTP to the test service, with the key in the X-API-Key header. */
export async function mcpClient(svc: TestService, key: string): Promise<Client> {
  const client = new Client({ name: 'tally-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${svc.baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } });
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
