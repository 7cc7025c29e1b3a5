import type { AppContext } from '../../../platform/context.js';
import type { SpendMatchKind, SpendProvider } from '../tables.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { invalid, notFound } from '../../../platform/errors/app-error.js';
import { newId } from '../../../platform/ids.js';
import { findFeature } from '../../catalog/index.js';
import { checkParent, DEFAULT_RULE_PRIORITY, duplicateRuleMessage, matchValueOf, unitValues, type UnitRequest, type UnitValues } from './domain.js';
import { findBudget } from '../budgets/repo.js';
import { enforceUnitBudget, keptByGateway, releaseRuleTarget, releaseUnitBudget } from '../gateway/service.js';
import * as repo from './repo.js';

/**
 * Spend units and attribution rules (contract §7.4). Every write to the tree runs in one
 * transaction holding the account's tree lock, so two concurrent parent moves cannot build a loop
 * and a rule cannot land on a unit being deleted. A LiteLLM rule is the unit budget's gateway
 * target (gateway/service.ts): creating one pushes the budget to it after commit; deleting one, or a unit
 * with a budget, first lifts the ceiling there (502, kept, when the proxy refuses).
 */
export type { RuleRow, UnitRow } from './repo.js';

const unitNotFound = (id: string) => notFound(`Spend unit ${id} not found`);

export function listUnits(ctx: AppContext, accountId: string) {
  return repo.listUnits(ctx.db, accountId);
}

export async function createUnit(ctx: AppContext, accountId: string, request: UnitRequest) {
  return withTransaction(ctx.db, async (tx) => {
    await repo.lockUnitTree(tx, accountId);
    const values = unitValues(request, await repo.personLevelEnabled(tx, accountId));
    await checkReferences(tx, accountId, values);
    const now = ctx.clock.now();
    return repo.insertUnit(tx, { id: newId(now.getTime()), account_id: accountId, ...columnsOf(values), created_at: now, modified_at: now });
  });
}

/** PUT: a full replace of the unit's fields, parent included (loop-checked). */
export async function replaceUnit(ctx: AppContext, accountId: string, id: string, request: UnitRequest) {
  return withTransaction(ctx.db, async (tx) => {
    await repo.lockUnitTree(tx, accountId);
    const unit = await repo.findUnit(tx, accountId, id);
    if (!unit) throw unitNotFound(id);
    const values = unitValues(request, await repo.personLevelEnabled(tx, accountId));
    await checkReferences(tx, accountId, values);
    checkParent({ id, name: values.name }, values.parentId, await repo.parentMap(tx, accountId));
    return repo.updateUnit(tx, accountId, id, { ...columnsOf(values), modified_at: ctx.clock.now() });
  });
}

/** Deletes the unit and its rules; its children move up to its parent. Its gateway ceilings are lifted first. */
export async function deleteUnit(ctx: AppContext, accountId: string, id: string): Promise<void> {
  const budget = await findBudget(ctx.db, accountId, id);
  const refusal = budget ? await releaseUnitBudget(ctx, accountId, id, budget) : null;
  if (refusal !== null) throw keptByGateway('The unit', refusal);
  await withTransaction(ctx.db, async (tx) => {
    await repo.lockUnitTree(tx, accountId);
    const unit = await repo.findUnit(tx, accountId, id);
    if (!unit) throw unitNotFound(id);
    await repo.deleteUnit(tx, unit, ctx.clock.now());
  });
}

export function listRules(ctx: AppContext, accountId: string) {
  return repo.listRules(ctx.db, accountId);
}

export type RuleRequest = { spendUnitId: string; provider: SpendProvider; matchKind: SpendMatchKind; matchValue: string; priority?: number | null | undefined };

export async function createRule(ctx: AppContext, accountId: string, request: RuleRequest) {
  const matchValue = matchValueOf(request.matchValue);
  const created = await withTransaction(ctx.db, async (tx) => {
    await repo.lockUnitTree(tx, accountId);
    const unit = await repo.findUnit(tx, accountId, request.spendUnitId);
    if (!unit) throw unitNotFound(request.spendUnitId);
    const now = ctx.clock.now();
    const rule = await repo.insertRule(tx, {
      id: newId(now.getTime()),
      account_id: accountId,
      spend_unit_id: unit.id,
      provider: request.provider,
      match_kind: request.matchKind,
      match_value: matchValue,
      priority: request.priority ?? DEFAULT_RULE_PRIORITY,
      created_at: now,
    });
    if (!rule) throw invalid(duplicateRuleMessage(unit.name));
    return rule;
  });
  if (created.provider === 'LITELLM') await enforceUnitBudget(ctx, accountId, created.spend_unit_id);
  return created;
}

/** Deletes the rule; a LiteLLM rule's target is first released from the unit's budget (gateway/service.ts). */
export async function deleteRule(ctx: AppContext, accountId: string, id: string): Promise<void> {
  const rule = await repo.findRule(ctx.db, accountId, id);
  if (!rule) throw notFound(`Attribution rule ${id} not found`);
  const refusal = await releaseRuleTarget(ctx, accountId, rule);
  if (refusal !== null) throw keptByGateway('The rule', refusal);
  if (!(await repo.deleteRule(ctx.db, accountId, id))) throw notFound(`Attribution rule ${id} not found`);
  if (rule.provider === 'LITELLM') await enforceUnitBudget(ctx, accountId, rule.spend_unit_id);
}

function columnsOf(values: UnitValues) {
  return { type: values.type, name: values.name, email: values.email, github_login: values.githubLogin, parent_id: values.parentId, feature_id: values.featureId };
}

async function checkReferences(tx: Parameters<typeof repo.findUnit>[0], accountId: string, values: { parentId: string | null; featureId: string | null }) {
  if (values.parentId !== null && !(await repo.findUnit(tx, accountId, values.parentId))) throw unitNotFound(values.parentId);
  if (values.featureId !== null && !(await findFeature(tx, accountId, values.featureId))) throw notFound(`Feature ${values.featureId} not found`);
}
