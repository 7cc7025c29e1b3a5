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
  agentMaxTopupAmount?: string | null;
};

/**
 * Writes the account's settings row directly (the settings PATCH route lands beside this module;
 * these tests need only the row).
 */
export async function setCatalogSettings(svc: TestService, accountId: string, s: CatalogSettings): Promise<void> {
  const now = svc.clock.now();
  const values = {
    slug: s.slug,
    public_catalog_enabled: s.publicCatalogEnabled ?? true,
    agent_signup_enabled: s.agentSignupEnabled ?? false,
    agent_signup_default_plan_id: s.agentSignupDefaultPlanId ?? null,
    agent_signup_hourly_cap: s.agentSignupHourlyCap ?? 10,
    agent_max_topup_amount: s.agentMaxTopupAmount ?? null,
    modified_at: now,
  };
  await svc.ctx.db
    .insertInto('account_settings')
    .values({ account_id: accountId, ...values, stripe_mode: 'NONE', currency: 'USD', stripe_checkout_success_url: null, stripe_checkout_cancel_url: null, created_at: now })
    .onConflict((oc) => oc.column('account_id').doUpdateSet(values))
    .execute();
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
