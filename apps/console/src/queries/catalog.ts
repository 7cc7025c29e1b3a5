/** The catalog: features, plans, a plan's features and the rule of each. */
import { useQuery } from '@tanstack/react-query';
import type { paths } from '@tally/client';
import { api, unwrap, type Schemas } from '../api';
import { useApiMutation } from './mutation';

export const catalogKeys = {
  features: ['features'] as const,
  plans: ['plans'] as const,
  plan: (planId: string) => ['plan', planId] as const,
  rule: (planId: string, featureId: string) => ['plan', planId, 'rule', featureId] as const,
};

type Plan = Schemas['Plan'];
/** The rule document as typed by the operator; the API validates it and answers field by field. */
export type RuleValue = NonNullable<paths['/api/v1/monetization/rules/plan-features']['post']['requestBody']>['content']['application/json']['value'];
type NewFeature = { name: string; key: string; description?: string };
type NewPlan = NonNullable<paths['/api/v1/monetization/plans']['post']['requestBody']>['content']['application/json'];

export function useFeatures() {
  return useQuery({ queryKey: catalogKeys.features, queryFn: () => unwrap(api.GET('/api/v1/monetization/features')) });
}

export function useCreateFeature(onCreated: () => void) {
  return useApiMutation((body: NewFeature) => unwrap(api.POST('/api/v1/monetization/features', { body })), {
    invalidates: [catalogKeys.features],
    onSuccessOnly: true,
    onSuccess: onCreated,
  });
}

export function usePlans() {
  return useQuery({ queryKey: catalogKeys.plans, queryFn: () => unwrap(api.GET('/api/v1/monetization/plans')) });
}

export function useCreatePlan(onCreated: (plan: Plan) => void) {
  return useApiMutation((body: NewPlan) => unwrap(api.POST('/api/v1/monetization/plans', { body })), {
    invalidates: [catalogKeys.plans],
    onSuccessOnly: true,
    onSuccess: onCreated,
  });
}

/** A plan with its linked features. */
export function usePlan(planId: string) {
  return useQuery({
    queryKey: catalogKeys.plan(planId),
    queryFn: () => unwrap(api.GET('/api/v1/monetization/plans/{id}/features', { params: { path: { id: planId } } })),
  });
}

/** Moves a plan's status (DRAFT → ACTIVE → ARCHIVED → ACTIVE); the API refuses an incomplete plan. */
export function useSetPlanStatus(planId: string) {
  return useApiMutation(
    (status: Plan['status']) => unwrap(api.PATCH('/api/v1/monetization/plans/{id}', { params: { path: { id: planId } }, body: { status } })),
    { invalidates: [catalogKeys.plan(planId), catalogKeys.plans], onSuccessOnly: true },
  );
}

export function usePlanRule(planId: string, featureId: string) {
  return useQuery({
    queryKey: catalogKeys.rule(planId, featureId),
    queryFn: () => unwrap(api.GET('/api/v1/monetization/rules/plan-features/{planId}/{featureId}', { params: { path: { planId, featureId } } })),
  });
}

/** Links a feature to the plan with its rule. */
export function useLinkFeature(planId: string, onLinked: () => void) {
  return useApiMutation(
    (input: { featureId: string; value: RuleValue }) => unwrap(api.POST('/api/v1/monetization/rules/plan-features', { body: { planId, ...input } })),
    { invalidates: [catalogKeys.plan(planId)], onSuccessOnly: true, onSuccess: onLinked },
  );
}
