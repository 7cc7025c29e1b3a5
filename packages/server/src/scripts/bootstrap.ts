/**
 * Operator bootstrap: creates an account with an admin login and prints its tenant key once.
 *   npm run bootstrap -- --username U --password P [--account-name N]
 */
import { createAccount } from '../modules/accounts/index.js';
import { AppError } from '../platform/errors/app-error.js';
import { parseArgs, runScript } from './cli.js';

const MIN_PASSWORD_LENGTH = 8;

await runScript(async (ctx) => {
  const { values } = parseArgs({
    options: { username: { type: 'string' }, password: { type: 'string' }, 'account-name': { type: 'string' } },
  });
  const problems: string[] = [];
  if (!values.username?.trim()) problems.push('--username is required');
  if (!values.password) problems.push('--password is required');
  else if (values.password.length < MIN_PASSWORD_LENGTH) problems.push(`--password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\nusage: npm run bootstrap -- --username U --password P [--account-name N]`);
    return 2;
  }
  try {
    const username = values.username!.trim();
    const { accountId, apiKey } = await createAccount(ctx, {
      accountName: values['account-name'] ?? username,
      username,
      password: values.password!,
    });
    console.log(`Account created: ${accountId}`);
    console.log(`Admin login: ${username}`);
    console.log(`Tenant API key (shown once, store it now): ${apiKey}`);
    return 0;
  } catch (err) {
    if (err instanceof AppError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
});
