import { pricingUrl, signupUrl, type DiscoveryInput } from './domain.js';

/**
 * The agent signup runbook served at `/agent-signup.md` (contract agent-v2 §5.4): our own text,
 * adapted to this contract (email required, per-address cap off by default, key budgets, the gate
 * table of §1.2). `{base}` is always replaced; `{slug}` by the first catalog (slug order) whose
 * signup is listed, else it stays literal and the catalogs section says no catalog has signup on.
 */
const RUNBOOK = `# Agent signup runbook

How an agent gets an account on this instance, uses its free plan, and pays when it needs more.
There is no CAPTCHA and no e-mail confirmation; a human is needed only when money moves.

## Catalogs

{catalogs}

## 1. Read the catalog

\`\`\`
curl {base}/public/v1/catalog/{slug}/pricing.json
\`\`\`

Plans, features, credit weights and governance flags. A plan's \`id\` in this document is the plan key.

## 2. Sign up

\`\`\`
curl -X POST {base}/public/v1/catalog/{slug}/signup \\
  -H 'Content-Type: application/json' \\
  -d '{ "email": "ops@example.com", "name": "research-agent-1" }'
\`\`\`

- \`email\` is required: the contact of the agent's owner. Nothing is sent to it, and it never finds an
  existing customer: every signup makes a new customer.
- \`name\` is optional (up to 100 characters).
- \`spend_mandate\` is optional: \`{ "max_amount": 50, "currency": "<account currency>", "period": "month" }\`
  asks the owner to approve off-session charges up to that amount per day, week or month.

Errors: \`404 not_found\` when the catalog has no signup at that address (the same body whatever the
reason); \`400 validation_failed\` for a missing or bad e-mail or a bad \`spend_mandate\`;
\`429 rate_limited\` with \`Retry-After\` (seconds) when a signup cap is reached (see Rate limits).

## 3. The answer (201)

\`data\` holds \`customerReferenceId\` (your reference, \`agent_…\`), \`apiKey\` (shown once), \`apiKeyScopes\`
(\`read\`, \`purchase\`), \`plan\` (the plan key), \`status\` (\`provisional\`), \`expires_at\`, \`limits\`,
\`spend_mandate\` (null unless you asked; else \`pending\` with a \`setup_url\` to hand to your owner, or
\`unavailable\`), \`status_url\`, \`owner_url\` and \`nextSteps\` (the URLs below, filled in for you).
Null fields are written out, never omitted.

## 4. Store the key once

The key is not shown again. Send it on every call, and only for your own reference (another
customer's answers 403):

\`\`\`
-H 'X-API-Key: <apiKey>'
\`\`\`

## 5. Check your status

\`\`\`
curl {base}/api/v1/client/customers/<customerReferenceId>/status -H 'X-API-Key: <apiKey>'
\`\`\`

\`status\` is \`provisional\`, \`claimed\` or \`expired\`; \`plan\`, \`limits\`, \`remaining\` per feature,
\`spend\` (the calling key's money budget, null when it has none), \`owner_email\` and \`spend_mandate\`.

## 6. Use the plan

Check before work, record after:

\`\`\`
curl {base}/api/v1/client/entitlements/<customerReferenceId>/<featureKey> -H 'X-API-Key: <apiKey>'

curl -X POST {base}/api/v1/client/events \\
  -H 'X-API-Key: <apiKey>' -H 'Content-Type: application/json' \\
  -d '{ "featureKey": "<featureKey>", "eventName": "chat.completion", "eventIdempotencyKey": "evt-1", "usageUnits": 1 }'
\`\`\`

- Current period and burndown: \`GET {base}/api/v1/client/customers/<customerReferenceId>/usage\`
- Recorded events, newest first, paged: \`GET {base}/api/v1/client/customers/<customerReferenceId>/usage/events\`
- Usage summed per plan, feature and event name: \`GET {base}/api/v1/client/customers/<customerReferenceId>/usage/history?from=<timestamp>&to=<timestamp>\`
- Credit balances: \`GET {base}/api/v1/client/credits/<customerReferenceId>/pools\`
- Buy credits: \`POST {base}/api/v1/client/credits/purchases\`
- Subscribe or change plan: \`POST {base}/api/v1/client/subscriptions\` with a plan from pricing.json

Writes accept an \`Idempotency-Key\` header: the same key and body within 24 hours replays the first
answer. An answer that carries a gate is not stored, so a retry after \`retry_after\` runs again.

## 7. Gates: 402 and 403

Every 402, and every 403 caused by a budget, a cap or a key scope, carries these fields in \`error\`,
always present, null when they do not apply: \`gate\`, \`action\`, \`url\`, \`poll\`, \`retry_after\`;
\`detail\` is \`errorId=<id>\` to quote to the operator. A 402 keeps its \`data\`.

| status | code | gate | action | what to do |
|---|---|---|---|---|
| 402 | \`payment_required\` | \`payment\` | \`complete_checkout\` | Hand \`url\` to your owner; poll \`poll\` until it clears, then retry. With \`url\` null no payment processor is connected: contact the operator |
| 402 | \`payment_required\` | \`payment\` | \`nominate_owner\` | \`PUT\` \`{"email": …}\` to \`url\` (your owner endpoint), then retry |
| 403 | \`budget_exceeded\` | \`budget\` | \`wait\` | Your key's budget window (or your owner's mandate window) is used up: wait \`retry_after\` seconds, then retry once |
| 403 | \`budget_exceeded\` | \`budget\` | \`raise_spend_cap\` | Your key's lifetime budget is used up: ask the operator to raise it |
| 403 | \`spend_cap_exceeded\` | \`budget\` | \`raise_spend_cap\` | One charge is above the operator's cap or your key's whole budget: buy less or ask the operator |
| 403 | \`spend_cap_exceeded\` | \`budget\` | \`raise_mandate\` | One charge is above what your owner approved: hand \`url\` to your owner to approve more, or buy less |
| 403 | \`scope_denied\` | \`scope\` | \`request_scope\` | Your key lacks the \`purchase\` scope: ask the operator for one that has it |
| 403 | \`forbidden\` | \`scope\` | \`use_own_reference\` | Use your own \`customerReferenceId\` |
| 403 | \`forbidden\` | \`scope\` | \`request_scope\` | The route is not open to customer keys |

## 8. Owner, budgets and expiry

- \`PUT {base}/api/v1/client/customers/<customerReferenceId>/owner\` with \`{"email": …}\` records your
  owner's contact. It sends nothing and does not claim the account.
- The operator may set a budget on your key (credits and money per day, week, month or in total);
  \`spend\` in your status shows the money side.
- A provisional account expires at \`expires_at\` (by default 14 days after signup). Paying claims it:
  \`status\` becomes \`claimed\` and \`expires_at\` null. After expiry every call with its keys answers
  401; sign up again (your usage is kept).

## Rate limits

- Per catalog: the operator's hourly signup cap (10 an hour unless changed).
- Per client address: off unless the operator sets one.

Both answer \`429 rate_limited\` with a \`Retry-After\` header in seconds: wait that long.

## Reference

- OpenAPI: {base}/v3/api-docs
- API reference: {base}/swagger-ui.html
- Manifest: {base}/.well-known/agent.json
- Index: {base}/llms.txt
`;

/** `/agent-signup.md` (§5.4). */
export function buildAgentSignupMd({ baseUrl: base, catalogs }: DiscoveryInput): string {
  const first = catalogs.find((c) => c.signup);
  const listed = catalogs.map((c) => `- \`${c.slug}\`: pricing ${pricingUrl(base, c.slug)}; ${c.signup ? `signup ${signupUrl(base, c.slug)}` : 'signup not enabled'}`);
  if (!first) listed.push('', 'No catalog on this instance has signup enabled: ask the operator for a key; `{slug}` below stays a placeholder.');
  return RUNBOOK.replace('{catalogs}', () => listed.join('\n'))
    .replaceAll('{base}', () => base)
    .replaceAll('{slug}', () => (first ? encodeURIComponent(first.slug) : '{slug}'));
}
