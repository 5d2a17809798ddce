import { AppError, type CommandDefinition, CommandResult, commandQueue, type ErrorObject, validationError } from '@holdfast/contracts';
import { SpanKind, withSpan } from '@holdfast/logging';
import { headers as natsHeaders, type Subscription } from '@nats-io/transport-node';
import type { Static } from '@sinclair/typebox';
import { type Bus, prefixed } from './bus.js';
import { contextOfHeaders, injectTraceHeaders } from './trace-headers.js';
import { assertPayload, PayloadError } from './validate.js';

const REQUEST_ID_HEADER = 'Holdfast-Request-Id';

const resultSchemas = new WeakMap<CommandDefinition, ReturnType<typeof CommandResult>>();
/** One result schema object per command, so its compiled checker is reused. */
function resultSchemaOf(command: CommandDefinition) {
  let schema = resultSchemas.get(command);
  if (!schema) {
    schema = CommandResult(command.reply);
    resultSchemas.set(command, schema);
  }
  return schema;
}

export interface CommandContext {
  /** The HTTP request id of the caller, when the command serves one (for correlated logs). */
  requestId: string | undefined;
}

export type CommandHandler<C extends CommandDefinition> = (
  request: Static<C['request']>,
  context: CommandContext,
) => Promise<Static<C['reply']>>;

/**
 * Answers a command on its subject, in the process's queue group (one instance answers each
 * request). An AppError thrown by the handler travels back with its code and status.
 */
export function serveCommand<C extends CommandDefinition>(bus: Bus, command: C, service: string, handler: CommandHandler<C>): Subscription {
  const log = bus.logger.child({ component: 'command', subject: command.subject });
  const resultSchema = resultSchemaOf(command);
  return bus.nc.subscribe(prefixed(bus, command.subject), {
    queue: commandQueue(service),
    callback: (subscriptionError, message) => {
      if (subscriptionError) {
        log.error({ err: subscriptionError }, 'command subscription failed');
        return;
      }
      const requestId = message.headers?.get(REQUEST_ID_HEADER) || undefined;
      const span = {
        kind: SpanKind.SERVER,
        parent: contextOfHeaders(message.headers),
        attributes: { 'messaging.destination.name': command.subject },
      };
      void withSpan(`${command.subject} serve`, span, async () => {
        let result: CommandResult<unknown>;
        try {
          const request: unknown = message.json();
          assertPayload(command.request, request, `${command.subject} request`);
          const data = await handler(request, { requestId });
          result = { ok: true, data };
          assertPayload(resultSchema, result, `${command.subject} reply`);
        } catch (error) {
          result = { ok: false, error: commandError(error) };
          if (!(error instanceof AppError) && !(error instanceof PayloadError && error.where.endsWith('request'))) {
            log.error({ err: error, reqId: requestId }, 'command failed');
          }
        }
        message.respond(JSON.stringify(result));
      });
    },
  });
}

function commandError(error: unknown): ErrorObject {
  if (error instanceof AppError) return error.toObject();
  if (error instanceof PayloadError && error.where.endsWith('request')) {
    return validationError(
      error.problems.map((reason) => ({ field: 'command', reason })),
      error.message,
    ).toObject();
  }
  return { code: 'INTERNAL_ERROR', message: 'Internal server error', statusCode: 500 };
}

export interface SendOptions {
  timeoutMs?: number;
  requestId?: string;
}

/**
 * Sends a command and returns the reply's data. An error reply is rethrown as the AppError it
 * was, so an HTTP route forwarding a command answers with the same code and status.
 */
export async function sendCommand<C extends CommandDefinition>(
  bus: Bus,
  command: C,
  request: Static<C['request']>,
  options: SendOptions = {},
): Promise<Static<C['reply']>> {
  assertPayload(command.request, request, `${command.subject} request`);
  let raw: unknown;
  try {
    const span = { kind: SpanKind.CLIENT, attributes: { 'messaging.destination.name': command.subject } };
    raw = await withSpan(`${command.subject} send`, span, async () => {
      const headers = injectTraceHeaders(natsHeaders());
      if (options.requestId) headers.set(REQUEST_ID_HEADER, options.requestId);
      const reply = await bus.nc.request(prefixed(bus, command.subject), JSON.stringify(request), {
        timeout: options.timeoutMs ?? 5000,
        headers,
      });
      return reply.json();
    });
  } catch (error) {
    throw new AppError(
      'UPSTREAM_UNAVAILABLE',
      `No answer to ${command.subject}; try again`,
      undefined,
      { 'Retry-After': '1' },
      { cause: error },
    );
  }
  const resultSchema = resultSchemaOf(command);
  assertPayload(resultSchema, raw, `${command.subject} reply`);
  const result = raw as CommandResult<Static<C['reply']>>;
  if (result.ok) return result.data;
  throw new AppError(result.error.code, result.error.message, result.error.details);
}
