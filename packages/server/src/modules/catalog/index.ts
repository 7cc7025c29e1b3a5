/**
 * Face of the catalog module (features, plans, plan-feature rules and their value document).
 * Other modules and app.ts import only from here; everything else under catalog/ is private.
 */
export { planCreditAllocations } from './extensions.js';
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
  findFeature,
  findFeatureByKey,
  findPlan,
  findPlanByKey,
  findRule,
  getPlanWithFeatures,
  getRuleView,
  listActivePlans,
  listRulesOfPlans,
  toFeature,
  toPlan,
  updateFeature,
  updatePlan,
  updateRule,
  type Plan,
  type PlanRule,
} from './service.js';
export { FeatureCreateSchema, FeatureUpdateSchema, PlanCreateSchema, PlanUpdateSchema, RuleRequestSchema } from './schema.js';
export { getFeatureByKey, listActiveCatalogItems, listAllFeatures, listAllPlans } from './catalog-view.js';
