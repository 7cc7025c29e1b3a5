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
 * A request is answered only after the transaction holding its event committed (or failed): a
 * crash before that commit loses only unacknowledged work. If a grouped transaction fails, each of
 * its events is retried alone, so one poisonous event fails only its own request.
 */
type Waiter = { item: EventItem; resolve: (o: EventOutcome) => void; reject: (err: unknown) => void };
type Lane = { accountId: string; waiting: Waiter[]; running: boolean };

class HotPoolQueue {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly apply: (accountId: string, items: EventItem[]) => Promise<EventOutcome[]>,
    private readonly maxEvents: number,
  ) {}

  /** Applies the event in its account's lane; resolves with its own outcome once its transaction has committed. */
  submit(accountId: string, item: EventItem): Promise<EventOutcome> {
    let lane = this.lanes.get(accountId);
    if (!lane) this.lanes.set(accountId, (lane = { accountId, waiting: [], running: false }));
    const outcome = new Promise<EventOutcome>((resolve, reject) => lane.waiting.push({ item, resolve, reject }));
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

  private async drain(laneKey: string, lane: Lane) {
    lane.running = true;
    try {
      while (lane.waiting.length > 0) {
        const group = lane.waiting.splice(0, this.maxEvents);
        await this.applyGroup(lane.accountId, group);
      }
    } finally {
      lane.running = false;
      if (lane.waiting.length === 0) this.lanes.delete(laneKey);
      else void this.drain(laneKey, lane);
    }
  }

  private async applyGroup(accountId: string, group: Waiter[]) {
    const alone = group.length === 1 ? group[0]!.item.alone : undefined;
    if (alone) {
      try {
        const outcome = await alone();
        if (outcome) return group[0]!.resolve(outcome);
      } catch (err) {
        return group[0]!.reject(err);
      }
    }
    try {
      const outcomes = await this.apply(accountId, group.map((w) => w.item));
      group.forEach((w, i) => w.resolve(outcomes[i]!));
    } catch (err) {
      if (group.length === 1) return group[0]!.reject(err);
      // Nothing of the group committed: each event alone, so only a failing one fails.
      for (const w of group) {
        try {
          w.resolve((await this.apply(accountId, [w.item]))[0]!);
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
