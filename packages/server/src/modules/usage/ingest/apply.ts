import type { NodeCache } from '../../../platform/cache/node-cache.js';
import type { AppContext } from '../../../platform/context.js';
import type { Executor, Tx } from '../../../platform/db/database.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import type { AppError } from '../../../platform/errors/app-error.js';
import { newId } from '../../../platform/ids.js';
import { dec, roundCredits, type Decimal } from '../../../platform/money.js';
import { ensureFeatureForEvent } from '../../catalog/index.js';
import { checkCredits, countCredits, ensureCustomerForEvent, lockKeyBudgets, recordCredits } from '../../customers/index.js';
import { resolveWeightCached, type ResolvedWeight } from '../../credits/index.js';
import * as batchRepo from './apply-repo.js';
import { captureForEvent, lockFlowHolds, openCreditDraws, type CreditDrawer, type CreditReceipt } from '../credits-seam.js';
import { afterDrawRendered, counterKeyOf, drawInputOf, needsPeriodUsage, planEvent, thresholdWatchOf, zeroedColumns, type EventPlan } from './plan.js';
import { depleted, duplicate, receiptOf } from './receipts.js';
import { usageRecorded } from '../recorded.js';
import { crossingsOf, recordCrossings, type Crossing, type ThresholdWatch } from '../thresholds.js';
import * as repo from '../repo.js';
import type { EventRequest } from '../schema.js';

/**
 * The one executor of every event that needs a transaction (ADR 0032): a batch, a lane group, a
 * single event as a group of one. N events of one account in one transaction, each decided exactly as if it had been sent alone, one after another in the
 * given order — its idempotency key (unique per account; a key stored earlier, by another request
 * or by an earlier event of this list, is a duplicate), its counter's max_usage, its credit draw
 * (a hard-limit pool refuses exactly the events that no longer fit; FIFO; one ledger row per pool
 * drawn) and its receipt. A refused or duplicate event writes nothing and does not abort the others.
 *
 * Setup (lock-free reads: contexts, period usage, weights, once per distinct value) → in one
 * transaction: lock the counters (in key order), then the pools (in id order) with their links and
 * grants, decide every event in memory, then write with two statements (the events with their
 * counters' totals, then the ledger). Every writer takes counters before pools and each in one global order, so batches,
 * grouped requests and lone events never wait on each other in a cycle.
 */
export type EventItem = {
  input: EventRequest;
  /** The customer reference (a customer key's own, already resolved). */
  ref: string;
  /** The event's idempotency key (header, body or generated). */
  key: string;
  /** The ingestion context, when the caller has just read it (otherwise read here, one statement for all). */
  context?: repo.IngestContext;
  /**
   * How a grouping lane applies the event when its group holds it alone (a plain event's one guarded
   * statement, ADR 0028); null: its remembered context changed, apply it as a group of one.
   */
  alone?: () => Promise<EventOutcome | null>;
  /**
   * The customer key that sends the event (api-contract-agent-v2.md §2.5): if it has a budget, its
   * credits are checked before the draw and counted with it, under the budget row's lock.
   */
  budgetKeyId?: string;
};

export type Receipt = ReturnType<typeof receiptOf>['receipt'];
export type EventOutcome =
  | { status: 'stored'; httpStatus: 200 | 201; receipt: Receipt }
  | { status: 'duplicate'; eventId: string; key: string; error: AppError }
  | { status: 'refused'; key: string; error: AppError };

/**
 * Rounds when other writers store some of our keys before our insert. A round is decided again only
 * when our insert skipped a key that another transaction had claimed and has since committed (or a
 * refused event's key turned out stored), and the next round's look-up (a new statement) sees that
 * key stored: every extra round learns at least one more of our keys, so one round per distinct key
 * plus one always ends.
 * A fixed small limit turned a busy hammer of shared keys (several nodes retrying the same batch)
 * into a 500.
 */
const maxRounds = (items: EventItem[]) => new Set(items.map((i) => i.key)).size + 1;

/**
 * `answersGated`: the caller answers a single event's refusal by its key budget as a gated 403 under
 * an Idempotency-Key. Such an answer is not stored (api-contract-agent-v2.md §1.4), so the retry
 * must run again rather than replay this transaction: the refusal throws inside it and it rolls
 * back (the refused event wrote nothing; its budget.exceeded is recorded on its own, after).
 */
export async function applyEvents(ctx: AppContext, accountId: string, items: EventItem[], answersGated = false): Promise<EventOutcome[]> {
  if (items.length === 0) return [];
  const now = ctx.clock.now();
  const contexts = await loadContexts(ctx.db, accountId, items, [...new Set(items.map((i) => contextId(i.ref, i.input.featureKey)))]);
  // Whether the account wants usage_recorded comes with every context (an account-wide answer).
  const recorded = usageRecorded.subscribers().length > 0 && [...contexts.values()].some((c) => c?.recorded_wanted);
  const complete = [...contexts.values()].every((c) => c?.feature_id);
  const prepared = complete ? await prepare(ctx.cache, ctx.db, accountId, items, contexts as Map<string, repo.IngestContext>, now) : null;
  // One transaction (an Idempotency-Key journal records it as one), unknown customers and features created first.
  return withTransaction(ctx.db, async (tx) => {
    if (prepared) return throwGated(await applyInTransaction(ctx, tx, accountId, items, prepared, recorded, now), answersGated);
    const missing = [...contexts.entries()].filter(([, c]) => !c?.feature_id).map(([id]) => id);
    const pairs = missing.map((id) => items.find((i) => contextId(i.ref, i.input.featureKey) === id)!);
    for (const ref of [...new Set(pairs.map((p) => p.ref))].sort()) await ensureCustomerForEvent(tx, accountId, ref, now);
    for (const key of [...new Set(pairs.map((p) => p.input.featureKey))].sort()) await ensureFeatureForEvent(tx, accountId, key, now);
    for (const [id, c] of await loadContexts(tx, accountId, items, missing)) contexts.set(id, c);
    const wanted = usageRecorded.subscribers().length > 0 && [...contexts.values()].some((c) => c?.recorded_wanted);
    return throwGated(await applyInTransaction(ctx, tx, accountId, items, await prepare(ctx.cache, tx, accountId, items, contexts as Map<string, repo.IngestContext>, now), wanted, now), answersGated);
  });
}

/** The outcomes, unless the one event was refused by its key budget and the caller answers that gated (see applyEvents). */
function throwGated(outcomes: EventOutcome[], answersGated: boolean): EventOutcome[] {
  const [only] = outcomes;
  if (answersGated && outcomes.length === 1 && only!.status === 'refused' && only!.error.code === 'budget_exceeded') throw only!.error;
  return outcomes;
}

const contextId = (ref: string, featureKey: string) => `${ref}\u0000${featureKey}`;

/**
 * The ingestion context of each listed (customer, feature) pair (undefined: no such customer), from
 * the item that carries one, the others in one statement.
 */
async function loadContexts(db: Executor, accountId: string, items: EventItem[], ids: string[]) {
  const wanted = new Set(ids);
  const contexts = new Map<string, repo.IngestContext | undefined>();
  for (const item of items) {
    const id = contextId(item.ref, item.input.featureKey);
    if (item.context?.feature_id && wanted.has(id)) contexts.set(id, item.context);
  }
  const pairs = new Map<string, { ref: string; featureKey: string }>();
  for (const item of items) {
    const id = contextId(item.ref, item.input.featureKey);
    if (wanted.has(id) && !contexts.has(id)) pairs.set(id, { ref: item.ref, featureKey: item.input.featureKey });
  }
  for (const id of pairs.keys()) contexts.set(id, undefined);
  for (const row of await repo.loadIngestContexts(db, accountId, [...pairs.values()])) contexts.set(contextId(row.ref, row.feature_key), row);
  return contexts;
}

/** `watches`: per plan, its usage-threshold watch (thresholds.ts), null when none applies. */
type Prepared = { plans: EventPlan[]; weights: Map<string, ResolvedWeight>; watches: (ThresholdWatch | null)[] };

/** The plans (with the period usage accumulate mode needs, read once per context) and the weights, resolved once per distinct (feature, model, instant). */
async function prepare(cache: NodeCache, db: Executor, accountId: string, items: EventItem[], contexts: Map<string, repo.IngestContext>, now: Date): Promise<Prepared> {
  const periodUsage = new Map<repo.CheckContext, Promise<string | null>>();
  const usageOf = (c: repo.CheckContext) => {
    if (!needsPeriodUsage(c)) return null;
    if (!periodUsage.has(c)) periodUsage.set(c, repo.usedInPeriod(db, c, counterKeyOf(accountId, c, now)!));
    return periodUsage.get(c)!;
  };
  const plans = await Promise.all(
    items.map(async (item) => {
      const c = contexts.get(contextId(item.ref, item.input.featureKey))!;
      return planEvent({ accountId, context: c, input: item.input, key: item.key, eventId: newId(), now, usedInCounterPeriod: await usageOf(c) });
    }),
  );
  const wanted = new Map<string, { featureId: string; model: string | null; at: Date }>();
  for (const p of plans) if (p.creditBacked) wanted.set(weightId(p), { featureId: p.event.feature_id, model: p.event.model, at: p.clampedOccurredAt });
  const weights = new Map(await Promise.all([...wanted.entries()].map(async ([id, w]) => [id, await resolveWeightCached({ cache, db }, accountId, w.featureId, w.model, w.at)] as const)));
  const watches = plans.map((p, i) => thresholdWatchOf(contexts.get(contextId(items[i]!.ref, items[i]!.input.featureKey))!, p, items[i]!.ref, items[i]!.input.featureKey));
  return { plans, weights, watches };
}

const weightId = (p: EventPlan) => `${p.event.feature_id}|${p.event.model ?? ''}|${p.clampedOccurredAt.getTime()}`;

/**
 * Locks counters, then the open holds of the events' flows, then pools (held to commit), decides
 * every event, then writes. If another transaction stored one of the keys (our insert waited for it
 * to commit and skipped the key), the round's writes are undone (no one else has seen them) and the
 * round is decided again from the locked state, the key now visible as stored. The first round
 * looks no key up unless a hard limit refused an event (ADR 0032).
 *
 * An event whose flow holds credits (ADR 0012) is settled by the reservation's own capture: what
 * the events before it planned is written, `captureForEvent` captures the hold (or expires it), and
 * the pools are read again, still locked, for the events after it. Such a round runs under a
 * savepoint, which undoes its ledger writes if it has to be decided again.
 */
async function applyInTransaction(ctx: AppContext, tx: Tx, accountId: string, items: EventItem[], { plans, weights, watches }: Prepared, recorded: boolean, now: Date): Promise<EventOutcome[]> {
  // Key budgets first (customer → key → pools, §2.6), then counters, holds, pools. Only credit
  // draws count against a key's budget; a key without one has no row to lock.
  const budgetKeys = items.flatMap((i, n) => (i.budgetKeyId && plans[n]!.creditBacked ? [i.budgetKeyId] : []));
  const lockedBudgets = budgetKeys.length > 0 ? await lockKeyBudgets(tx, accountId, budgetKeys) : null;
  const locked = await batchRepo.lockCounters(tx, accountId, plans.flatMap((p) => (p.counter ? [p.counter.key] : [])));
  const flows = plans.flatMap((p) => (p.creditBacked && p.event.flow_id ? [p.event.flow_id] : []));
  // Counter locks, then the flows' reservations, then the pools (modules/README "Lock order").
  const holds = flows.length > 0 ? await lockFlowHolds(tx, accountId, flows) : new Set<string>();
  const targets = plans.filter((p) => p.creditBacked).map((p) => ({ subscriptionId: p.event.subscription_id!, denomination: p.denomination! }));
  let drawer = await openCreditDraws(tx, accountId, targets, now, ctx);
  const savepoint = holds.size > 0;
  // Per plan, once for every round: its counter's id and its draw input (ADR 0029).
  const counterIds = plans.map((p) => (p.counter ? batchRepo.counterId(p.counter.key) : null));
  const drawInputs = plans.map((p) => (p.creditBacked ? { ...drawInputOf(p), weight: weights.get(weightId(p))! } : null));
  for (let round = 1; ; round++) {
    if (round > 1) drawer = await openCreditDraws(tx, accountId, targets, now, ctx);
    if (savepoint) await batchRepo.savepoint(tx);
    const used = new Map([...locked.entries()].map(([id, u]) => [id, dec(u)]));
    // The first round of a group without holds assumes none of its keys is stored yet (the usual
    // case, one statement fewer): a key another request stored shows up as a skipped insert, or,
    // for an event a hard limit refused, in the look-up below; either way the round is decided again
    // with every key looked up.
    const lookedUp = round > 1 || savepoint;
    const stored = lookedUp ? await batchRepo.findStoredKeys(tx, accountId, items.map((i) => i.key)) : new Map<string, string>();
    const rows: repo.NewEvent[] = [];
    const deltas = new Map<string, { key: repo.CounterKey; used: Decimal; revenue: Decimal }>();
    const billable: { plan: EventPlan; units: Decimal; featureKey: string }[] = [];
    // usage.threshold_reached: the percents each counted event crosses, from its counter's usage under the lock.
    const crossings: Crossing[] = [];
    const outcomes: EventOutcome[] = [];
    const budgets = new Map(lockedBudgets ?? []);
    const keyDraws: { keyId: string; eventId: string; credits: Decimal }[] = [];
    const keyRefusals: { keyId: string; credits: Decimal }[] = [];
    for (const [i, plan] of plans.entries()) {
      const key = plan.event.event_idempotency_key;
      const earlier = stored.get(key);
      if (earlier) {
        outcomes.push({ status: 'duplicate', eventId: earlier, key, error: duplicate(key) });
        continue;
      }
      let capture: Capture | undefined;
      if (plan.creditBacked && plan.event.flow_id && holds.has(plan.event.flow_id)) {
        capture = async (input) => {
          await drawer.flush();
          const receipt = await captureForEvent(tx, { ...input, flowId: plan.event.flow_id! });
          drawer = await openCreditDraws(tx, accountId, targets, now, ctx);
          return receipt;
        };
      }
      const budgetKey = plan.creditBacked ? items[i]!.budgetKeyId : undefined;
      const budget = budgetKey ? budgets.get(budgetKey) : undefined;
      // The key budget is checked with the requested credits before the draw: 403, not 409 (§2.6).
      const requested = budget ? roundCredits(plan.units.times(drawInputs[i]!.weight.weight)) : null;
      const overBudget = budget ? checkCredits(budget, requested!, now) : null;
      if (overBudget) {
        keyRefusals.push({ keyId: budgetKey!, credits: requested! });
        outcomes.push({ status: 'refused', key, error: overBudget });
        continue;
      }
      const counterBefore = watches[i] ? used.get(counterIds[i]!)! : null;
      const decided = await decide(plan, counterIds[i]!, used, () => drawer, drawInputs[i]!, capture);
      if (decided === 'refused') {
        outcomes.push({ status: 'refused', key, error: depleted(plan.denomination) });
        continue;
      }
      if (budget && decided.receipt) {
        budgets.set(budgetKey!, countCredits(budget, decided.receipt.creditsDeducted, now));
        keyDraws.push({ keyId: budgetKey!, eventId: plan.event.id, credits: decided.receipt.creditsDeducted });
      }
      stored.set(key, plan.event.id);
      rows.push(decided.row);
      if (decided.counted && plan.counter) {
        const id = counterIds[i]!;
        const d = deltas.get(id);
        if (d) {
          d.used = d.used.plus(plan.units);
          d.revenue = d.revenue.plus(decided.revenue);
        } else {
          deltas.set(id, { key: plan.counter.key, used: plan.units, revenue: decided.revenue });
        }
        if (recorded) billable.push({ plan, units: plan.units.minus(decided.receipt?.usageCovered ?? 0), featureKey: items[i]!.input.featureKey });
        if (counterBefore) crossings.push(...crossingsOf(watches[i]!, counterBefore, plan.units, plan.event.id));
      }
      const { status, receipt } = receiptOf(plan, !decided.counted, decided.receipt);
      outcomes.push({ status: 'stored', httpStatus: status, receipt });
    }
    const refused = outcomes.flatMap((o) => (o.status === 'refused' ? [o.key] : []));
    // A refusal of an event whose key is stored is a duplicate (409 conflict): looked up under the pool locks.
    if (!lookedUp && refused.length > 0 && (await batchRepo.findStoredKeys(tx, accountId, refused)).size > 0) continue;
    const counted = [...deltas.values()].map((d) => ({ key: d.key, used: d.used.toFixed(), revenue: d.revenue.toFixed() }));
    const inserted = await batchRepo.insertEvents(tx, accountId, rows, counted);
    if (inserted.size < rows.length) {
      if (round >= maxRounds(items)) throw new Error(`applyEvents: no progress after ${round} rounds (every round should learn a stored key)`);
      if (savepoint) await batchRepo.rollbackToSavepoint(tx);
      else await batchRepo.deleteEvents(tx, accountId, rows.filter((r) => inserted.has(r.event_idempotency_key)).map((r) => r.id));
      continue;
    }
    await drawer.flush();
    // Counted draws, and budget.exceeded for a key's first refusal of its window (the group commits).
    if (lockedBudgets) await recordCredits(tx, accountId, budgets, keyDraws, keyRefusals, now);
    if (recorded) for (const b of billable) await emitRecorded(tx, b.plan, b.units, b.featureKey);
    await recordCrossings(tx, accountId, crossings, now);
    return outcomes;
  }
}

type DrawInput = ReturnType<typeof drawInputOf> & { weight: ResolvedWeight };
/** Settles the hold of an event's flow through the single-event path (null: no hold to settle, draw as usual). */
type Capture = (input: DrawInput) => Promise<CreditReceipt | null>;

/**
 * One event against the state the events before it left: over max_usage it is stored zeroed
 * (nothing drawn); a hard-limit pool that cannot cover it refuses it (nothing counted); otherwise it
 * counts, draws, and only the usage the credits did not cover carries revenue.
 */
async function decide(plan: EventPlan, counterId: string | null, used: Map<string, Decimal>, drawer: () => CreditDrawer, input: DrawInput | null, capture?: Capture) {
  if (plan.counter?.cap) {
    const { maxUsage, alreadyUsedElsewhere } = plan.counter.cap;
    if (used.get(counterId!)!.plus(plan.units).plus(dec(alreadyUsedElsewhere)).gt(dec(maxUsage))) {
      return { counted: false, receipt: null, revenue: dec(0), row: { ...plan.event, ...zeroedColumns(plan) } };
    }
  }
  let row = plan.event;
  let receipt = null;
  let revenue: Decimal | null = null;
  if (plan.creditBacked) {
    // A flow's hold is captured (or expired first); without one the event draws as usual.
    const drawn = (capture ? await capture(input!) : null) ?? drawer().draw(input!);
    if (drawn === 'refused') return 'refused' as const;
    receipt = drawn;
    const after = afterDrawRendered(plan, drawn);
    revenue = after.revenue;
    row = { ...row, revenue_amount: revenue.toFixed(), context: after.context };
  }
  if (counterId) used.set(counterId, used.get(counterId)!.plus(plan.units));
  return { counted: true, receipt, revenue: revenue ?? dec(row.revenue_amount), row };
}

/** usage_recorded for a counted event with units the credits did not cover. */
async function emitRecorded(tx: Tx, plan: EventPlan, billableUnits: Decimal, featureKey: string) {
  if (!plan.event.subscription_id || billableUnits.lte(0)) return;
  await usageRecorded.emit(tx, {
    accountId: plan.event.account_id,
    eventId: plan.event.id,
    customerId: plan.event.customer_id,
    subscriptionId: plan.event.subscription_id,
    featureId: plan.event.feature_id,
    featureKey,
    billableUnits,
    occurredAt: plan.event.occurred_at,
    now: plan.now,
  });
}
