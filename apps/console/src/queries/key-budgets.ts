/** A customer key's budget (api-contract-agent-v2.md §2; the console's Admin API twin): read, set, clear. */
import { useQuery } from '@tanstack/react-query';
import type { paths } from '@tally/client';
import { api, unwrap } from '../api';
import { useApiMutation, unwrapEmpty } from './mutation';

const BUDGET = '/api/v1/tanso/customers/{customerId}/keys/{keyId}/budget';
export type KeyBudgetInput = NonNullable<paths[typeof BUDGET]['put']['requestBody']>['content']['application/json'];
const budgetKey = (customerId: string, keyId: string) => ['customers', customerId, 'keys', keyId, 'budget'] as const;

export function useKeyBudget(customerId: string, keyId: string) {
  return useQuery({ queryKey: budgetKey(customerId, keyId), queryFn: () => unwrap(api.GET(BUDGET, { params: { path: { customerId, keyId } } })) });
}

export function useSetKeyBudget(customerId: string, keyId: string) {
  return useApiMutation((body: KeyBudgetInput) => unwrap(api.PUT(BUDGET, { params: { path: { customerId, keyId } }, body })), { invalidates: [budgetKey(customerId, keyId)] });
}

export function useClearKeyBudget(customerId: string, keyId: string) {
  return useApiMutation(() => unwrapEmpty(api.DELETE(BUDGET, { params: { path: { customerId, keyId } } })), { invalidates: [budgetKey(customerId, keyId)], onSuccessOnly: true });
}
