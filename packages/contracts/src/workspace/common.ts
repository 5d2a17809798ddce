import { type TSchema, Type } from '@sinclair/typebox';

/** `T | null`, rendered as `anyOf [T, null]` in JSON Schema and OpenAPI 3.1. */
export function Nullable<T extends TSchema>(schema: T, options: { description?: string } = {}) {
  return Type.Union([schema, Type.Null()], options);
}

/** An e-mail address; the service lower-cases it before storing or comparing. */
export const EmailAddress = Type.String({ format: 'email', maxLength: 254, description: 'E-mail address (compared case-insensitively).' });

/** Path parameter `{id}` of every Workspace API resource. */
export const IdParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'Resource id (uuid).' }) });

/** `{message}`: the answer of deletions and of actions without a resource to show. */
export const MessageResult = Type.Object({ message: Type.String() });
