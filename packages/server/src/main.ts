import { ConfigError, loadConfig } from './config.js';
import { seedDevAccount } from './modules/accounts/index.js';
import { DataDirLockedError } from './platform/db/data-dir-lock.js';
import { createRuntime } from './runtime.js';

async function main() {
  const config = loadConfig();
  const runtime = await createRuntime(config);
  const { app, ctx, scheduler, relay } = runtime;
  for (const warning of config.warnings) app.log.warn(warning);

  if (!config.isProduction) {
    const seeded = await seedDevAccount(ctx);
    if (seeded) {
      app.log.warn(
        `Seeded the dev account: username '${seeded.username}', password '${seeded.password}', API key ${seeded.apiKey}. ` +
          'Change them before exposing this install (DEV_SEED_* variables, or rotate the key and password).',
      );
    }
  }

  await app.listen({ port: config.port, host: config.host });
  if (config.jobsEnabled) {
    scheduler.start();
    relay.start();
  }
  const where = config.database.kind === 'pglite' ? `embedded database in ${config.database.dataDir}` : 'PostgreSQL';
  app.log.info(
    `Tally listening on ${config.host}:${config.port} (${where}; API keys: ${config.apiKeyEnvironment}); API docs at /swagger-ui.html`,
  );

  // Graceful (ADR 0020): stop accepting, let in-flight requests and the running job slot finish,
  // then close the cache listener and the pool. A second signal does not wait.
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) {
      app.log.warn(`${signal} again: exiting without waiting`);
      process.exit(1);
    }
    closing = true;
    app.log.info(`${signal}: shutting down (finishing in-flight requests and the running job)`);
    try {
      await runtime.close();
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
    app.log.info('shut down');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    console.error(err.message);
  } else {
    console.error(err);
  }
  process.exit(1);
});
