/**
 * Init code that deploys `runtime` as is, without running its constructor: the attacker's way to
 * get a contract whose code is HoldfastEscrow's while its immutables (the periods) stay 0. Deploy it
 * as a contract creation's data (viem `sendTransaction({ data })` with no `to`).
 */
export function initCodeReturning(runtime: `0x${string}`): `0x${string}` {
  const length = (runtime.length - 2) / 2;
  if (length > 0xffff) throw new Error('runtime code too long for this init code');
  const u16 = (n: number) => n.toString(16).padStart(4, '0');
  // PUSH2 len, DUP1, PUSH2 13 (this prefix's length), PUSH1 0, CODECOPY, PUSH1 0, RETURN
  const prefix = `61${u16(length)}8061${u16(13)}6000396000f3`;
  return `0x${prefix}${runtime.slice(2)}`;
}
