/**
 * Polls `probe` every 50 ms until it answers a value (anything but undefined, null or false): the
 * work of another process or a background worker landing. A bounded wait, not a timing assertion;
 * past `timeoutMs` it throws "timed out waiting for <what>".
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
