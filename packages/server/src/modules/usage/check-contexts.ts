import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/database.js';
import { fromStoredRuleValue } from '../catalog/index.js';
import * as repo from './repo.js';

/**
 * Entitlement contexts kept in a node's memory, validated on every use (ADR 0030). A check that
 * holds the context of its (customer, feature) reads only the account's context version and the
 * usage counter (primary-key reads, one statement) and uses the context only if the version is the
 * one it was read at; otherwise it reads the whole context again (the joins of customer, feature,
 * subscription, plan, rule and credit model) and keeps that. Every change to one of those rows
 * bumps the version in its own transaction (migration 0033), so a context is never used after a
 * change has committed, on any node, with no notification or timer involved. Counters are never
 * kept: they are read by the same statement as the version.
 */
type CheckFacts = {
  context: repo.CheckContext;
  /** The rule's pricing, parsed once per context read (null: no enabled rule). */
  pricing: ReturnType<typeof fromStoredRuleValue>['pricing'] | null;
  hasRule: boolean;
};

type Kept = Omit<CheckFacts, 'context'> & { context: repo.VersionedCheckContext; accumulate: boolean };

/** Contexts per node; beyond this the oldest is dropped (a miss costs one full context read). */
const MAX_CONTEXTS = 10_000;
const nodes = new WeakMap<AppContext, Map<string, Kept>>();

/** The check's facts for (customer reference, feature key); undefined when the customer does not exist. */
export async function checkFacts(ctx: AppContext, db: Executor, accountId: string, ref: string, featureKey: string): Promise<CheckFacts | undefined> {
  let kept = nodes.get(ctx);
  if (!kept) nodes.set(ctx, (kept = new Map()));
  const id = `${accountId}\u0000${ref}\u0000${featureKey}`;
  const held = kept.get(id);
  if (held) {
    const usage = await repo.readCheckUsage(db, accountId, held.context, held.accumulate);
    if (usage.context_version === held.context.context_version) {
      return { context: { ...held.context, used_current: usage.used_current, used_total: usage.used_total }, pricing: held.pricing, hasRule: held.hasRule };
    }
    kept.delete(id);
  }
  const context = await repo.loadCheckContext(db, accountId, ref, featureKey);
  if (!context) return undefined;
  const facts = factsOf(context);
  if (kept.size >= MAX_CONTEXTS) kept.delete(kept.keys().next().value!);
  kept.set(id, facts);
  return facts;
}

function factsOf(context: repo.VersionedCheckContext): Kept {
  const pricing = context.rule_enabled && context.rule_value ? fromStoredRuleValue(context.rule_value).pricing : null;
  const hasRule = Boolean(context.feature_id && context.rule_value && context.rule_enabled);
  // The same test as the context query's used_total column.
  const reset = (context.rule_value?.pricing as { reset_mode?: unknown } | undefined)?.reset_mode;
  return { context, pricing, hasRule, accumulate: reset === 'accumulate' };
}
