import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tenant's webhook receiver on loopback (api-contract-events.md): it keeps every request it gets
 * and answers what the test asks (`mode`, or a `plan` per request). The tests verify what it got
 * with the official `standardwebhooks` package.
 */
export type Received = { headers: IncomingHttpHeaders; body: string; path: string };
export type Mode = 'ok' | 'fail' | 'gone' | 'hang' | 'redirect';

export class WebhookReceiver {
  received: Received[] = [];
  mode: Mode = 'ok';
  /** When set, answers the n-th request (0-based, this path) with its status after its delay. */
  plan: ((n: number) => { status: number; delayMs: number }) | null = null;
  private server: Server;
  constructor() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body, path: req.url ?? '' });
        if (this.plan) {
          const { status, delayMs } = this.plan(this.received.filter((r) => r.path === req.url).length - 1);
          return void setTimeout(() => res.writeHead(status).end(), delayMs);
        }
        if (this.mode === 'hang') return;
        if (this.mode === 'redirect') return void res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
        const status = this.mode === 'ok' ? 200 : this.mode === 'gone' ? 410 : 500;
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'thanks' : 'x'.repeat(3000));
      });
    });
  }
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  close() {
    this.server.closeAllConnections();
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
