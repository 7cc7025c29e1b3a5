import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import type { AppContext } from '../platform/context.js';
import { openDatabase } from '../platform/db/database.js';
import { migrate } from '../platform/db/migrator.js';
import { createContext, databaseOptionsOf } from '../runtime.js';

/** Runs an operator script against the configured database (migrated first), then closes it. */
export async function runScript(fn: (ctx: AppContext) => Promise<number>): Promise<void> {
  let code = 1;
  try {
    const config = loadConfig();
    for (const warning of config.warnings) console.warn(`warning: ${warning}`);
    const database = await openDatabase(databaseOptionsOf(config));
    try {
      await migrate(database);
      code = await fn(createContext(config, database));
    } finally {
      await database.close();
    }
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
  }
  process.exit(code);
}

export { parseArgs };
