import { freePort, tcpAnswers } from '@holdfast/messaging/ports';

/** The preferred port when nothing listens on it, else any free one. */
export async function portFor(preferred: number): Promise<number> {
  if (preferred > 0 && !(await tcpAnswers('127.0.0.1', preferred))) return preferred;
  return freePort();
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not come up within ${Math.round(timeoutMs / 1000)} s`);
}
