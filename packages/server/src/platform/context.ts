import type { Config } from '../config.js';
import type { Clock } from './clock.js';
import type { Database, Db } from './db/database.js';

/** What services need from the platform; built once in app.ts and passed down. */
export type AppContext = {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
};
