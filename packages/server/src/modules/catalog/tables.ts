import type { Selectable } from 'kysely';
import type { Json, Numeric } from '../../platform/db/tables.js';

/**
 * The catalog module's tables: features, plans and the plans' feature rules.
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031); a migration that changes one
 * of them changes it here, and test/integration/platform/table-types.test.ts compares both.
 */

export interface FeaturesTable {
  id: string;
  account_id: string;
  key: string;
  name: string;
  description: string | null;
  feature_type: string;
  is_enabled: boolean;
  metadata: Json;
  created_at: Date;
  modified_at: Date;
}
export type FeatureRow = Selectable<FeaturesTable>;

export interface PlansTable {
  id: string;
  account_id: string;
  key: string;
  name: string | null;
  description: string | null;
  price_amount: Numeric | null;
  currency: string;
  interval_months: number | null;
  billing_timing: 'IN_ADVANCE' | 'IN_ARREARS';
  status: 'DRAFT' | 'ACTIVE' | 'ARCHIVED';
  metadata: Json;
  created_at: Date;
  modified_at: Date;
}
export type PlanRow = Selectable<PlansTable>;

export interface PlanFeatureRulesTable {
  id: string;
  account_id: string;
  plan_id: string;
  feature_id: string;
  type: 'BASE';
  is_enabled: boolean;
  value: Json;
  credit_model_id: string | null;
  created_at: Date;
  modified_at: Date;
}
export type RuleRow = Selectable<PlanFeatureRulesTable>;

declare module '../../platform/db/tables.js' {
  interface DB {
    features: FeaturesTable;
    plans: PlansTable;
    plan_feature_rules: PlanFeatureRulesTable;
  }
}
