/**
 * Timestamps read with raw postgres.js arrive as PostgreSQL text (drizzle, sharing the client,
 * turns the client's timestamp parsers off): `2026-11-21 10:00:00.123+00`. Answers carry ISO 8601.
 */
export function iso(value: string | Date): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

export function isoOrNull(value: string | Date | null | undefined): string | null {
  return value === null || value === undefined ? null : iso(value);
}
