/** The account: what the server tells the console before sign-in, the tenant key, the account settings. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { operations } from '@tally/client';
import { api, unwrap, type Schemas } from '../api';
import { unwrapEmpty, useApiMutation } from './mutation';

export const accountKeys = {
  consoleInfo: ['console-info'] as const,
  tenantKey: ['tenant-key'] as const,
  settings: ['account-settings'] as const,
  pricingJson: (slug: string | null) => ['pricing-json', slug] as const,
};

type SettingsUpdate = operations['updateAccountSettings']['requestBody']['content']['application/json'];

/** Switched-on modules and whether a dev login exists (public, read once). */
export function useConsoleInfo() {
  return useQuery({ queryKey: accountKeys.consoleInfo, queryFn: () => unwrap(api.GET('/public/v1/console')), staleTime: Infinity });
}

export function useTenantKey() {
  return useQuery({ queryKey: accountKeys.tenantKey, queryFn: () => unwrap(api.GET('/api/v1/account/api-key')) });
}

/** Rotates the tenant key: every earlier one stops working at once. */
export function useRotateTenantKey(onRotated: (apiKey: string) => void) {
  return useApiMutation(() => unwrap(api.POST('/api/v1/account/api-key')), {
    invalidates: [accountKeys.tenantKey],
    onSuccessOnly: true,
    onSuccess: (rotated) => onRotated(rotated.apiKey),
  });
}

export function useAccountSettings() {
  return useQuery({ queryKey: accountKeys.settings, queryFn: () => unwrap(api.GET('/api/v1/tanso/account-settings')) });
}

/** The account's currency (event revenue carries none of its own); undefined until read. */
export function useAccountCurrency(): string | undefined {
  return useAccountSettings().data?.currency;
}

/** Saves part of the account settings; the answer replaces the cached settings. */
export function useSaveAccountSettings() {
  const queryClient = useQueryClient();
  return useApiMutation((body: SettingsUpdate) => unwrap(api.PATCH('/api/v1/tanso/account-settings', { body })), {
    onSuccessOnly: true,
    invalidates: [['pricing-json']],
    onSuccess: (next: Schemas['AccountSettings']) => queryClient.setQueryData(accountKeys.settings, next),
  });
}

/** The live pricing.json of an open public catalog (null slug: closed, nothing read). */
export function usePricingJson(slug: string | null) {
  return useQuery({
    queryKey: accountKeys.pricingJson(slug),
    enabled: slug !== null,
    queryFn: async () => {
      const res = await fetch(`/public/v1/catalog/${encodeURIComponent(slug!)}/pricing.json`);
      const text = await res.text();
      if (!res.ok) throw new Error(`${res.status}: ${text}`);
      return JSON.stringify(JSON.parse(text), null, 2);
    },
  });
}

/** Changes the signed-in operator's password: the server ends every session of the operator, this one included. */
export function useChangePassword(onChanged: () => void) {
  return useApiMutation(
    (body: { currentPassword: string; newPassword: string }) => unwrapEmpty(api.POST('/api/v1/account/change-password', { body })),
    { onSuccessOnly: true, onSuccess: onChanged },
  );
}
