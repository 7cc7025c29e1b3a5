import type { NodeCache } from '../../platform/cache/node-cache.js';
import type { Tx } from '../../platform/db/database.js';
import type { Principal } from '../../platform/http/principal.js';

/** API keys as the node cache holds them: by key hash (never the plaintext), tagged by account. */
const API_KEYS = 'api-keys';
/** `lastUsedAt` is this node's latest knowledge, moved forward when it writes a new use. */
type CachedKey = { principal: Principal; expiresAt: Date | null; lastUsedAt: Date | null; provisionalUntil: Date | null };

export const keyCache = (cache: NodeCache) => cache.region<CachedKey>(API_KEYS, (key) => key.principal.accountId);

/**
 * Called in the transaction that revokes or replaces keys of the account: on commit this node
 * forgets the account's cached keys before the caller answers, every other node when the
 * notification arrives (ADR 0013).
 */
export const forgetAccountKeys = (cache: NodeCache, tx: Tx, accountId: string) => cache.invalidateOnCommit(tx, API_KEYS, accountId);

/** This node forgets the account's cached keys now (a stale entry found outside any transaction). */
export const forgetAccountKeysHere = (cache: NodeCache, accountId: string) => cache.invalidate(API_KEYS, accountId);
