/** The catalog: features, plans, a plan's features and the rule of each. */
import { useQuery } from '@tanstack/react-query';
import type { paths } from '@tally/client';
import { api, unwrap, type Schemas } from '../api';
import { useApiMutation, unwrapEmpty } from './mutation';

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
type FeatureChange = NonNullable<paths['/api/v1/monetization/features/{id}']['patch']['requestBody']>['content']['application/json'];
type NewPlan = NonNullable<paths['/api/v1/monetization/plans']['post']['requestBody']>['content']['application/json'];
type PlanChange = NonNullable<paths['/api/v1/monetization/plans/{id}']['patch']['requestBody']>['content']['application/json'];
/** A rule as the editor sends it: which feature, whether enabled, its value and credit model. */
export type RuleInput = { featureId: string; isEnabled: boolean; value: RuleValue; creditModelId: string | null };

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

/** Changes the fields sent of a feature. */
export function useUpdateFeature(featureId: string, onSaved: () => void) {
  return useApiMutation(
    (body: FeatureChange) => unwrap(api.PATCH('/api/v1/monetization/features/{id}', { params: { path: { id: featureId } }, body })),
    { invalidates: [catalogKeys.features, ['plan']], onSuccessOnly: true, onSuccess: onSaved },
  );
}

/** Deletes a feature; the API refuses (409) one linked to a plan or with usage events. */
export function useDeleteFeature() {
  return useApiMutation((featureId: string) => unwrapEmpty(api.DELETE('/api/v1/monetization/features/{id}', { params: { path: { id: featureId } } })), {
    invalidates: [catalogKeys.features],
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

/** Changes the fields sent of a plan (a DRAFT's every field; an ACTIVE plan's name and description). */
export function useUpdatePlan(planId: string) {
  return useApiMutation(
    (body: PlanChange) => unwrap(api.PATCH('/api/v1/monetization/plans/{id}', { params: { path: { id: planId } }, body })),
    { invalidates: [catalogKeys.plan(planId), catalogKeys.plans], onSuccessOnly: true },
  );
}

export function usePlanRule(planId: string, featureId: string) {
  return useQuery({
    queryKey: catalogKeys.rule(planId, featureId),
    queryFn: () => unwrap(api.GET('/api/v1/monetization/rules/plan-features/{planId}/{featureId}', { params: { path: { planId, featureId } } })),
  });
}

/** Links a feature to the plan with its rule (`linked` false) or changes the linked feature's rule. */
export function useSaveRule(planId: string, linked: boolean, onSaved: () => void) {
  return useApiMutation(
    ({ featureId, isEnabled, value, creditModelId }: RuleInput) => {
      const body = { planId, featureId, isEnabled, value, creditModelId };
      const path = '/api/v1/monetization/rules/plan-features';
      return unwrap(linked ? api.PATCH(path, { body }) : api.POST(path, { body }));
    },
    { invalidates: [catalogKeys.plan(planId)], onSuccessOnly: true, onSuccess: onSaved },
  );
}

/** Unlinks a feature from the plan (its rule goes); the API refuses the last feature of an ACTIVE plan. */
export function useDeleteRule(planId: string) {
  return useApiMutation(
    (featureId: string) => unwrapEmpty(api.DELETE('/api/v1/monetization/rules/plan-features/{planId}/{featureId}', { params: { path: { planId, featureId } } })),
    { invalidates: [catalogKeys.plan(planId)] },
  );
}
