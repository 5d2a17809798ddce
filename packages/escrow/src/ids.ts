import type { Hex } from 'viem';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ONCHAIN_ID = /^0x0{32}([0-9a-f]{32})$/i;
const NIL = '0'.repeat(32);

/**
 * The escrow id of a transaction or batch leg (operator contract): the UUID's 16 bytes left-padded
 * with zeros to a bytes32, as lower-case hex. The nil UUID is refused, as the contract refuses id 0.
 */
export function uuidToOnchainId(uuid: string): Hex {
  if (!UUID.test(uuid)) throw new TypeError(`not a UUID: ${JSON.stringify(uuid)}`);
  const hex = uuid.replaceAll('-', '').toLowerCase();
  if (hex === NIL) throw new TypeError('the nil UUID has no on-chain id');
  return `0x${'0'.repeat(32)}${hex}`;
}

/** The UUID (lower case, hyphenated) of an escrow id; refuses anything that is not a left-padded UUID. */
export function onchainIdToUuid(id: string): string {
  const match = ONCHAIN_ID.exec(id);
  if (!match) throw new TypeError(`not an on-chain id (bytes32 with the upper 16 bytes zero): ${JSON.stringify(id)}`);
  const hex = match[1]!.toLowerCase();
  if (hex === NIL) throw new TypeError('on-chain id 0 is not a transaction id');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
