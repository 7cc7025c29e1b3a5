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

/**
 * A secret from standard input: typed at a terminal without echo, or the first line of a pipe.
 * Empty when stdin is closed or the user just presses Enter.
 */
export async function readSecret(prompt: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) {
    let text = '';
    for await (const chunk of input) {
      text += String(chunk);
      if (text.includes('\n')) break;
    }
    return text.split(/\r?\n/)[0] ?? '';
  }
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise<string>((resolve) => {
    let secret = '';
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          input.setRawMode(false);
          input.pause();
          input.off('data', onData);
          process.stderr.write('\n');
          resolve(secret);
          return;
        }
        if (ch === '\u0003') {
          input.setRawMode(false);
          process.stderr.write('\n');
          process.exit(130);
        }
        if (ch === '\u007f' || ch === '\b') secret = secret.slice(0, -1);
        else secret += ch;
      }
    };
    input.on('data', onData);
  });
}
