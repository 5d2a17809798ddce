import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Endpoint } from '@holdfast/contracts';
import type {
  FastifyBaseLogger,
  FastifyContextConfig,
  FastifySchema,
  preParsingAsyncHookHandler,
  preValidationHookHandler,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';
import type { HttpApp } from './app.js';
import { errorResponses } from './envelope.js';

type Part<E, K extends string> = E extends { readonly [P in K]: infer S } ? S : undefined;

/** The Fastify schema an endpoint declares: what types its handler's request and reply. */
type EndpointSchema<E extends Endpoint> = {
  params: Part<E, 'params'>;
  querystring: Part<E, 'querystring'>;
  headers: Part<E, 'headers'>;
  body: Part<E, 'body'>;
  response: E['response'];
};

export type EndpointHandler<E extends Endpoint> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  FastifyContextConfig,
  EndpointSchema<E>,
  TypeBoxTypeProvider,
  FastifyBaseLogger
>;

/** What a route is served with: the `config` its API's surface reads from the catalogue entry, and the module's request hooks. */
export interface EndpointOptions {
  config?: FastifyContextConfig;
  preValidation?: preValidationHookHandler;
  /** Hooks on the raw body before parsing (a signature checked over the exact bytes, `captureRawBody`). */
  preParsing?: preParsingAsyncHookHandler[];
  bodyLimit?: number;
}

/**
 * `preValidation` of an endpoint whose whole body is optional (every field is): a request without
 * a body is validated (and handled) as `{}`.
 */
export async function emptyBodyAsObject(request: { body: unknown }): Promise<void> {
  request.body ??= {};
}

/** The Fastify schema of an endpoint: its documentation, its request schemas, its answers and error statuses. */
export function endpointSchema(endpoint: Endpoint): FastifySchema {
  const { method: _method, path: _path, errors = [], response, ...schema } = endpoint;
  return { ...schema, response: { ...response, ...errorResponses(...errors) } } as FastifySchema;
}

/**
 * Serves one endpoint of an API's catalogue: the route's method, path and schema come from the
 * catalogue, so the service cannot drift from its contract. Modules do not call it: they serve
 * their entries with `serveRoutes` (routes.ts), which gives each its config and handler.
 */
export function serveEndpoint<const E extends Endpoint>(
  app: HttpApp,
  endpoint: E,
  options: EndpointOptions,
  handler: EndpointHandler<E>,
): void {
  app.route({
    method: endpoint.method,
    url: endpoint.path,
    schema: endpointSchema(endpoint),
    ...options,
    handler: handler as RouteHandlerMethod,
  });
}
