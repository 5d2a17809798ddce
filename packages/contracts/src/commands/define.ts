import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ErrorObject } from '../common/errors.js';

/**
 * A request/reply command between processes (core NATS, not JetStream). The serving process owns
 * the subject; both sides validate the payloads against these schemas.
 */
export interface CommandDefinition<Req extends TSchema = TSchema, Rep extends TSchema = TSchema> {
  subject: string;
  request: Req;
  reply: Rep;
  description: string;
}

export function defineCommand<Req extends TSchema, Rep extends TSchema>(
  subject: `cmd.${string}`,
  request: Req,
  reply: Rep,
  description: string,
): CommandDefinition<Req, Rep> {
  return { subject, request, reply, description };
}

export type CommandRequest<C extends CommandDefinition> = Static<C['request']>;
export type CommandReply<C extends CommandDefinition> = Static<C['reply']>;

/** What travels back: the reply, or an error object with its code and status, never a bare string. */
export function CommandResult<T extends TSchema>(data: T) {
  return Type.Union([Type.Object({ ok: Type.Literal(true), data }), Type.Object({ ok: Type.Literal(false), error: ErrorObject })]);
}
export type CommandResult<T> = { ok: true; data: T } | { ok: false; error: ErrorObject };
