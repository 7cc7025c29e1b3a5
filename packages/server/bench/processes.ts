/**
 * The bench's own processes (bench/server.ts, bench/raw-server.ts): forked through tsx, asked over
 * IPC for their CPU time or a checkpoint, and stopped. The harness gets the askers as functions.
 */
import { fork, type ChildProcess } from 'node:child_process';

/** Forks a bench process (TypeScript through tsx) and waits for its ready message. */
export async function forkReady<T>(script: string, env: Record<string, string | undefined>, execArgv: string[] = []): Promise<{ child: ChildProcess; ready: T }> {
  const child = fork(new URL(script, import.meta.url).pathname, [], { execArgv: ['--import', 'tsx', ...execArgv], env: { ...process.env, ...env } });
  const ready = await new Promise<T>((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, ready };
}

/** Asks a bench process to stop and waits for it to exit. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.send('stop');
  await exited;
}

/** Sends `message` to a bench process and resolves with the first reply `answerOf` recognises. */
function ask<T>(child: ChildProcess, message: string, answerOf: (reply: unknown) => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (reply: unknown) => {
      const answer = answerOf(reply);
      if (answer === undefined) return;
      child.off('message', onMessage);
      resolve(answer);
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

/** Asks a bench process (server.ts, raw-server.ts) for the CPU time it has used, in microseconds. */
export function cpuOf(child: ChildProcess): () => Promise<number> {
  return () => ask(child, 'cpu', (m) => (typeof m === 'object' && m !== null && 'cpuMicros' in m ? (m as { cpuMicros: number }).cpuMicros : undefined));
}

/**
 * Asks the bench server for a CHECKPOINT and waits for it: every scenario and raw baseline starts
 * with nothing left to write from the ones before it (a checkpoint during a read scenario had it
 * share the machine with the write-out of an earlier write scenario).
 */
export function settleOf(child: ChildProcess): () => Promise<void> {
  return () => ask(child, 'settle', (m) => (m === 'settled' ? null : undefined)).then(() => {});
}

