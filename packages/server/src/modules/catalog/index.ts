/**
 * Face of the catalog module (features, plans, plan-feature rules and their value document).
 * Other modules and app.ts import only from here; everything else under catalog/ is private.
 */
export { planCreditAllocations } from './extensions.js';
export { findFeature, findFeatureByKey, findPlan, findPlanByKey, findRule, listActivePlans, listRulesOfPlans, type PlanRow, type RuleRow } from './repo.js';
export {
  computeCost,
  computeGraduatedCost,
  computeUsageRevenue,
  fromStoredRuleValue,
  type Pricing,
  type RuleValue,
} from './rule-value.js';
export { catalogAdminRoutes, catalogClientRoutes } from './routes.js';
export {
  createFeature,
  createPlan,
  createRule,
  deleteRule,
  ensureFeatureForEvent,
  getPlanWithFeatures,
  getRuleView,
  toFeature,
  toPlan,
  updateFeature,
  updatePlan,
  updateRule,
} from './service.js';
export { FeatureCreateSchema, FeatureUpdateSchema, PlanCreateSchema, PlanUpdateSchema, RuleRequestSchema } from './schema.js';
export { getFeatureByKey, listActiveCatalogItems, listAllFeatures, listAllPlans } from './catalog-view.js';
