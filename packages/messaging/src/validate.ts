import type { Static, TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import '@holdfast/contracts';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerOf<S extends TSchema>(schema: S): TypeCheck<S> {
  let checker = compiled.get(schema);
  if (!checker) {
    checker = TypeCompiler.Compile(schema);
    compiled.set(schema, checker);
  }
  return checker as TypeCheck<S>;
}

export class PayloadError extends Error {
  constructor(
    readonly where: string,
    readonly problems: string[],
  ) {
    super(`${where}: payload does not match its contract: ${problems.join('; ')}`);
    this.name = 'PayloadError';
  }
}

/** Checks a payload against its contract; throws PayloadError naming each problem. */
export function assertPayload<S extends TSchema>(schema: S, value: unknown, where: string): asserts value is Static<S> {
  const checker = checkerOf(schema);
  if (checker.Check(value)) return;
  const problems = [...checker.Errors(value)].slice(0, 5).map((e) => `${e.path || '/'} ${e.message}`);
  throw new PayloadError(where, problems);
}
