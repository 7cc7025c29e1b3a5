import { sql } from 'kysely';
import type { Tx } from '../db/database.js';
import { afterCommit } from '../db/transaction.js';

/**
 * The one cache of a node (ADR 0013): named regions of slowly changing rows (API keys, tariff rows),
 * each entry tagged with the account it belongs to. An entry lives at most `ttlMs`; a change drops
 * the entries of its tag on this node after commit, and on every other node through PostgreSQL
 * NOTIFY (sent in the changing transaction, so delivered only if it commits). The cache serves only
 * while the node is sure to hear those notifications: on PostgreSQL while its listening connection
 * is up (see listener.ts); on PGlite (one process) always.
 *
 * Never put counters, balances or anything a write changes on the hot path in here.
 */
export class NodeCache {
  private readonly regions = new Map<string, CacheRegion<unknown>>();
  private serving: boolean;

  constructor(
    readonly options: {
      ttlMs: number;
      /** Entries per region; the oldest are evicted beyond it. */
      maxEntries?: number;
      /** PostgreSQL: notify other nodes in the changing transaction. False on PGlite (one process). */
      notify: boolean;
      /** Monotonic milliseconds (performance.now), injectable for tests. */
      now?: () => number;
    },
  ) {
    // On PostgreSQL the cache waits for its listener (markListening) before it serves anything.
    this.serving = !options.notify && options.ttlMs > 0;
  }

  /** The region named `name`, created on first use; `tagOf` names the account an entry belongs to. */
  region<V>(name: string, tagOf: (value: V, key: string) => string): CacheRegion<V> {
    let region = this.regions.get(name) as CacheRegion<V> | undefined;
    if (!region) {
      region = new CacheRegion<V>(this, tagOf, this.options.maxEntries ?? 50_000);
      this.regions.set(name, region as CacheRegion<unknown>);
    }
    return region;
  }

  /** Whether lookups may be answered from memory now. */
  get isServing(): boolean {
    return this.serving;
  }

  /** Drops every entry of every region. */
  flushAll(): void {
    for (const region of this.regions.values()) region.clear();
  }

  /**
   * Listener state (PostgreSQL): up → serve again, after flushing whatever was cached before (a
   * notification may have been missed while it was down); down → flush and answer every lookup
   * from the database until it is back.
   */
  markListening(up: boolean): void {
    this.flushAll();
    this.serving = up && this.options.ttlMs > 0;
  }

  /** Drops the entries of `tag` in `region` on this node (a notification from another node, or a local commit). */
  invalidate(region: string, tag: string): void {
    this.regions.get(region)?.invalidate(tag);
  }

  /**
   * Declares, inside the transaction that changes them, that the entries of `tag` in `region` are
   * stale: NOTIFY to every node (delivered on commit only) and, after commit, dropped on this node
   * before the transaction's caller goes on (so this node never answers from the old row).
   */
  async invalidateOnCommit(tx: Tx, region: string, tag: string): Promise<void> {
    if (this.options.notify) await sql`select pg_notify(${cacheChannelSql}, ${toPayload(region, tag)})`.execute(tx);
    afterCommit(tx, `cache:${region}`, () => this.invalidate(region, tag));
  }

  /** Entries and hit counters per region (health and tests). */
  stats(): Record<string, { entries: number; hits: number; misses: number }> {
    return Object.fromEntries([...this.regions].map(([name, region]) => [name, region.stats()]));
  }

  /** @internal */
  monotonicNow(): number {
    return this.options.now ? this.options.now() : performance.now();
  }
}

/** The notification channel: per schema, so services sharing a database by schema (tests, bench) stay apart. */
export const cacheChannelSql = sql<string>`'tally_cache.' || current_schema()`;

export function toPayload(region: string, tag: string): string {
  return JSON.stringify([region, tag]);
}

/** The (region, tag) of a notification payload, or null for a payload this version does not know. */
export function fromPayload(payload: string | undefined): { region: string; tag: string } | null {
  try {
    const value: unknown = JSON.parse(payload ?? '');
    if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string') return { region: value[0], tag: value[1] };
  } catch {
    // fall through
  }
  return null;
}

type Entry<V> = { value: V; tag: string; expiresAt: number };

/**
 * One kind of cached row. Lookups of the same key share one load. A load that was running while
 * its region was invalidated answers its own caller but is not stored, so an entry never holds a
 * row read before the change that invalidated it.
 */
export class CacheRegion<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly keysByTag = new Map<string, Set<string>>();
  private readonly loading = new Map<string, Promise<V | null>>();
  private generation = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly cache: NodeCache,
    private readonly tagOf: (value: V, key: string) => string,
    private readonly maxEntries: number,
  ) {}

  /** The cached value of `key`, else `load()`'s (stored unless null). */
  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    if (!this.cache.isServing) return load();
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > this.cache.monotonicNow()) {
      this.hits++;
      return entry.value;
    }
    this.misses++;
    const running = this.loading.get(key);
    if (running) return running;
    const generation = this.generation;
    const promise = load().then(
      (value) => {
        if (this.loading.get(key) === promise) this.loading.delete(key);
        if (value !== null && generation === this.generation && this.cache.isServing) this.store(key, value);
        return value;
      },
      (err: unknown) => {
        if (this.loading.get(key) === promise) this.loading.delete(key);
        throw err;
      },
    );
    this.loading.set(key, promise);
    return promise;
  }

  invalidate(tag: string): void {
    this.generation++;
    // Lookups after this point must not join a load that may have read the old row.
    this.loading.clear();
    for (const key of this.keysByTag.get(tag) ?? []) this.entries.delete(key);
    this.keysByTag.delete(tag);
  }

  clear(): void {
    this.generation++;
    this.loading.clear();
    this.entries.clear();
    this.keysByTag.clear();
  }

  stats() {
    return { entries: this.entries.size, hits: this.hits, misses: this.misses };
  }

  private store(key: string, value: V): void {
    this.remove(key);
    if (this.entries.size >= this.maxEntries) this.remove(this.entries.keys().next().value!);
    const tag = this.tagOf(value, key);
    this.entries.set(key, { value, tag, expiresAt: this.cache.monotonicNow() + this.cache.options.ttlMs });
    let keys = this.keysByTag.get(tag);
    if (!keys) this.keysByTag.set(tag, (keys = new Set()));
    keys.add(key);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    const keys = this.keysByTag.get(entry.tag);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByTag.delete(entry.tag);
  }
}
