import {
  type FieldError,
  INTEGRATION_CATALOG,
  type IntegrationCatalogEntry,
  type IntegrationKey,
  type IntegrationKind,
  SECRET_MASK,
  secretFieldsOf,
} from '@holdfast/contracts';
import { Value, type ValueError, ValueErrorType } from '@sinclair/typebox/value';

export type Kind = (typeof INTEGRATION_CATALOG)[number];
export type Config = Record<string, unknown>;

export function kindById(id: string): Kind | undefined {
  return INTEGRATION_CATALOG.find((k) => k.id === id);
}

export function kindByKey(key: IntegrationKey): Kind {
  return INTEGRATION_CATALOG.find((k) => k.key === key)!;
}

export function requiredFieldsOf(kind: IntegrationKind): string[] {
  return [...(kind.configSchema.required ?? [])];
}

export function catalogEntry(kind: Kind, available: boolean): IntegrationCatalogEntry {
  return {
    id: kind.id,
    key: kind.key,
    name: kind.name,
    category: kind.category,
    description: kind.description,
    callsProvider: kind.callsProvider,
    available,
    requiredFields: requiredFieldsOf(kind),
    secretFields: secretFieldsOf(kind),
    configSchema: JSON.parse(JSON.stringify(kind.configSchema)) as Record<string, unknown>,
  };
}

function reasonOf(error: ValueError): string {
  const schema = error.schema as { enum?: unknown[]; format?: string; minLength?: number; maxLength?: number };
  if (Array.isArray(schema.enum)) return `must be one of: ${schema.enum.join(', ')}`;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.ObjectAdditionalProperties:
      return 'is not a known parameter';
    case ValueErrorType.StringMinLength:
      return `must be at least ${schema.minLength} characters`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${schema.maxLength} characters`;
    case ValueErrorType.StringPattern:
      return 'has characters or a shape that is not allowed';
    case ValueErrorType.StringFormat:
      return schema.format === 'email' ? 'must be an e-mail address' : `must be a ${schema.format}`;
    case ValueErrorType.String:
      return 'must be a string';
    case ValueErrorType.Boolean:
      return 'must be a boolean';
    default:
      return error.message.replace(/^Expected/, 'must be').toLowerCase();
  }
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Every reason a config is unusable for its kind, one per field (`config.<field>`). Values are
 * never echoed: a reason names the rule, not what was sent.
 */
export function configProblems(kind: Kind, config: Config): FieldError[] {
  const problems: FieldError[] = [];
  const seen = new Set<string>();
  for (const error of Value.Errors(kind.configSchema, config)) {
    const field = `config${error.path.replaceAll('/', '.')}`;
    if (seen.has(field)) continue;
    seen.add(field);
    problems.push({ field, reason: reasonOf(error) });
  }
  for (const name of secretFieldsOf(kind)) {
    if (config[name] === SECRET_MASK && !seen.has(`config.${name}`)) {
      problems.push({ field: `config.${name}`, reason: `must be the secret itself, not the mask ${SECRET_MASK}` });
    }
  }
  if (kind.key === 'accounting-export' && typeof config.timezone === 'string' && !seen.has('config.timezone')) {
    if (!validTimeZone(config.timezone))
      problems.push({ field: 'config.timezone', reason: 'is not an IANA time zone (e.g. Europe/Berlin)' });
  }
  return problems;
}

/** A config split into what is stored in clear and what is sealed. */
export function splitSecrets(kind: Kind, config: Config): { plain: Config; secrets: Config } {
  const secretNames = new Set(secretFieldsOf(kind));
  const plain: Config = {};
  const secrets: Config = {};
  for (const [name, value] of Object.entries(config)) {
    if (value === undefined) continue;
    (secretNames.has(name) ? secrets : plain)[name] = value;
  }
  return { plain, secrets };
}

/** The config as answers show it: the clear fields, and each secret that is set as the mask. */
export function maskedConfig(plain: Config, secrets: Config): Config {
  return { ...plain, ...Object.fromEntries(Object.keys(secrets).map((name) => [name, SECRET_MASK])) };
}
