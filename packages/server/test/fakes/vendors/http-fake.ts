import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The loopback HTTP server every vendor fake (Anthropic, OpenAI, Cursor, GitHub, LiteLLM, Slack,
 * Resend) runs on. A fake supplies one handler; this records each request (so tests can assert
 * what the client sent) and writes the handler's answer. Test code only.
 */
export type FakeRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** Raw body text ('' when none). */
  body: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  json: unknown;
};

export type FakeResponse = {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (timeout tests). */
  delayMs?: number;
};

export type HttpFake = {
  /** Origin, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  requests: FakeRequest[];
  close(): Promise<void>;
};

export async function startHttpFake(handler: (req: FakeRequest) => FakeResponse | Promise<FakeResponse>): Promise<HttpFake> {
  const requests: FakeRequest[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    let json: unknown = undefined;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    const request: FakeRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, json };
    requests.push(request);
    let answer: FakeResponse;
    try {
      answer = await handler(request);
    } catch (err) {
      answer = { status: 500, json: { error: { message: `fake failed: ${(err as Error).message}` } } };
    }
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    if (res.destroyed) return;
    const headers: Record<string, string> = { ...answer.headers };
    let payload = answer.text ?? '';
    if (answer.json !== undefined) {
      payload = JSON.stringify(answer.json);
      headers['content-type'] ??= 'application/json';
    }
    res.writeHead(answer.status ?? 200, headers);
    res.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
