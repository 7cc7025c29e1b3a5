import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The server as a child process (`npm start` the way an operator runs it), for tests of what only a
 * whole process shows: signals, exit codes, the compiled build. Test code only.
 */
export const SERVER_DIR = new URL('../', import.meta.url).pathname;

export type ServerProcess = {
  pid: number;
  url: string;
  /** Every stdout/stderr line so far (JSON log lines and plain text). */
  lines: string[];
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  signal(signal: NodeJS.Signals): void;
  /** Resolves when a log line matches. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGKILL if still running (cleanup after a failed test). */
  kill(): Promise<void>;
};

/**
 * Starts `bin/run.sh main` (tsx, or dist/main.js with NODE_ENV=production) on 127.0.0.1 and an
 * ephemeral port, and resolves once it listens.
 */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 120_000): Promise<ServerProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env };
  delete childEnv.NODE_TEST_CONTEXT; // the child is a server, not a test file reporting to this runner
  const child = spawn('sh', ['bin/run.sh', 'main'], { cwd: SERVER_DIR, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters = new Set<{ pattern: RegExp; resolve(line: string): void }>();
  const onData = (chunk: Buffer, rest: { text: string }) => {
    rest.text += chunk.toString('utf8');
    const parts = rest.text.split('\n');
    rest.text = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const w of waiters) {
        if (!w.pattern.test(line)) continue;
        waiters.delete(w);
        w.resolve(line);
      }
    }
  };
  const out = { text: '' };
  const err = { text: '' };
  child.stdout.on('data', (c: Buffer) => onData(c, out));
  child.stderr.on('data', (c: Buffer) => onData(c, err));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const waitForLine = (pattern: RegExp, ms = timeoutMs) => {
    const seen = lines.find((l) => pattern.test(l));
    if (seen) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const waiter = { pattern, resolve: (line: string) => (clearTimeout(timer), resolve(line)) };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`no log line matching ${pattern} within ${ms} ms:\n${lines.join('\n')}`));
      }, ms);
      waiters.add(waiter);
      void exited.then((code) => {
        if (!waiters.has(waiter)) return;
        waiters.delete(waiter);
        clearTimeout(timer);
        reject(new Error(`the server exited (${code}) before a line matching ${pattern}:\n${lines.join('\n')}`));
      });
    });
  };

  const listening = await waitForLine(/Server listening at http:\/\/127\.0\.0\.1:\d+/).catch(async (e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
  const port = /127\.0\.0\.1:(\d+)/.exec(listening)![1];
  return {
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    lines,
    exited,
    signal: (signal) => void child.kill(signal),
    waitForLine,
    async kill() {
      if (hasExited) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Two random secrets of the length production requires (the server refuses to start on PostgreSQL without them). */
export function productionSecrets(): Record<string, string> {
  return { JWT_SECRET: randomBytes(36).toString('base64url'), APP_SECRETS_KEY: randomBytes(36).toString('base64url') };
}

/**
 * A PostgreSQL database of its own on TEST_DATABASE_URL's server (a server process cannot use the
 * harness's per-file schema): its URL, and a drop for the end of the test.
 */
export async function createScratchDatabase(adminUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
