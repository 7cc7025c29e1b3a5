import { isCurrencyCode } from '../../platform/currency.js';
import { checkMandateSettings, checkOnboardingFields, ONBOARDING_AUDITED, toOnboardingSettings } from './agent-onboarding.js';
import type { StripeMode } from './tables.js';
import type { AccountSettings, CheckedPatch, SettingsPatch, SettingsProblem } from './types.js';
import { dec, isDecimal, type Decimal } from '../../platform/money.js';
import { normaliseCostConfig, toCostConfig } from './cost-config.js';
import type { SettingsRow } from './repo.js';
import { MAX_TAX_ID_LENGTH, normaliseAddressLines, normaliseText } from '../../platform/document-fields.js';

/**
 * Pure rules of the account settings (contract §5.1): field checks with the contract's messages,
 * the merge of a PATCH into the stored settings, the cross-field rules on the merged state, and
 * the audit entries a change writes. No I/O, no clock.
 */

export type { AccountSettings, CheckedPatch, SettingsPatch, SettingsProblem } from './types.js';

const DEFAULT_AGENT_SIGNUP_HOURLY_CAP = 10;
export const DEFAULT_CURRENCY = 'USD';
/** agentSignupHourlyCap: 1 … this (README "Bounds"). */
export const MAX_AGENT_SIGNUP_HOURLY_CAP = 1_000_000;
/** agentMaxTopupAmount: the column is numeric(20,4); the same ceiling as a plan price. */
export const MAX_AGENT_TOPUP_AMOUNT = '1000000000000';
export const AGENT_TOPUP_SCALE = 4;
export const MAX_URL_LENGTH = 2048;
/** usageThresholdPercents (api-contract-events.md §E7.2): the default, and at most this many entries. */
export const DEFAULT_USAGE_THRESHOLD_PERCENTS: readonly number[] = [80, 100];
export const MAX_USAGE_THRESHOLD_PERCENTS = 10;

export const STRIPE_MODES: readonly StripeMode[] = ['NONE', 'PAYMENT_PASS_THROUGH', 'PROCESSOR_INTEGRATION'];
/** The original's names of PROCESSOR_INTEGRATION (`STRIPE_INTEGRATION`, legacy `FULL_SYNC`). */
export const STRIPE_MODE_ALIASES: Readonly<Record<string, StripeMode>> = {
  STRIPE_INTEGRATION: 'PROCESSOR_INTEGRATION',
  FULL_SYNC: 'PROCESSOR_INTEGRATION',
};

const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])?$/;

export const MESSAGES = {
  slug: 'Slug must be 2-63 lowercase letters, digits, or hyphens, starting and ending alphanumeric',
  catalogNeedsSlug: 'Set a slug before enabling the public catalog',
  slugClearedUnderCatalog: 'Disable the public catalog before clearing the slug',
  planNotActive: 'Agent signup default plan must be ACTIVE',
  planNotFree: 'Agent signup default plan must be free — paid conversion happens after signup, authenticated',
  signupNeedsPlan: 'Set a free default plan before enabling agent signup',
  planClearedUnderSignup: 'Disable agent signup before clearing its default plan',
  hourlyCapMin: 'agentSignupHourlyCap must be at least 1',
  topupNegative: 'agentMaxTopupAmount must not be negative',
  usageThresholdPercents: 'usageThresholdPercents must hold at most 10 distinct integers from 1 to 100',
  invoiceNumberPrefix: 'invoiceNumberPrefix must be 1-10 letters or digits',
  legalName: 'legalName must be at most 200 characters',
  addressLines: 'addressLines allows at most 6 lines of 200 characters',
  taxId: 'taxId must be at most 64 characters',
  contactEmail: 'contactEmail must be an e-mail address',
} as const;

export const DEFAULT_INVOICE_NUMBER_PREFIX = 'INV';
const INVOICE_NUMBER_PREFIX = /^[A-Z0-9]{1,10}$/;
export const MAX_LEGAL_NAME_LENGTH = 200;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Trimmed, lower-cased slug, or the contract's message. */
export function normaliseSlug(slug: string): { slug: string } | { problem: string } {
  const normalised = slug.trim().toLowerCase();
  return SLUG_PATTERN.test(normalised) ? { slug: normalised } : { problem: MESSAGES.slug };
}

/** The mode a sent value names (aliases resolved), or null when it names none (STRIPE_DRIVEN included). */
export function parseStripeMode(value: string): StripeMode | null {
  if ((STRIPE_MODES as readonly string[]).includes(value)) return value as StripeMode;
  return Object.hasOwn(STRIPE_MODE_ALIASES, value) ? STRIPE_MODE_ALIASES[value]! : null;
}

/** An ISO 4217 code, trimmed and upper-cased ("usd" → "USD"), or null. */
export function normaliseCurrency(value: string): string | null {
  const code = value.trim().toUpperCase();
  return isCurrencyCode(code) ? code : null;
}

/** True for an absolute http(s) URL with a host (checkout redirects go to a browser). */
export function isRedirectUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || value.trim() !== value) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** 0–10 distinct integers from 1 to 100, stored ascending; null: the default (§E7.2). */
export function checkThresholdPercents(value: number[] | null): { percents: number[] } | { problem: string } {
  if (value === null) return { percents: [...DEFAULT_USAGE_THRESHOLD_PERCENTS] };
  const ok = value.length <= MAX_USAGE_THRESHOLD_PERCENTS && new Set(value).size === value.length && value.every((p) => Number.isInteger(p) && p >= 1 && p <= 100);
  return ok ? { percents: [...value].sort((a, b) => a - b) } : { problem: MESSAGES.usageThresholdPercents };
}

/** 0 clears the cap (null); negatives, values above the column's range and extra decimals are refused. */
export function checkTopupAmount(amount: Decimal): { amount: Decimal | null } | { problem: string } {
  if (amount.lt(0)) return { problem: MESSAGES.topupNegative };
  if (amount.gt(MAX_AGENT_TOPUP_AMOUNT)) return { problem: `agentMaxTopupAmount must be at most ${MAX_AGENT_TOPUP_AMOUNT}` };
  if (amount.decimalPlaces() > AGENT_TOPUP_SCALE) return { problem: `agentMaxTopupAmount allows at most ${AGENT_TOPUP_SCALE} decimals` };
  return { amount: amount.isZero() ? null : amount };
}

/**
 * Each sent field checked on its own and normalised (slug lower-cased, alias resolved, currency
 * upper-cased, 0 cap → null); the first problem in the contract's field order, else the patch.
 * Rules between fields and against the stored state are `mergeSettings`'.
 */
export function checkPatchFields(patch: SettingsPatch): { patch: CheckedPatch } | { problem: SettingsProblem } {
  const out: CheckedPatch = {};
  const fail = (field: string, message: string) => ({ problem: { field, message } });
  if (patch.slug !== undefined) {
    if (patch.slug === null) out.slug = null;
    else {
      const slug = normaliseSlug(patch.slug);
      if ('problem' in slug) return fail('slug', slug.problem);
      out.slug = slug.slug;
    }
  }
  if (patch.publicCatalogEnabled !== undefined) out.publicCatalogEnabled = patch.publicCatalogEnabled;
  if (patch.agentSignupDefaultPlanId !== undefined) out.agentSignupDefaultPlanId = patch.agentSignupDefaultPlanId?.toLowerCase() ?? null;
  if (patch.agentSignupEnabled !== undefined) out.agentSignupEnabled = patch.agentSignupEnabled;
  if (patch.agentSignupHourlyCap !== undefined) {
    if (patch.agentSignupHourlyCap < 1) return fail('agentSignupHourlyCap', MESSAGES.hourlyCapMin);
    if (patch.agentSignupHourlyCap > MAX_AGENT_SIGNUP_HOURLY_CAP) {
      return fail('agentSignupHourlyCap', `agentSignupHourlyCap must be at most ${MAX_AGENT_SIGNUP_HOURLY_CAP}`);
    }
    out.agentSignupHourlyCap = patch.agentSignupHourlyCap;
  }
  if (patch.agentMaxTopupAmount !== undefined) {
    const cap = patch.agentMaxTopupAmount === null ? { amount: null } : checkTopupAmount(patch.agentMaxTopupAmount);
    if ('problem' in cap) return fail('agentMaxTopupAmount', cap.problem);
    out.agentMaxTopupAmount = cap.amount;
  }
  const onboarding = checkOnboardingFields(patch);
  if ('problem' in onboarding) return onboarding;
  Object.assign(out, onboarding.patch);
  if (patch.stripeMode !== undefined) {
    const mode = parseStripeMode(patch.stripeMode);
    if (!mode) return fail('stripeMode', `Invalid stripeMode: ${patch.stripeMode}. Valid values: ${STRIPE_MODES.join(', ')}`);
    out.stripeMode = mode;
  }
  if (patch.currency !== undefined) {
    const currency = normaliseCurrency(patch.currency);
    if (!currency) return fail('currency', `Invalid currency code: ${patch.currency.trim().toUpperCase()}`);
    out.currency = currency;
  }
  for (const field of ['stripeCheckoutSuccessUrl', 'stripeCheckoutCancelUrl'] as const) {
    const url = patch[field];
    if (url === undefined) continue;
    if (url !== null && !isRedirectUrl(url)) return fail(field, `${field} must be an absolute http or https URL`);
    out[field] = url;
  }
  if (patch.defaultCostConfig !== undefined) {
    const config = normaliseCostConfig(patch.defaultCostConfig);
    if ('problem' in config) return config;
    out.defaultCostConfig = config.config;
  }
  if (patch.usageThresholdPercents !== undefined) {
    const percents = checkThresholdPercents(patch.usageThresholdPercents);
    if ('problem' in percents) return fail('usageThresholdPercents', percents.problem);
    out.usageThresholdPercents = percents.percents;
  }
  const issuer = checkIssuerFields(patch);
  if ('problem' in issuer) return issuer;
  return { patch: { ...out, ...issuer.patch } };
}

/** The issuer fields of §1.1, each with its exact message; null (or "") clears, the prefix back to INV. */
function checkIssuerFields(patch: SettingsPatch): { patch: CheckedPatch } | { problem: SettingsProblem } {
  const out: CheckedPatch = {};
  const fail = (field: keyof typeof MESSAGES) => ({ problem: { field, message: MESSAGES[field] } });
  if (patch.invoiceNumberPrefix !== undefined) {
    const prefix = (patch.invoiceNumberPrefix ?? '').trim().toUpperCase();
    if (prefix === '') out.invoiceNumberPrefix = DEFAULT_INVOICE_NUMBER_PREFIX;
    else if (INVOICE_NUMBER_PREFIX.test(prefix)) out.invoiceNumberPrefix = prefix;
    else return fail('invoiceNumberPrefix');
  }
  if (patch.legalName !== undefined) {
    const name = normaliseText(patch.legalName, MAX_LEGAL_NAME_LENGTH);
    if (name === undefined) return fail('legalName');
    out.legalName = name;
  }
  if (patch.addressLines !== undefined) {
    const lines = patch.addressLines === null ? [] : normaliseAddressLines(patch.addressLines);
    if (lines === null) return fail('addressLines');
    out.addressLines = lines;
  }
  if (patch.taxId !== undefined) {
    const taxId = normaliseText(patch.taxId, MAX_TAX_ID_LENGTH);
    if (taxId === undefined) return fail('taxId');
    out.taxId = taxId;
  }
  if (patch.contactEmail !== undefined) {
    const email = normaliseText(patch.contactEmail, 320);
    if (email === undefined || (email !== null && !EMAIL.test(email))) return fail('contactEmail');
    out.contactEmail = email;
  }
  return { patch: out };
}

/** What the settings rules need to know about a plan: null when it is not a plan of this account. */
export type PlanFacts = { status: 'DRAFT' | 'ACTIVE' | 'ARCHIVED'; priceAmount: Decimal | null } | null;

/**
 * The default plan whose validity this patch depends on: the one it sets, or the stored one when
 * it turns signup on (a plan archived since it was chosen must not open signup again). null: none.
 */
export function planToCheck(current: AccountSettings, patch: CheckedPatch): string | null {
  if (typeof patch.agentSignupDefaultPlanId === 'string') return patch.agentSignupDefaultPlanId;
  if (patch.agentSignupEnabled === true && patch.agentSignupDefaultPlanId === undefined) return current.agentSignupDefaultPlanId;
  return null;
}

/** The contract's message when the plan cannot be the signup default, else null. */
export function checkDefaultPlan(planId: string, plan: PlanFacts): string | null {
  if (!plan) return `Plan not found on this account: ${planId}`;
  if (plan.status !== 'ACTIVE') return MESSAGES.planNotActive;
  if (plan.priceAmount !== null && !plan.priceAmount.isZero()) return MESSAGES.planNotFree;
  return null;
}

/**
 * The settings after the patch, or the first rule it breaks. `plan` describes `planToCheck`'s plan
 * (undefined when there is none to check). The cross-field rules (catalog ⇒ slug, signup ⇒ default
 * plan) are checked on the merged state, but only when the patch touches one of their fields: a
 * PATCH of other fields is never refused for a state it did not make; turning a surface off is
 * always allowed.
 */
export function mergeSettings(current: AccountSettings, patch: CheckedPatch, plan?: PlanFacts): { next: AccountSettings } | { problem: SettingsProblem } {
  const planId = planToCheck(current, patch);
  if (planId !== null) {
    const message = checkDefaultPlan(planId, plan ?? null);
    if (message) return { problem: { field: 'agentSignupDefaultPlanId', message } };
  }
  const next: AccountSettings = { ...current, ...patch };
  const mandateProblem = checkMandateSettings(current, patch, next);
  if (mandateProblem) return { problem: mandateProblem };
  if ((patch.slug !== undefined || patch.publicCatalogEnabled !== undefined) && next.publicCatalogEnabled && next.slug === null) {
    return patch.slug === null && current.publicCatalogEnabled
      ? { problem: { field: 'slug', message: MESSAGES.slugClearedUnderCatalog } }
      : { problem: { field: 'publicCatalogEnabled', message: MESSAGES.catalogNeedsSlug } };
  }
  if (
    (patch.agentSignupEnabled !== undefined || patch.agentSignupDefaultPlanId !== undefined) &&
    next.agentSignupEnabled &&
    next.agentSignupDefaultPlanId === null
  ) {
    return patch.agentSignupDefaultPlanId === null && current.agentSignupEnabled
      ? { problem: { field: 'agentSignupDefaultPlanId', message: MESSAGES.planClearedUnderSignup } }
      : { problem: { field: 'agentSignupEnabled', message: MESSAGES.signupNeedsPlan } };
  }
  return { next };
}

/** One row of the account audit log, before it has an id and a time. */
export type AuditEntry = { action: string; details: Record<string, unknown> };

/** Settings whose every change is audit-logged: they open or close public surfaces, move money or cap it. */
const AUDITED: readonly [keyof AccountSettings, string][] = [
  ['stripeMode', 'STRIPE_MODE_CHANGED'],
  ['slug', 'SLUG_CHANGED'],
  ['publicCatalogEnabled', 'PUBLIC_CATALOG_ENABLED_CHANGED'],
  ['agentSignupEnabled', 'AGENT_SIGNUP_ENABLED_CHANGED'],
  ['agentSignupDefaultPlanId', 'AGENT_SIGNUP_DEFAULT_PLAN_CHANGED'],
  ['agentMaxTopupAmount', 'AGENT_MAX_TOPUP_AMOUNT_CHANGED'],
  ...ONBOARDING_AUDITED,
];

const same = (a: unknown, b: unknown) => (isDecimal(a) && isDecimal(b) ? a.eq(b) : a === b);

/** The audit entries for what changed between two states (`{ from, to }`); none when nothing audited changed. */
export function auditEntries(before: AccountSettings, after: AccountSettings): AuditEntry[] {
  return AUDITED.filter(([field]) => !same(before[field], after[field])).map(([field, action]) => ({
    action,
    details: { field, from: before[field], to: after[field] },
  }));
}

export function toAccountSettings(accountId: string, row: SettingsRow | undefined): AccountSettings {
  return {
    accountId,
    slug: row?.slug ?? null,
    publicCatalogEnabled: row?.public_catalog_enabled ?? false,
    agentSignupEnabled: row?.agent_signup_enabled ?? false,
    agentSignupDefaultPlanId: row?.agent_signup_default_plan_id ?? null,
    agentSignupHourlyCap: row?.agent_signup_hourly_cap ?? DEFAULT_AGENT_SIGNUP_HOURLY_CAP,
    agentMaxTopupAmount: row?.agent_max_topup_amount == null ? null : dec(row.agent_max_topup_amount),
    ...toOnboardingSettings(row),
    stripeMode: row?.stripe_mode ?? 'NONE',
    currency: row?.currency ?? DEFAULT_CURRENCY,
    stripeCheckoutSuccessUrl: row?.stripe_checkout_success_url ?? null,
    stripeCheckoutCancelUrl: row?.stripe_checkout_cancel_url ?? null,
    defaultCostConfig: toCostConfig(row?.default_cost_config),
    usageThresholdPercents: row ? row.usage_threshold_percents.map(Number) : [...DEFAULT_USAGE_THRESHOLD_PERCENTS],
    invoiceNumberPrefix: row?.invoice_number_prefix ?? DEFAULT_INVOICE_NUMBER_PREFIX,
    legalName: row?.legal_name ?? null,
    addressLines: row?.address_lines ?? [],
    taxId: row?.tax_id ?? null,
    contactEmail: row?.contact_email ?? null,
  };
}
