/**
 * Operator script (ADR 0023): prepares and distributes the migrated database named by DATABASE_URL,
 * which must be a Citus coordinator with its workers added. Idempotent: run it again after an
 * upgrade and it distributes only what is new (the server's migrator also does that by itself on a
 * database already distributed).
 *   DATABASE_URL=postgres://…coordinator…/tally npm run citus:distribute
 */
import { distributeOnCitus } from '../platform/db/citus.js';
import { runScript } from './cli.js';

await runScript(async (ctx) => {
  if (ctx.database.kind !== 'postgres') {
    console.error('DATABASE_URL is unset: Citus distribution needs a Citus coordinator, not the embedded database');
    return 2;
  }
  const done = await ctx.database.withSession((exec) => distributeOnCitus(exec));
  if (done.reference.length + done.distributed.length === 0) console.log('Already distributed: nothing to do');
  else {
    if (done.reference.length > 0) console.log(`Reference tables (${done.reference.length}): ${done.reference.join(', ')}`);
    if (done.distributed.length > 0) console.log(`Distributed by account_id (${done.distributed.length}): ${done.distributed.join(', ')}`);
  }
  return 0;
});
