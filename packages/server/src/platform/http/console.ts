import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Config } from '../../config.js';
import { envelopeSchema, ok } from './envelope.js';

/**
 * The operator console (apps/console, ADR 0019): its Vite build is served next to the API.
 * Hashed assets under /assets/ are immutable for a year; index.html is never cached, so a new
 * build is picked up on the next load. Any other GET that asks for HTML and is not an API path
 * falls back to index.html (the console's router owns it); API paths keep their 404 envelope.
 */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../../../../apps/console/dist', import.meta.url));

/** Paths that belong to the service, never to the console's router (their 404 stays the envelope). */
const SERVICE_PREFIXES = ['/api', '/public', '/v3', '/swagger-ui', '/healthz', '/readyz', '/metrics', '/mcp', '/.well-known', '/assets'];

const ConsoleInfoSchema = z
  .object({
    modules: z
      .object({ monetization: z.boolean(), build: z.boolean() })
      .describe('Which modules this install has switched on; the console hides the pages of the others'),
    devLogin: z
      .boolean()
      .describe('True outside production: `npm start` seeds a dev account and prints its login at startup (DEV_SEED_* variables)'),
  })
  .meta({ id: 'ConsoleInfo' });

/** True when a GET or HEAD request is for a console page: not a service path, not a file, and it accepts HTML. */
export function isConsolePage(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const path = request.url.split('?', 1)[0]!;
  if (SERVICE_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`))) return false;
  if (path.split('/').pop()!.includes('.')) return false;
  return (request.headers.accept ?? '').includes('text/html');
}

export function consoleRoutes(config: Config, consoleDir: string): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/public/v1/console',
      {
        schema: {
          tags: ['Operations'],
          operationId: 'getConsoleInfo',
          summary: 'What the web console needs before sign-in: the switched-on modules and whether a dev login exists',
          response: { 200: envelopeSchema(ConsoleInfoSchema) },
        },
      },
      async () => ok({ modules: { ...config.modules }, devLogin: !config.isProduction }),
    );

    if (existsSync(join(consoleDir, 'assets'))) {
      await app.register(fastifyStatic, {
        root: join(consoleDir, 'assets'),
        prefix: '/assets/',
        // File names carry a content hash: a changed file has a new name.
        maxAge: '365d',
        immutable: true,
        index: false,
        schemaHide: true,
      });
    }
    app.get('/', { schema: { hide: true } }, (_request, reply) => sendIndex(reply, consoleDir));
  };
}

/** The console's index.html (no-cache), or a page saying how to build it when this checkout has none. */
export async function sendIndex(reply: FastifyReply, consoleDir: string): Promise<FastifyReply> {
  let html: string;
  try {
    html = await readFile(join(consoleDir, 'index.html'), 'utf8');
  } catch {
    return reply.code(503).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
  }
  return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
}

/** Registers the history fallback: a console page that no route matched gets index.html. */
export function consoleFallback(consoleDir: string) {
  return (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | null =>
    isConsolePage(request) ? sendIndex(reply, consoleDir) : null;
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tally: console not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#eee;padding:0 .25rem}</style>
</head><body>
<h1>Tally is running; its console is not built</h1>
<p>This checkout has no <code>apps/console/dist</code>. Build it with <code>npm run build -w @tally/console</code>
(<code>npm ci</code> builds it too), then reload, or run <code>npm run dev:console</code> for the live dev server.</p>
<p>The API answers as usual: <a href="/swagger-ui.html">API docs</a>, <a href="/healthz">/healthz</a>.</p>
</body></html>`;
