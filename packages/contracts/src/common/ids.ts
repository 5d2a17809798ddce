import { randomBytes } from 'node:crypto';

/** A version 7 UUID (RFC 9562): time-ordered, so ids sort by creation and index well. */
export function uuidv7(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `evt_` + 32 hex characters of a UUIDv7: unique, time-ordered, the JetStream de-duplication key. */
export function newEventId(now = Date.now()): string {
  return `evt_${uuidv7(now).replaceAll('-', '')}`;
}
