import { hostname } from 'node:os';
import type { Db } from './db/database.js';

/**
 * This process's node identity and boot epoch (ADR 0033). The identity is APP_NODE_ID, or host:port
 * once listening (two live processes cannot listen on one host and port); each boot of an identity
 * takes the next epoch, so a lease stamped with an older epoch of it was held by a process that is
 * gone.
 */
export type NodeBoot = { nodeId: string; epoch: string };

/** The identity a listening node takes: the configured one, else host:port. */
export function nodeIdentity(configured: string | undefined, port: number): string {
  return configured ?? `${hostname()}:${port}`;
}

/** Records a boot of `nodeId` and returns its epoch (one statement; concurrent boots get distinct epochs). */
export async function registerBoot(db: Db, nodeId: string, now: Date): Promise<NodeBoot> {
  const row = await db
    .insertInto('node_boots')
    .values({ node_id: nodeId, epoch: '1', booted_at: now })
    .onConflict((oc) => oc.column('node_id').doUpdateSet((eb) => ({ epoch: eb(eb.ref('node_boots.epoch'), '+', 1), booted_at: now })))
    .returning('epoch')
    .executeTakeFirstOrThrow();
  return { nodeId, epoch: String(row.epoch) };
}
