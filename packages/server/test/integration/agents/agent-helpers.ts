import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { TestService } from '../../harness.js';

export type CatalogSettings = {
  slug: string;
  publicCatalogEnabled?: boolean;
  agentSignupEnabled?: boolean;
  agentSignupDefaultPlanId?: string | null;
  agentSignupHourlyCap?: number;
  /** A decimal string; `'0'` clears the cap. */
  agentMaxTopupAmount?: string;
};

/**
 * Sets the account's agent-surface settings through the Admin API (PATCH
 * /api/v1/tanso/account-settings), as an operator would. Defaults: catalog open, signup off.
 */
export async function setCatalogSettings(svc: TestService, auth: { token: string }, s: CatalogSettings): Promise<void> {
  const body = {
    slug: s.slug,
    publicCatalogEnabled: s.publicCatalogEnabled ?? true,
    ...(s.agentSignupDefaultPlanId ? { agentSignupDefaultPlanId: s.agentSignupDefaultPlanId } : {}),
    agentSignupEnabled: s.agentSignupEnabled ?? false,
    agentSignupHourlyCap: s.agentSignupHourlyCap ?? 10,
    ...(s.agentMaxTopupAmount === undefined ? {} : { agentMaxTopupAmount: s.agentMaxTopupAmount }),
  };
  const res = await svc.http.patch('/api/v1/tanso/account-settings', { auth: auth.token, body });
  if (res.status !== 200) throw new Error(`account settings PATCH failed: ${res.status} ${res.text}`);
}

/**
 * Writes columns of the settings row directly, for states the PATCH refuses on purpose (a default
 * plan that is no longer free or ACTIVE must still be refused by signup itself).
 */
export async function forceSettingsRow(svc: TestService, accountId: string, values: { agent_signup_default_plan_id?: string | null }): Promise<void> {
  await svc.ctx.db.updateTable('account_settings').set(values).where('account_id', '=', accountId).execute();
}

// A copy of the external schema (its $id names the upstream file), so the tests need no network.
const schemaPath = new URL('./pricing.schema.json', import.meta.url);

/**
 * The external pricing.json schema (draft 2020-12) compiled with formats, as an agent would check a
 * document: the returned function gives the schema errors as text, or null when the document is valid.
 */
export function pricingSchemaValidator(): (doc: unknown) => string | null {
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
  const ajv = new Ajv2020.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  return (doc) => (validate(doc) ? null : JSON.stringify(validate.errors));
}
