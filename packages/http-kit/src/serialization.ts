/**
 * What the response serializers compile. fast-json-stringify serializes a union (`anyOf`) by running
 * an Ajv validator of each branch on the value until one matches, on every answer: `Nullable(X)`
 * (`anyOf: [X, {type: 'null'}]`) of a string with a format ran the format's check (a date-time, a
 * uuid) for each such field of each answer. A union of one scalar schema and null is the same
 * JSON as that schema with `type: [its type, 'null']`, which the serializer picks by `typeof`.
 */

type JsonSchema = Record<string, unknown>;

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean']);
/** Keywords of a scalar branch that the serializer would need a validator for, or that nest schemas. */
const NOT_PLAIN = ['anyOf', 'oneOf', 'allOf', 'not', 'if', '$ref', 'properties', 'items'];

const isObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The scalar branch of a `[scalar, null]` union (in either order), or nothing. */
function nullableScalar(union: unknown[]): JsonSchema | undefined {
  if (union.length !== 2) return undefined;
  const nullAt = union.findIndex((branch) => isObject(branch) && branch.type === 'null' && Object.keys(branch).length === 1);
  if (nullAt < 0) return undefined;
  const other = union[1 - nullAt];
  if (!isObject(other) || typeof other.type !== 'string' || !SCALAR_TYPES.has(other.type)) return undefined;
  if (NOT_PLAIN.some((keyword) => keyword in other)) return undefined;
  return other;
}

/**
 * A copy of a response schema with every `anyOf: [scalar, null]` written as `type: [scalar, 'null']`
 * (the scalar's other keywords kept); everything else as it was. Only symbols (TypeBox's) are lost,
 * which the serializer does not read.
 */
export function nullableAsTypeList(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableAsTypeList);
  if (!isObject(schema)) return schema;
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    // `const`, `default`, `enum`, `examples` hold data, not schemas.
    copy[key] = key === 'const' || key === 'default' || key === 'enum' || key === 'examples' ? value : nullableAsTypeList(value);
  }
  const scalar = Array.isArray(copy.anyOf) ? nullableScalar(copy.anyOf) : undefined;
  if (!scalar || 'type' in copy) return copy;
  const { anyOf: _anyOf, ...siblings } = copy;
  return { ...siblings, ...scalar, type: [scalar.type, 'null'] };
}
