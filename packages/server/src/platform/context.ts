import type { Config } from '../config.js';
import type { NodeCache } from './cache/node-cache.js';
import type { Clock } from './clock.js';
import type { BatchWriters } from './db/batch-writer.js';
import type { Database, Db } from './db/database.js';
import type { Metrics } from './metrics.js';
import type { SecretBox } from './security/secrets.js';

/** What services need from the platform; built once in app.ts and passed down. */
export type AppContext = {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  /** Seals and opens secrets stored in the database (APP_SECRETS_KEY; ADR 0007). */
  secrets: SecretBox;
  /** This node's cache of keys and tariff rows, invalidated across nodes (ADR 0013). */
  cache: NodeCache;
  /** This node's group-commit writers (the entitlement check's audit rows; ADR 0013). */
  batches: BatchWriters;
  /** This runtime's Prometheus registry and recorders (ADR 0021); approximations, never read back into money. */
  metrics: Metrics;
};
