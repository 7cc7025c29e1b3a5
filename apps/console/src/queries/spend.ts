/** AI spend: vendor connections, units and their budgets, alerts, the reports and the settings. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { operations } from '@tally/client';
import { api, unwrap, type Schemas } from '../api';
import { orNullOn404, unwrapEmpty, useApiMutation } from './mutation';

/** A report window (inclusive dates; the service's default when absent). */
export type Window = { from?: string; to?: string };
export type Provider = Schemas['SpendConnection']['provider'];
type SettingsUpdate = operations['updateSpendSettings']['requestBody']['content']['application/json'];
/** Budget ceilings in cents as exact decimal text (never through a float). */
export type BudgetInput = { monthlyCents: string | null; dailyCents: string | null; monthlyMode: 'ALERT' | 'BLOCK'; alertThreshold: number };
export type BumpInput = { monthlyCents: string; expiresAt: string; reason?: string };
export type UnitInput = operations['createSpendUnit']['requestBody']['content']['application/json'];
export type RuleInput = operations['createSpendRule']['requestBody']['content']['application/json'];
export type UnitType = Schemas['SpendUnit']['type'];
export type MatchKind = Schemas['SpendRule']['matchKind'];
export const UNIT_TYPES = ['TEAM', 'PROJECT', 'PERSON'] as const satisfies readonly UnitType[];
export const PROVIDERS = ['ANTHROPIC', 'OPENAI', 'CURSOR', 'COPILOT', 'LITELLM'] as const satisfies readonly Provider[];
export const MATCH_KINDS = ['WORKSPACE_ID', 'API_KEY_ID', 'ACTOR'] as const satisfies readonly MatchKind[];

export const spendKeys = {
  connections: ['spend-connections'] as const,
  units: ['spend-units'] as const,
  budget: (unitId: string) => ['spend-budget', unitId] as const,
  alerts: (unackedOnly?: boolean) => (unackedOnly === undefined ? (['spend-alerts'] as const) : (['spend-alerts', unackedOnly] as const)),
  allocation: ['spend-allocation'] as const,
  report: (name: string, window: Window) => ['spend-report', name, window] as const,
  models: ['spend-models'] as const,
  settings: ['spend-settings'] as const,
  rules: ['spend-rules'] as const,
};

/** The vendor connections; polled every 250 ms while a sync runs (its progress bar reads them). */
export function useSpendConnections(polling: boolean) {
  return useQuery({
    queryKey: spendKeys.connections,
    queryFn: () => unwrap(api.GET('/api/v1/spend/connections')),
    refetchInterval: polling ? 250 : false,
  });
}

export function useCreateConnection(onCreated: () => void) {
  return useApiMutation((body: { provider: Provider; label: string; adminKey: string }) => unwrap(api.POST('/api/v1/spend/connections', { body })), {
    invalidates: [spendKeys.connections],
    onSuccess: onCreated,
  });
}

/** Sync, probe and key replacement of one connection; each refreshes the connections when it settles. */
export function useConnectionActions(id: string, handlers: { onSyncing: (on: boolean) => void; onKeyReplaced: () => void }) {
  const path = { params: { path: { id } } };
  const sync = useApiMutation(
    () => {
      handlers.onSyncing(true);
      return unwrap(api.POST('/api/v1/spend/connections/{id}/sync', path)).finally(() => handlers.onSyncing(false));
    },
    { invalidates: [spendKeys.connections] },
  );
  const probe = useApiMutation(() => unwrap(api.POST('/api/v1/spend/connections/{id}/probe', path)), { invalidates: [spendKeys.connections] });
  const replaceKey = useApiMutation((adminKey: string) => unwrap(api.PUT('/api/v1/spend/connections/{id}/key', { ...path, body: { adminKey } })), {
    invalidates: [spendKeys.connections],
    onSuccess: handlers.onKeyReplaced,
  });
  return { sync, probe, replaceKey };
}

export function useSpendUnits() {
  return useQuery({ queryKey: spendKeys.units, queryFn: () => unwrap(api.GET('/api/v1/spend/units')) });
}

/** Units, rules and budgets change the allocation report (rules apply at report time), so each change refreshes it. */
const unitReads = [spendKeys.units, spendKeys.rules, spendKeys.allocation];

export function useCreateUnit(onCreated: () => void) {
  return useApiMutation((body: UnitInput) => unwrap(api.POST('/api/v1/spend/units', { body })), { invalidates: unitReads, onSuccessOnly: true, onSuccess: onCreated });
}

/** Replaces a unit (PUT: every field as the form shows it). */
export function useUpdateUnit(id: string, onSaved: () => void) {
  return useApiMutation((body: UnitInput) => unwrap(api.PUT('/api/v1/spend/units/{id}', { params: { path: { id } }, body })), { invalidates: unitReads, onSuccessOnly: true, onSuccess: onSaved });
}

/** Deletes a unit with its rules and budget; its children move up to its parent. */
export function useDeleteUnit() {
  return useApiMutation((id: string) => unwrapEmpty(api.DELETE('/api/v1/spend/units/{id}', { params: { path: { id } } })), { invalidates: [...unitReads, ['spend-budget']] });
}

export function useSpendRules() {
  return useQuery({ queryKey: spendKeys.rules, queryFn: () => unwrap(api.GET('/api/v1/spend/rules')) });
}

export function useCreateRule(onCreated: () => void) {
  return useApiMutation((body: RuleInput) => unwrap(api.POST('/api/v1/spend/rules', { body })), { invalidates: unitReads, onSuccessOnly: true, onSuccess: onCreated });
}

export function useDeleteRule() {
  return useApiMutation((id: string) => unwrapEmpty(api.DELETE('/api/v1/spend/rules/{id}', { params: { path: { id } } })), { invalidates: unitReads });
}

/** A unit's budget; null when it has none. */
export function useUnitBudget(unitId: string) {
  return useQuery({
    queryKey: spendKeys.budget(unitId),
    queryFn: () => orNullOn404(unwrap(api.GET('/api/v1/spend/units/{id}/budget', { params: { path: { id: unitId } } }))),
  });
}

/** Sets, bumps, ends the bump of or deletes a unit's budget; an answer with the budget replaces the cached one. */
export function useSaveBudget(unitId: string, onSaved: () => void) {
  const queryClient = useQueryClient();
  const saved = (next: Schemas['SpendBudget']) => {
    queryClient.setQueryData(spendKeys.budget(unitId), next);
    onSaved();
  };
  const path = { path: { id: unitId } };
  const save = useApiMutation((body: BudgetInput) => unwrap(api.PUT('/api/v1/spend/units/{id}/budget', { params: path, body: body as unknown as { monthlyCents: number } })), {
    onSuccess: saved,
  });
  const bump = useApiMutation(
    (body: BumpInput) => unwrap(api.POST('/api/v1/spend/units/{id}/budget/bump', { params: path, body: { ...body, monthlyCents: body.monthlyCents as unknown as number } })),
    { onSuccess: saved },
  );
  const remove = useApiMutation(() => unwrapEmpty(api.DELETE('/api/v1/spend/units/{id}/budget', { params: path })), { invalidates: [spendKeys.budget(unitId)] });
  const endBump = useApiMutation(() => unwrap(api.DELETE('/api/v1/spend/units/{id}/budget/bump', { params: path })), { onSuccess: saved });
  return { save, bump, remove, endBump };
}

export function useSpendAlerts(unackedOnly: boolean) {
  return useQuery({
    queryKey: spendKeys.alerts(unackedOnly),
    queryFn: () => unwrap(api.GET('/api/v1/spend/alerts', { params: { query: { unackedOnly } } })),
  });
}

export function useAckAlert() {
  return useApiMutation((id: string) => unwrap(api.POST('/api/v1/spend/alerts/{id}/ack', { params: { path: { id } } })), {
    invalidates: [spendKeys.alerts()],
  });
}

export function useAllocation() {
  return useQuery({ queryKey: spendKeys.allocation, queryFn: () => unwrap(api.GET('/api/v1/spend/reports/allocation')) });
}

export function useSpendUsage(window: Window) {
  return useQuery({ queryKey: spendKeys.report('usage', window), queryFn: () => unwrap(api.GET('/api/v1/spend/reports/usage', { params: { query: window } })) });
}

export function useOutcomes(window: Window) {
  return useQuery({ queryKey: spendKeys.report('outcomes', window), queryFn: () => unwrap(api.GET('/api/v1/spend/reports/outcomes', { params: { query: window } })) });
}

export function useSavings(window: Window) {
  return useQuery({ queryKey: spendKeys.report('savings', window), queryFn: () => unwrap(api.GET('/api/v1/spend/reports/savings', { params: { query: window } })) });
}

export function usePnl(window: Window) {
  return useQuery({ queryKey: spendKeys.report('pnl', window), queryFn: () => unwrap(api.GET('/api/v1/spend/reports/pnl', { params: { query: window } })) });
}

export function useReconcile(window: Window) {
  return useQuery({ queryKey: spendKeys.report('reconcile', window), queryFn: () => unwrap(api.GET('/api/v1/spend/reports/reconcile', { params: { query: window } })) });
}

/** The price book's models (targets of a simulated switch). */
export function useSpendModels() {
  return useQuery({ queryKey: spendKeys.models, queryFn: () => unwrap(api.GET('/api/v1/spend/reports/models')) });
}

/** What one model's tokens of the window would cost at another's rates (advice only). */
export function useSimulate() {
  return useApiMutation((body: { fromModel: string; toModel: string; workspaceId?: string }) => unwrap(api.POST('/api/v1/spend/reports/simulate', { body })));
}

export function useSpendSettings() {
  return useQuery({ queryKey: spendKeys.settings, queryFn: () => unwrap(api.GET('/api/v1/spend/settings')) });
}

/** Saves the spend settings; the answer replaces the cached settings. */
export function useSaveSpendSettings(onSaved: () => void) {
  const queryClient = useQueryClient();
  return useApiMutation((body: SettingsUpdate) => unwrap(api.PUT('/api/v1/spend/settings', { body })), {
    onSuccess: (next) => {
      queryClient.setQueryData(spendKeys.settings, next);
      onSaved();
    },
  });
}
