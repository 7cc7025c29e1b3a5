import type { AppContext } from '../../../platform/context.js';
import { applyEvents, type EventItem, type EventOutcome } from './apply.js';

/**
 * Hot-pool grouping (ADR 0011, ADR 0028): in each node, one lane per account for its credit-backed
 * single events and its plain counted events of known contexts. A lane with nothing in flight
 * applies an arriving event at the end of the event-loop turn (no timer; an event alone in its group
 * that has a cheaper path of its own, `EventItem.alone`, takes it); events that arrive while a
 * transaction is in flight queue, and the next transaction
 * takes them all (up to `maxEvents`), in arrival order, through `applyEvents` — so each event is
 * decided as if sent alone, in that order, and each request gets its own outcome. Row locks stay
 * the truth: several nodes each group their own arrivals and their transactions serialise on the
 * rows. The lane is the account's, not the customer's: `applyEvents` takes every customer's rows in
 * one global order (as a batch does), and a group of fifty customers' events costs the same dozen
 * statements as a group of one (a lane per customer never grouped events spread over customers).
 *
 * Batches over several customers (`submitMany`, POST /events/batch without an Idempotency-Key or
 * flows) join the same lane: a batch is never split, and its events keep their order among the group's.
 *
 * A request is answered only after the transaction holding its events committed (or failed): a
 * crash before that commit loses only unacknowledged work. If a grouped transaction fails, each of
 * its requests is retried alone, so one poisonous event fails only its own request.
 */
/** One request's events: a single event, or a whole batch (never split across transactions). */
type Waiter = { items: EventItem[]; resolve: (o: EventOutcome[]) => void; reject: (err: unknown) => void };
type Lane = { accountId: string; waiting: Waiter[]; running: boolean };

/**
 * Most events of one group when batches join it: concurrent batches of one account (a collector
 * sending every customer's events) lock the same counters and pools, so applied apart they only
 * wait for each other; in one transaction each row is locked, read and written once for all of them.
 */
export const BATCH_GROUP_MAX_EVENTS = 2000;

class HotPoolQueue {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly apply: (accountId: string, items: EventItem[]) => Promise<EventOutcome[]>,
    private readonly maxEvents: number,
  ) {}

  /** Applies the event in its account's lane; resolves with its own outcome once its transaction has committed. */
  async submit(accountId: string, item: EventItem): Promise<EventOutcome> {
    return (await this.submitMany(accountId, [item]))[0]!;
  }

  /**
   * Applies a request's events (a batch) in its account's lane, all in one transaction with whatever
   * else the lane groups with them; resolves with their outcomes, in order, once it has committed.
   */
  submitMany(accountId: string, items: EventItem[]): Promise<EventOutcome[]> {
    let lane = this.lanes.get(accountId);
    if (!lane) this.lanes.set(accountId, (lane = { accountId, waiting: [], running: false }));
    const outcome = new Promise<EventOutcome[]>((resolve, reject) => lane.waiting.push({ items, resolve, reject }));
    if (!lane.running) {
      // The group starts at the end of this turn of the event loop, not at once: on the embedded
      // database a request runs to its answer without yielding to I/O (PGlite answers in
      // microtasks), so an immediate start saw every event alone; the requests read in the same turn
      // now join it. No timer: an idle lane adds no wait.
      lane.running = true;
      setImmediate(() => void this.drain(accountId, lane));
    }
    return outcome;
  }

  /** The next group: waiters in arrival order while their events fit (`maxEvents`; batches up to BATCH_GROUP_MAX_EVENTS); the first always. */
  private nextGroup(lane: Lane): Waiter[] {
    const group: Waiter[] = [];
    let events = 0;
    while (lane.waiting.length > 0) {
      const next = lane.waiting[0]!;
      const limit = next.items.length > 1 || group.some((w) => w.items.length > 1) ? Math.max(this.maxEvents, BATCH_GROUP_MAX_EVENTS) : this.maxEvents;
      if (group.length > 0 && events + next.items.length > limit) break;
      group.push(lane.waiting.shift()!);
      events += next.items.length;
    }
    return group;
  }

  private async drain(laneKey: string, lane: Lane) {
    lane.running = true;
    try {
      while (lane.waiting.length > 0) await this.applyGroup(lane.accountId, this.nextGroup(lane));
    } finally {
      lane.running = false;
      if (lane.waiting.length === 0) this.lanes.delete(laneKey);
      else void this.drain(laneKey, lane);
    }
  }

  private async applyGroup(accountId: string, group: Waiter[]) {
    const only = group.length === 1 ? group[0]! : undefined;
    const alone = only?.items.length === 1 ? only.items[0]!.alone : undefined;
    if (alone) {
      try {
        const outcome = await alone();
        if (outcome) return only!.resolve([outcome]);
      } catch (err) {
        return only!.reject(err);
      }
    }
    try {
      const outcomes = await this.apply(accountId, group.flatMap((w) => w.items));
      let at = 0;
      for (const w of group) w.resolve(outcomes.slice(at, (at += w.items.length)));
    } catch (err) {
      if (only) return only.reject(err);
      // Nothing of the group committed: each request alone, so only a failing one fails.
      for (const w of group) {
        try {
          w.resolve(await this.apply(accountId, w.items));
        } catch (own) {
          w.reject(own);
        }
      }
    }
  }
}

const queues = new WeakMap<AppContext, HotPoolQueue>();

/** This node's queue (one per runtime: two runtimes in one process are two nodes). */
export function hotPoolQueue(ctx: AppContext): HotPoolQueue {
  let queue = queues.get(ctx);
  if (!queue) queues.set(ctx, (queue = new HotPoolQueue((accountId, items) => applyEvents(ctx, accountId, items), ctx.config.ingestGroupMaxEvents)));
  return queue;
}
