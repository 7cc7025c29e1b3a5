import type { FastifyRequest } from 'fastify';

// A Host value that can stand in a URL: a DNS name, IPv4 or bracketed IPv6, and an optional port.
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The public origin links are built on (pricing.json, signup `nextSteps`): APP_PUBLIC_BASE_URL when
 * configured, else the request's own origin (protocol and host; X-Forwarded-Proto/-Host only when
 * APP_TRUST_PROXY is on, which Fastify's trustProxy decides). No trailing slash. A Host that is not a
 * plain host[:port] is not echoed into links: `localhost` stands in for it.
 */
export function publicBaseUrl(configured: string | undefined, request: FastifyRequest): string {
  if (configured) return configured;
  const host = HOST.test(request.host ?? '') ? request.host : 'localhost';
  return `${request.protocol}://${host}`;
}
