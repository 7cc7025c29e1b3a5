/** One registered route: its method and its URL pattern (`/a/:id/b`, `/static/*`). */
export type RoutePattern = { method: string; url: string };

/**
 * The methods routed on a concrete path, for 405 answers and their `Allow` header. Patterns are
 * compiled once, on first use (every route is registered before the server listens). GET implies
 * HEAD, as Fastify exposes HEAD for every GET route. The path is matched as sent (still encoded),
 * with the router's tolerance of one trailing slash.
 */
export function allowedMethodsFrom(routes: readonly RoutePattern[]): (path: string) => string[] {
  let compiled: { method: string; pattern: RegExp }[] | null = null;
  return (path) => {
    compiled ??= routes.map((r) => ({ method: r.method, pattern: toPattern(r.url) }));
    const target = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const methods = new Set<string>();
    for (const { method, pattern } of compiled) if (pattern.test(target)) methods.add(method);
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}

function toPattern(url: string): RegExp {
  const trimmed = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
  const source = trimmed
    .split('/')
    .map((segment) =>
      segment === '*' ? '.*' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${source}$`);
}
