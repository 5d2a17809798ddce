/** `YYYY-MM-DD HH:MM:SS[.fraction]+00`: a timestamptz as PostgreSQL writes it with TimeZone UTC. */
const UTC_TEXT = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00$/;

/**
 * A timestamp read with raw postgres.js, as ISO 8601. Such timestamps arrive as PostgreSQL text
 * (drizzle, sharing the client, turns the client's timestamp parsers off):
 * `2026-11-21 10:00:00.123+00`; answers carry `2026-11-21T10:00:00.123Z`.
 */
export function isoOf(value: string | Date): string {
  if (value instanceof Date) return value.toISOString();
  // The session's own form in UTC (`2026-11-25 11:07:44.123456+00`), rewritten without a Date:
  // every answered row has two or three of these.
  if (UTC_TEXT.test(value)) return `${value.slice(0, 10)}T${value.slice(11, 19)}.${`${value.slice(20, -3)}000`.slice(0, 3)}Z`;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2})(?::?(\d{2}))?$/.exec(value);
  return new Date(m ? `${m[1]}T${m[2]}${m[3]}:${m[4] ?? '00'}` : value).toISOString();
}

/** `isoOf` of a nullable column. */
export function isoOrNull(value: string | Date | null | undefined): string | null {
  return value === null || value === undefined ? null : isoOf(value);
}
