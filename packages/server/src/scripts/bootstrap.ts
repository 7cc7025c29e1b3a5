/**
 * Operator bootstrap: creates an account with its owner login (role OWNER, ADR 0034) and prints its
 * tenant key once. The owner invites the rest of the team (console Users page, POST /api/v1/users).
 *   npm run bootstrap -- --username U [--account-name N]     (asks for the password, no echo)
 *   TALLY_BOOTSTRAP_PASSWORD=… npm run bootstrap -- --username U
 *   printf '%s\n' "$PW" | npm run bootstrap -- --username U
 *   npm run bootstrap -- --username U --password P            (npm prints P with the command line)
 */
import { createAccount } from '../modules/accounts/index.js';
import { AppError } from '../platform/errors/app-error.js';
import { parseArgs, readSecret, runScript } from './cli.js';

const MIN_PASSWORD_LENGTH = 8;
const USAGE =
  'usage: npm run bootstrap -- --username U [--account-name N]   (the password: asked for without echo, ' +
  'or from TALLY_BOOTSTRAP_PASSWORD, or the first line of a piped stdin; --password P also works but npm prints it)';

await runScript(async (ctx) => {
  const { values } = parseArgs({
    options: { username: { type: 'string' }, password: { type: 'string' }, 'account-name': { type: 'string' } },
  });
  const problems: string[] = [];
  if (!values.username?.trim()) problems.push('--username is required');
  if (values.password !== undefined && values.password.length < MIN_PASSWORD_LENGTH) {
    problems.push(`--password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (problems.length === 0 && values.password === undefined) {
    // Off the command line (npm prints it there): the environment, else stdin (a prompt without echo, or a pipe).
    const password = process.env.TALLY_BOOTSTRAP_PASSWORD || (await readSecret('Password for the new operator: '));
    if (!password) problems.push('a password is required: type it at the prompt, pipe it, or set TALLY_BOOTSTRAP_PASSWORD');
    else if (password.length < MIN_PASSWORD_LENGTH) problems.push(`the password must be at least ${MIN_PASSWORD_LENGTH} characters`);
    values.password = password;
  }
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n${USAGE}`);
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
    console.log(`Owner login: ${username} (role OWNER: invites the team in the console's Users page)`);
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
