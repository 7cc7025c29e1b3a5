/** Dev seed on demand: creates the dev account from DEV_SEED_* on an empty database. */
import { seedDevAccount } from '../modules/accounts/index.js';
import { runScript } from './cli.js';

await runScript(async (ctx) => {
  if (ctx.config.isProduction) {
    console.error('Refusing to seed a dev account with NODE_ENV=production; use npm run bootstrap.');
    return 1;
  }
  const seeded = await seedDevAccount(ctx);
  if (!seeded) {
    console.log('The database already has an account; nothing seeded.');
    return 0;
  }
  console.log(`Seeded the dev account: username '${seeded.username}', password '${seeded.password}', API key ${seeded.apiKey}`);
  console.warn('warning: change these credentials before exposing this install.');
  return 0;
});
