import { invalid } from '../../../platform/errors/app-error.js';
import type { SpendProvider } from '../tables.js';
import { PROVIDERS } from '../providers.js';

/** Connection rules (contract §7.2), pure. */

export const MAX_LABEL_LENGTH = 100;
export const MAX_SCOPE_LENGTH = 200;
export const MAX_ADMIN_KEY_LENGTH = 4096;

export type CreateConnectionInput = { provider: SpendProvider; label: string; adminKey: string; scope?: string | null | undefined };
export type NewConnection = { provider: SpendProvider; label: string; adminKey: string; scope: string | null };

/**
 * The create request made canonical: label and key trimmed and required, the scope required for
 * COPILOT (organisation) and LITELLM (proxy URL, trailing slashes dropped; the outbound-URL guard
 * checks it after this), ignored and stored null for the others.
 */
export function newConnectionOf(input: CreateConnectionInput): NewConnection {
  const label = input.label.trim();
  if (label === '') throw invalid('Validation failed: label: must not be blank', { fields: [{ field: 'label', message: 'must not be blank' }] });
  const adminKey = input.adminKey.trim();
  if (adminKey === '') throw invalid('Validation failed: adminKey: must not be blank', { fields: [{ field: 'adminKey', message: 'must not be blank' }] });
  return { provider: input.provider, label, adminKey, scope: scopeOf(input.provider, input.scope) };
}

function scopeOf(provider: SpendProvider, raw: string | null | undefined): string | null {
  const meaning = PROVIDERS[provider].scopeMeaning;
  if (!meaning) return null;
  const scope = (raw ?? '').trim();
  if (scope === '') throw invalid(`${provider} needs a scope (${meaning})`);
  return provider === 'LITELLM' ? scope.replace(/\/+$/, '') : scope;
}

export function duplicateLabelMessage(provider: SpendProvider, label: string): string {
  return `A ${provider} connection labelled "${label}" already exists — replace its key instead`;
}

/** The only part of an admin key ever shown: its last 4 characters. */
export function keyHintOf(adminKey: string): string {
  return adminKey.slice(-4);
}

/** A replacement key, trimmed; empty → 400 "adminKey is empty" (contract §7.2). */
export function replacementKeyOf(raw: string): string {
  const key = raw.trim();
  if (key === '') throw invalid('adminKey is empty');
  return key;
}
