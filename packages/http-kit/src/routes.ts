import type { Endpoint, PaginationMeta } from '@holdfast/contracts';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { HttpApp } from './app.js';
import { type EndpointHandler, type EndpointOptions, serveEndpoint } from './endpoint.js';
import { envelope } from './envelope.js';

/*
 * One way to serve an API's routes (docs/engineering.md "Routes", ADR 64): the catalogue entry in
 * @holdfast/contracts says what a caller sees and who may call (access, roles, tier, audit action,
 * deprecated twins); the module gives only the handler and its own request hooks, as
 * `serveRoutes(app, surface, [route(api.x, handler), ...])`; the API's surface turns each entry
 * into the operations served (their `config`, their twins) and says whether answers are wrapped
 * in the `{success, data, meta}` envelope.
 */

const PAGED = Symbol('paged answer');

/** A page of an enveloped answer: the kit answers `data` with `meta.pagination`. */
export interface Paged<T> {
  readonly [PAGED]: true;
  readonly data: T;
  readonly pagination: PaginationMeta;
}

/** `return paged(list, pagination)` from the handler of an enveloped list. */
export const paged = <T>(data: T, pagination: PaginationMeta): Paged<T> => ({ [PAGED]: true, data, pagination });

type SuccessStatus = 200 | 201 | 202;
type SuccessOf<E extends Endpoint> = E['response'][Extract<keyof E['response'], SuccessStatus>];
/** What the handler of an enveloped endpoint returns: the envelope's `data`. */
type DataOf<S> =
  S extends TObject<infer P> ? (P extends { success: TSchema; data: infer D extends TSchema; meta: TSchema } ? Static<D> : never) : never;
type Answer<E extends Endpoint> = DataOf<SuccessOf<E>>;

/**
 * A route's handler: typed from the entry's schemas. On an enveloped surface it returns the
 * answer's `data` (or `paged(data, pagination)`), answered with the entry's success status; it
 * sends the reply itself for anything else (a file, a 204, a bare answer).
 */
export type RouteHandler<E extends Endpoint> = (
  ...args: Parameters<EndpointHandler<E>>
) => ReturnType<EndpointHandler<E>> | Promise<Answer<E> | Paged<Answer<E>>>;

/** A route of a module: an entry of the API's catalogue, its handler and the hooks the module adds. */
export interface Route<E extends Endpoint = Endpoint> {
  endpoint: E;
  handler: RouteHandler<Endpoint>;
  /** Request hooks and limits of the module (`preValidation`, `preParsing`, `bodyLimit`); never who may call. */
  options: Omit<EndpointOptions, 'config'>;
}

/** A route of a module, its handler typed from the entry's schemas. */
export const route = <const E extends Endpoint>(
  endpoint: E,
  handler: RouteHandler<E>,
  options: Omit<EndpointOptions, 'config'> = {},
): Route<E> => ({ endpoint, handler: handler as unknown as RouteHandler<Endpoint>, options });

/** One operation an entry is served as: the endpoint as Fastify registers it and the `config` its entry asks for. */
export interface ServedOperation {
  endpoint: Endpoint;
  config: FastifyContextConfig;
  /** Operations are served by pass, then in the module's order (payments serves every v1 path first). */
  pass?: number;
}

/** How an API serves the entries of its catalogue. */
export interface RouteSurface<E extends Endpoint> {
  /** The operations an entry is served as: itself and its deprecated twins, each with its config. */
  operations(entry: E): readonly ServedOperation[];
  /** Handlers' answers are wrapped in the `{success, data, meta}` envelope where the entry's success answer is one. */
  envelope?: boolean;
}

/** The success status of an entry when it has exactly one (a handler that returns data is answered with it). */
function successStatusOf(endpoint: Endpoint): number | undefined {
  const statuses = Object.keys(endpoint.response)
    .map(Number)
    .filter((s) => s >= 200 && s < 300);
  return statuses.length === 1 ? statuses[0] : undefined;
}

/** Whether an entry's success answer is the envelope (`{success, data, meta}`). */
function isEnveloped(endpoint: Endpoint): boolean {
  const status = successStatusOf(endpoint) ?? 200;
  const properties = (endpoint.response[status] as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties !== undefined && 'success' in properties && 'data' in properties && 'meta' in properties;
}

const isPaged = (value: unknown): value is Paged<unknown> => typeof value === 'object' && value !== null && PAGED in value;

/** The handler Fastify runs: the module's, its returned data wrapped in the envelope with the entry's status. */
function enveloping(endpoint: Endpoint, handler: RouteHandler<Endpoint>): RouteHandlerMethod {
  const status = successStatusOf(endpoint);
  return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
    const out: unknown = await (handler as unknown as RouteHandlerMethod).call(this as never, request, reply);
    if (out === reply || out === undefined || reply.sent) return out;
    if (status !== undefined && reply.statusCode === 200) reply.code(status);
    return isPaged(out) ? envelope(request, out.data, out.pagination) : envelope(request, out);
  };
}

/**
 * Serves a module's routes: each entry as the operations its API's surface makes of it (with the
 * config its catalogue entry gives), by pass and then in the module's order (the order of the
 * OpenAPI document).
 */
export function serveRoutes<E extends Endpoint>(app: HttpApp, surface: RouteSurface<E>, routes: readonly Route<NoInfer<E>>[]): void {
  const served = routes.flatMap((r, index) => surface.operations(r.endpoint).map((operation) => ({ r, operation, index })));
  served.sort((a, b) => (a.operation.pass ?? 0) - (b.operation.pass ?? 0) || a.index - b.index);
  for (const { r, operation } of served) {
    const wrap = surface.envelope === true && isEnveloped(operation.endpoint);
    const handler = wrap ? enveloping(operation.endpoint, r.handler) : r.handler;
    serveEndpoint(app, operation.endpoint, { ...r.options, config: operation.config }, handler as EndpointHandler<Endpoint>);
  }
}
