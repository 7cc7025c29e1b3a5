/**
 * Polls `read` every 50 ms until it returns something other than undefined, and returns that; throws
 * "timed out waiting for <what>" after `ms`. For what another part of the system does on its own
 * time (a relay's delivery, a job), never for a fixed sleep. Test code only.
 */
export async function until<T>(what: string, read: () => Promise<T | undefined> | T | undefined, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
