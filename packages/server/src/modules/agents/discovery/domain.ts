/**
 * The agent discovery documents (contract agent-v2 §5.2–§5.5), built from the published catalogs
 * without I/O. Nothing from the request but the base URL goes in (and that only when
 * APP_PUBLIC_BASE_URL is unset): no query, no header.
 */

/** What the instance calls itself in the documents. */
export const SERVICE_NAME = 'Tally';
const SERVICE_DESCRIPTION =
  'Usage-based billing API: published catalogs, one-call agent signup, entitlement checks, usage events, credits and paid plans behind a machine-readable payment gate.';

/** A published catalog: its pricing document answers; `signup` when its signup route would sign an agent up. */
export type PublishedCatalog = { slug: string; signup: boolean };

export type DiscoveryInput = {
  /** Public origin, no trailing slash. */
  baseUrl: string;
  /** Ascending slug order; at least one (none published is the 404). */
  catalogs: PublishedCatalog[];
};

export const pricingUrl = (base: string, slug: string) => `${base}/public/v1/catalog/${encodeURIComponent(slug)}/pricing.json`;
export const signupUrl = (base: string, slug: string) => `${base}/public/v1/catalog/${encodeURIComponent(slug)}/signup`;

/** The instance-wide links every document shares. */
export function discoveryLinks(base: string) {
  return {
    openapi: `${base}/v3/api-docs`,
    apiReference: `${base}/swagger-ui.html`,
    llms: `${base}/llms.txt`,
    agentJson: `${base}/.well-known/agent.json`,
    runbook: `${base}/agent-signup.md`,
    skills: `${base}/.well-known/agent-skills/index.json`,
  };
}

const GATE_SENTENCE =
  'Every 402, and every 403 caused by a budget, a cap or a key scope, carries a gate in its error object: error.gate (payment, budget or scope), error.action (what clears it), error.url (a page to hand to a human), error.poll (a URL to poll until it clears) and error.retry_after (seconds to wait), each null when it does not apply.';

/** `/llms.txt` (§5.2): Markdown-flavoured plain text. */
export function buildLlmsTxt({ baseUrl: base, catalogs }: DiscoveryInput): string {
  const links = discoveryLinks(base);
  const client = `${base}/api/v1/client`;
  const lines = [
    `# ${SERVICE_NAME}`,
    '',
    `> ${SERVICE_DESCRIPTION} An agent reads a catalog, signs up with one POST, and uses the API with the key it gets.`,
    '',
    '## Catalogs',
    '',
  ];
  for (const c of catalogs) {
    lines.push(`- [${c.slug} pricing](${pricingUrl(base, c.slug)}): plans, features, credit weights and governance flags (JSON, no authentication)`);
    if (c.signup) {
      lines.push(
        `- [${c.slug} signup](${signupUrl(base, c.slug)}): POST {"email": "<address>"} (email required; "name" optional) to get a customer on the free plan and an API key in one call`,
      );
    }
  }
  lines.push(
    '',
    '## How to use this API',
    '',
    '- Send the key on every call in the header `X-API-Key: <key>`. Signup shows it once: store it.',
    `- Your status (plan, limits, remaining usage, budget, expiry): GET ${client}/customers/{referenceId}/status`,
    `- Check an entitlement before work: GET ${client}/entitlements/{referenceId}/{featureKey}`,
    `- Record usage after work: POST ${client}/events`,
    `- Usage: GET ${client}/customers/{referenceId}/usage (current period), GET ${client}/customers/{referenceId}/usage/events, GET ${client}/customers/{referenceId}/usage/history?from=…&to=…`,
    `- Buy credits: POST ${client}/credits/purchases`,
    `- Subscribe or change plan: POST ${client}/subscriptions`,
    '- Gates: every 402, and every 403 caused by a budget, a cap or a key scope, carries these fields in `error`, null when they do not apply: ' +
      '`gate` (payment, budget or scope), `action` (what clears it), `url` (a page to hand to a human), `poll` (a URL to poll until it clears), `retry_after` (seconds to wait).',
    '',
    '## Specification',
    '',
    `- [OpenAPI document](${links.openapi})`,
    `- [API reference](${links.apiReference})`,
    `- [Agent manifest](${links.agentJson})`,
    `- [Agent signup runbook](${links.runbook})`,
    `- [Agent skills index](${links.skills})`,
    '',
  );
  return lines.join('\n');
}

/** `/.well-known/agent.json` (§5.3), keys in the contract's order. */
export function buildAgentJson({ baseUrl: base, catalogs }: DiscoveryInput) {
  const links = discoveryLinks(base);
  const firstSignup = catalogs.find((c) => c.signup);
  return {
    name: SERVICE_NAME,
    description: SERVICE_DESCRIPTION,
    url: base,
    catalogs: catalogs.map((c) => ({ slug: c.slug, pricing: pricingUrl(base, c.slug), ...(c.signup ? { signup: signupUrl(base, c.slug) } : {}) })),
    agent_signup: firstSignup !== undefined,
    auth: { scheme: 'api-key' as const, header: 'X-API-Key' as const, obtained_from: firstSignup ? signupUrl(base, firstSignup.slug) : 'the operator of this instance' },
    payment: { protocol: 'http-402' as const, description: GATE_SENTENCE },
    openapi: links.openapi,
    docs: links.llms,
    runbook: links.runbook,
    skills: links.skills,
  };
}

/** `/.well-known/agent-skills/index.json` (§5.5). */
export function buildSkillsIndex(base: string) {
  return {
    skills: [
      {
        name: 'agent-signup',
        description: 'Sign an agent up to a published catalog, use its free plan with the key it gets, and pay through the gate when it needs more.',
        url: discoveryLinks(base).runbook,
      },
    ],
  };
}
