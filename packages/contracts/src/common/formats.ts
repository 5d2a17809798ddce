import { FormatRegistry } from '@sinclair/typebox';

// TypeBox's own checker knows no string formats until they are registered. Fastify validates
// HTTP bodies with Ajv (which has ajv-formats), NATS payloads are checked with TypeBox: both
// must agree on what a uuid, an e-mail or a date-time is, so the rules live here once.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;

function isUri(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol.length > 1;
  } catch {
    return false;
  }
}

const formats: Record<string, (value: string) => boolean> = {
  uuid: (v) => UUID.test(v),
  email: (v) => EMAIL.test(v),
  date: (v) => DATE.test(v) && !Number.isNaN(Date.parse(v)),
  'date-time': (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)),
  uri: isUri,
};

for (const [name, check] of Object.entries(formats)) {
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);
}
