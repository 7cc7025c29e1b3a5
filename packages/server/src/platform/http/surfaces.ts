/**
 * Which credential a path takes and which module owns it. Decided by path prefix alone, so unknown
 * routes under a prefix behave like known ones (401 before 404, module_disabled before 404).
 */
export type Surface = 'open' | 'client' | 'admin';

export function surfaceOf(path: string): Surface {
  if (path.startsWith('/api/v1/client/') || path === '/api/v1/client' || path === '/mcp' || path.startsWith('/mcp/')) {
    return 'client';
  }
  if (path.startsWith('/api/v1/') || path === '/api/v1') return 'admin';
  return 'open';
}

export type ModuleName = 'monetization' | 'build';

const BUILD_PREFIXES = ['/api/v1/spend/', '/api/v1/client/outcomes'];
const MONETIZATION_PREFIXES = [
  '/api/v1/monetization/',
  '/api/v1/client/',
  '/api/v1/analytics/',
  '/api/v1/tanso/events/',
  '/api/v1/tanso/customers/',
  '/api/v1/tanso/csv-import/',
  '/api/v1/data/stripe/',
  '/public/v1/catalog/',
  '/public/stripe/',
  // The agent discovery documents and the checkout return pages (api-contract-agent-v2.md §5.1).
  '/llms.txt/',
  '/.well-known/agent.json/',
  '/agent-signup.md/',
  '/.well-known/agent-skills/',
  '/public/checkout/',
  // Every MCP tool is a billing-engine tool.
  '/mcp/',
];

export function moduleOf(path: string): ModuleName | null {
  const withSlash = path.endsWith('/') ? path : `${path}/`;
  // Build prefixes first: /api/v1/client/outcomes belongs to the build module.
  if (BUILD_PREFIXES.some((p) => withSlash.startsWith(p.endsWith('/') ? p : `${p}/`))) return 'build';
  if (MONETIZATION_PREFIXES.some((p) => withSlash.startsWith(p))) return 'monetization';
  return null;
}

export const MODULE_DISABLED_MESSAGES: Record<ModuleName, string> = {
  monetization: 'Monetization is switched off on this install: APP_MODULES_MONETIZATION_ENABLED=false',
  build: 'The build side (internal AI spend) is switched off on this install: APP_MODULES_BUILD_ENABLED=false',
};
