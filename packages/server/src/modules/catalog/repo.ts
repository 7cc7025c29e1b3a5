import type { Executor } from '../../platform/db/database.js';
import type { FeatureRow, PlanRow, RuleRow } from './tables.js';
import { toJsonb } from '../../platform/db/jsonb.js';
import { deleteTenantRow, findTenantRow, hasRow, insertTenantRow, tenantRows, updateTenantRow } from '../../platform/db/tenant-row.js';

export type { FeatureRow, PlanRow, RuleRow } from './tables.js';

export const findFeature = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'features', accountId, id);

/** The feature row, locked for the rest of the transaction (a PATCH reads then writes it). */
export const lockFeature = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'features', accountId, id, 'lock');

export const findFeatureByKey = (db: Executor, accountId: string, key: string) =>
  db.selectFrom('features').selectAll().where('account_id', '=', accountId).where('key', '=', key).executeTakeFirst();

export const listFeatures = (db: Executor, accountId: string, page?: { limit: number; offset: number }) => {
  let q = db.selectFrom('features').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id');
  if (page) q = q.limit(page.limit).offset(page.offset);
  return q.execute();
};

export async function countFeatures(db: Executor, accountId: string): Promise<number> {
  const r = await db.selectFrom('features').select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(r.n);
}

export const insertFeature = (db: Executor, row: FeatureRow) =>
  insertTenantRow(db, 'features', row);

export const updateFeature = (db: Executor, row: FeatureRow) =>
  updateTenantRow(db, 'features', row);

export const deleteFeature = (db: Executor, accountId: string, id: string) =>
  deleteTenantRow(db, 'features', accountId, id);

export async function isFeatureReferenced(db: Executor, accountId: string, featureId: string): Promise<boolean> {
  const rule = await db.selectFrom('plan_feature_rules').select('id').where('account_id', '=', accountId).where('feature_id', '=', featureId).limit(1).executeTakeFirst();
  if (rule) return true;
  const event = await db.selectFrom('usage_events').select('id').where('account_id', '=', accountId).where('feature_id', '=', featureId).limit(1).executeTakeFirst();
  return event !== undefined;
}

export const findPlan = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'plans', accountId, id);

export const findPlanByKey = (db: Executor, accountId: string, key: string) =>
  db.selectFrom('plans').selectAll().where('account_id', '=', accountId).where('key', '=', key).executeTakeFirst();

export const lockPlan = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'plans', accountId, id, 'lock');

export const listPlans = (db: Executor, accountId: string, options: { status?: PlanRow['status']; limit?: number; offset?: number } = {}) => {
  let q = db.selectFrom('plans').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id');
  if (options.status) q = q.where('status', '=', options.status);
  if (options.limit !== undefined) q = q.limit(options.limit).offset(options.offset ?? 0);
  return q.execute();
};

/** The ACTIVE plans, in the order the client catalog (`GET /api/v1/client/plans`) lists them. */
export const listActivePlans = (db: Executor, accountId: string) => listPlans(db, accountId, { status: 'ACTIVE' });

export async function countPlans(db: Executor, accountId: string, status?: PlanRow['status']): Promise<number> {
  let q = db.selectFrom('plans').select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', accountId);
  if (status) q = q.where('status', '=', status);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export const insertPlan = (db: Executor, row: PlanRow) =>
  insertTenantRow(db, 'plans', row);

export const updatePlan = (db: Executor, row: PlanRow) =>
  updateTenantRow(db, 'plans', row);

export const deletePlan = (db: Executor, accountId: string, id: string) =>
  deleteTenantRow(db, 'plans', accountId, id);

export async function hasSubscriptions(db: Executor, accountId: string, planId: string): Promise<boolean> {
  return hasRow(db.selectFrom('subscriptions').select('id').where('account_id', '=', accountId).where('plan_id', '=', planId));
}

export const findRule = (db: Executor, accountId: string, planId: string, featureId: string) =>
  tenantRows(db, 'plan_feature_rules', accountId)
    .where('plan_id', '=', planId)
    .where('feature_id', '=', featureId)
    .executeTakeFirst();

export const listRulesOfPlans = (db: Executor, accountId: string, planIds: string[]) =>
  planIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('plan_feature_rules')
        .innerJoin('features', (j) => j.onRef('features.id', '=', 'plan_feature_rules.feature_id').onRef('features.account_id', '=', 'plan_feature_rules.account_id'))
        .selectAll('plan_feature_rules')
        .select(['features.key as feature_key', 'features.name as feature_name', 'features.description as feature_description'])
        .where('plan_feature_rules.account_id', '=', accountId)
        .where('plan_feature_rules.plan_id', 'in', planIds)
        // The id (UUIDv7) breaks ties: rules created in the same instant keep one stable order.
        .orderBy('plan_feature_rules.created_at')
        .orderBy('plan_feature_rules.id')
        .execute();

export async function countLinkedFeatures(db: Executor, accountId: string, planId: string): Promise<number> {
  const r = await db
    .selectFrom('plan_feature_rules')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('plan_id', '=', planId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export const insertRule = (db: Executor, row: RuleRow) =>
  db.insertInto('plan_feature_rules').values({ ...row, value: toJsonb(row.value) }).returningAll().executeTakeFirstOrThrow();

export const updateRule = (db: Executor, row: RuleRow) =>
  db
    .updateTable('plan_feature_rules')
    .set({ is_enabled: row.is_enabled, value: toJsonb(row.value), credit_model_id: row.credit_model_id, modified_at: row.modified_at })
    .where('account_id', '=', row.account_id)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();

export const deleteRule = (db: Executor, accountId: string, id: string) =>
  deleteTenantRow(db, 'plan_feature_rules', accountId, id);

/** Inserts the feature an event names unless the account has that key already (race-safe). */
export const insertFeatureIfAbsent = (db: Executor, row: FeatureRow) =>
  db
    .insertInto('features')
    .values({ ...row, metadata: toJsonb(row.metadata) })
    .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
    .execute();

/** The name and denomination of a rule's credit model (credits owns the table; the rule view shows them). */
export const findCreditModelLabel = (db: Executor, accountId: string, creditModelId: string) =>
  db.selectFrom('credit_models').select(['name', 'denomination']).where('account_id', '=', accountId).where('id', '=', creditModelId).executeTakeFirst();

/** Whether a live (not deleted) credit model of the account has this id. */
export async function isLiveCreditModel(db: Executor, accountId: string, creditModelId: string): Promise<boolean> {
  const model = await db.selectFrom('credit_models').select('id').where('account_id', '=', accountId).where('id', '=', creditModelId).where('deleted_at', 'is', null).executeTakeFirst();
  return model !== undefined;
}
