import type { AppContext } from '../../../platform/context.js';
import type { IngestContext } from '../repo.js';

/**
 * The last ingestion context each (account, customer reference, feature key) was read with, per
 * node, so a plain event can be planned without reading it first. It needs no invalidation: an
 * event planned from it is written only by a statement that reads the context again and finds its
 * fingerprint unchanged (repo.insertEventCounting with a guard); a changed context makes that
 * statement write nothing, and the event is planned again from a fresh read. Bounded: the oldest
 * entries go first.
 */
class ContextMemory {
  private readonly entries = new Map<string, IngestContext>();

  constructor(private readonly maxEntries = 20_000) {}

  get(accountId: string, ref: string, featureKey: string): IngestContext | undefined {
    return this.entries.get(keyOf(accountId, ref, featureKey));
  }

  set(accountId: string, ref: string, featureKey: string, context: IngestContext): void {
    const key = keyOf(accountId, ref, featureKey);
    this.entries.delete(key);
    this.entries.set(key, context);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  forget(accountId: string, ref: string, featureKey: string): void {
    this.entries.delete(keyOf(accountId, ref, featureKey));
  }
}

const keyOf = (accountId: string, ref: string, featureKey: string) => `${accountId}\u0000${ref}\u0000${featureKey}`;

const memories = new WeakMap<AppContext, ContextMemory>();

/** This node's memory (one per runtime: two runtimes in one process are two nodes). */
export function contextMemory(ctx: AppContext): ContextMemory {
  let memory = memories.get(ctx);
  if (!memory) memories.set(ctx, (memory = new ContextMemory()));
  return memory;
}
