import { randomFillSync } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import AjvCompiler, { type ValidatorFactory } from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError, ErrorEnvelope, MAX_FIELD_ERRORS } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import type { Registry } from 'prom-client';
import { type DeprecatedSurface, registerDeprecations, sunsetError } from './deprecation.js';
import { ErrorResponse, errorEnvelope } from './envelope.js';
import { toErrorObject, validationError } from './errors.js';
import { type ReadinessCheck, registerHealth } from './health.js';
import { allStorable, boundRequestSchema, freeFormKeyword, unstorableFields } from './input-rules.js';
import { registerJsonBody } from './json-body.js';
import { registerMetrics } from './metrics.js';
import { openApiPath, type RateLimitSettings, registerRateLimits, TIER_TITLES } from './rate-limit.js';
import { nullableAsTypeList } from './serialization.js';
import { registerRequestTracing } from './tracing.js';

export type HttpApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyInstance {
    /** Prometheus registry of this app; features add their own metrics to it. */
    metrics: Registry;
  }
}

export interface OpenApiInfo {
  /** Serve `/docs` and `/openapi.json` (API_DOCS); false: the description is built, not served. Default true. */
  serve?: boolean;
  title: string;
  version: string;
  description: string;
  tags?: { name: string; description: string }[];
  securitySchemes?: Record<string, unknown>;
}

/**
 * Who answers for the API and under which terms, in every document (Spectral `info-contact`,
 * Redocly `info-license`); the server is relative: the host that serves the document.
 */
const OPENAPI_CONTACT = { name: 'Holdfast API support (quote meta.requestId)' };
const OPENAPI_LICENSE = { name: 'Proprietary', identifier: 'LicenseRef-Holdfast-Proprietary' };
const OPENAPI_SERVERS = [{ url: '/', description: 'The host that serves this document' }];

export interface HttpAppOptions {
  service: string;
  logger: Logger;
  /** Largest accepted request body, bytes. */
  bodyLimit?: number;
  /** The `X-API-Version` value for a request URL (`v1`, `v2`...). */
  apiVersion: (url: string) => string;
  /** When given, the app serves `/openapi.json` and `/docs`. */
  openapi?: OpenApiInfo;
  readiness?: ReadinessCheck[];
  deprecations?: DeprecatedSurface[];
  /** Per-credential limits by tier, counted in a store shared by instances; absent: no limits. */
  rateLimit?: RateLimitSettings;
  /** Hops (a count) or proxy addresses/CIDRs allowed to set X-Forwarded-For (TRUST_PROXY); absent: none. */
  trustProxy?: false | number | string[];
  /** `Strict-Transport-Security` on every answer (outside local: the APIs are reached over TLS). */
  security?: { hsts: boolean };
  /** Serve `/metrics` on this internal host and port only, not on the API's (METRICS_PORT); `unserved`: nowhere. */
  metrics?: { host: string; port: number } | 'unserved';
}

/**
 * Headers on every answer (docs/security.md): no content sniffing, never framed, no referrer, and
 * outside local HSTS. A route that sets its own (the checkout page's CSP) keeps it.
 */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const;
const FRAME_ANCESTORS_CSP = "frame-ancestors 'none'";
export const HSTS_VALUE = 'max-age=31536000; includeSubDomains';

interface OpenApiDocument {
  paths?: Record<string, Record<string, { description?: string; 'x-rate-limit-tier'?: string }>>;
  components?: { schemas?: Record<string, unknown> };
}

/** Drops component schemas nothing refers to (a nested `$id` becomes a component of its own). */
function dropUnusedSchemas(document: OpenApiDocument): void {
  const schemas = document.components?.schemas;
  if (!schemas) return;
  const refsOf = (value: unknown) =>
    [...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => decodeURIComponent(m[1]!));
  const used = new Set<string>();
  const pending = refsOf({ ...document, components: { ...document.components, schemas: {} } });
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (used.has(name)) continue;
    used.add(name);
    pending.push(...refsOf(schemas[name] ?? null));
  }
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

/**
 * Name every bad field at once; refuse unknown body fields instead of silently dropping them.
 * Query strings, path parameters and headers arrive as text, so they are converted to the declared
 * types (`?page=2` is the integer 2); a JSON body is never converted: `{"amount": "12"}` where a
 * number is declared, or `{"token": 42}` where a string is, is a VALIDATION_ERROR.
 */
const VALIDATION_OPTIONS = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: true,
  // Free-form body values bounded in depth and size (input-rules.ts, FREE_FORM_MAX_DEPTH).
  keywords: [freeFormKeyword],
};
const compilerPool = AjvCompiler();
// Fastify calls a validator compiler with the route ({schema, method, url, httpPart}); the
// library's types describe it as Ajv's compile, hence the casts.
type RouteCompiler = (route: { schema: unknown; httpPart?: string }) => unknown;
const buildValidators = ((externalSchemas: Record<string, never>) => {
  const body = compilerPool(externalSchemas, { customOptions: { ...VALIDATION_OPTIONS, coerceTypes: false } }) as unknown as RouteCompiler;
  const text = compilerPool(externalSchemas, {
    customOptions: { ...VALIDATION_OPTIONS, coerceTypes: 'array' },
  }) as unknown as RouteCompiler;
  return (route: { schema: unknown; httpPart?: string }) =>
    compiledOnFirstUse(() => (route.httpPart === 'body' ? body : text)(route) as (data: unknown) => unknown);
}) as unknown as ValidatorFactory;

const serializerPool = SerializerSelector();
const buildSerializers: SerializerSelector.SerializerFactory = (externalSchemas, options) => {
  const compile = serializerPool(nullableAsTypeList(externalSchemas) as typeof externalSchemas, options);
  return (route) => compiledOnFirstUse(() => compile({ ...route, schema: nullableAsTypeList(route.schema) as typeof route.schema }));
};

/**
 * A route's validator or response serializer, compiled when it is first called instead of at start:
 * compiling every schema of every route (hundreds in workspace-service) was most of a process's
 * start-up time and held memory for routes a process may never answer (docs/adr/0029-start-up-and-memory.md).
 * Fastify reads a failed validator's `errors` (Ajv's convention), so the wrapper copies them after
 * each call of a validator. Copied rather than read through a getter: a getter on each of the
 * thousands of wrappers (one per route and status for the serializers) held about 1 MiB of
 * workspace-service's idle heap, for routes never called.
 */
function compiledOnFirstUse<F extends (data: never) => unknown>(compile: () => F): F {
  let compiled: (F & { errors?: unknown }) | undefined;
  const run = ((data: never) => {
    compiled ??= compile();
    const result = compiled(data);
    if ('errors' in compiled) (run as { errors?: unknown }).errors = compiled.errors;
    return result;
  }) as F;
  return run;
}

/** A hop count becomes proxy-addr's "trust the first n hops" (Fastify's types take no number). */
function trustProxyOption(trust: HttpAppOptions['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust ?? false;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * Every route answers these even when it declares nothing else: bad input, over the limit, our bug,
 * a dependency down (PostgreSQL restarting: retry).
 */
const DEFAULT_ERROR_STATUSES = [400, 429, 500, 503] as const;
/** And a route with a path parameter: an id that is not there (or not yours), an id over the length limit. */
const PATH_PARAMETER_STATUSES = [404, 414] as const;
/** And a route that takes a body: over the body limit, not a media type it takes. */
const BODY_STATUSES = [413, 415] as const;
/** Methods whose requests Fastify reads a body of (whether the route declares one or not). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Longest path parameter the router takes; a longer one is 414 URI_TOO_LONG. */
const MAX_PARAM_LENGTH = 100;
const REQUEST_PARTS = ['body', 'querystring', 'params', 'headers'] as const;

/**
 * Errors Node's HTTP parser raises before there is a request (a malformed request line, headers
 * over the size limit, a request that never finishes): answered on the socket in the envelope.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ([431, 'HEADERS_TOO_LARGE', 'Request headers are larger than the limit (16 KiB)'] as const)
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ([408, 'REQUEST_TIMEOUT', 'The request was not received in time'] as const)
        : ([400, 'VALIDATION_ERROR', 'Malformed HTTP request'] as const);
  const requestId = newRequestId();
  const body = JSON.stringify(errorEnvelope({ code, message, statusCode: status }, requestId));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Random bytes for request ids, drawn from the system 4 KiB at a time (256 ids). */
const idBytes = Buffer.alloc(4096);
let idOffset = idBytes.length;

/** `req_` and 32 random hex digits (128 bits), as a dashless UUID was: a third of its cost. */
export function newRequestId(): string {
  if (idOffset === idBytes.length) {
    randomFillSync(idBytes);
    idOffset = 0;
  }
  idOffset += 16;
  return `req_${idBytes.toString('hex', idOffset - 16, idOffset)}`;
}

/** The one error answer: every thrown value leaves as the envelope; a 5xx is logged with its cause. */
function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const body = toErrorObject(error);
  if (body.statusCode >= 500) request.log.error({ err: error }, 'request failed');
  else request.log.info({ code: body.code, message: body.message }, 'request refused');
  if (error instanceof AppError && error.headers) reply.headers(error.headers);
  return reply.code(body.statusCode).send(errorEnvelope(body, request.id));
}

/**
 * A Fastify app with Holdfast's behaviour. Register routes on it, then `listen`. Every error of
 * every route, of Fastify itself and of unknown URLs leaves as the error envelope.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // One line per request, written by our onResponse hook, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'reqId' }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
    },
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    trustProxy: trustProxyOption(options.trustProxy),
    // Our own 503 while closing (the onRequest hook below), in the envelope: Fastify's fast path
    // answered its own JSON to a request pipelined behind a streaming answer during a drain.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Errors the router raises before a route is found (bad percent-encoding, a path parameter
    // over the limit) go through the same error answer as every other error.
    frameworkErrors: (error, request, reply) => {
      reply.header('X-Request-Id', request.id);
      reply.header('X-API-Version', options.apiVersion(request.url));
      // Before a route is found no hook runs: the security headers are set here.
      reply.headers(SECURITY_HEADERS);
      reply.header('content-security-policy', FRAME_ANCESTORS_CSP);
      if (options.security?.hsts) reply.header('strict-transport-security', HSTS_VALUE);
      return sendError(error, request, reply);
    },
    clientErrorHandler: answerClientError,
    schemaController: { compilersFactory: { buildValidator: buildValidators, buildSerializer: buildSerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addSchema(ErrorEnvelope);
  // Every number's source text kept, so amounts are never rounded silently (json-body.ts).
  registerJsonBody(app);
  // Before the other hooks, so that they, the handler and the request's log lines run in its span.
  registerRequestTracing(app as unknown as FastifyInstance);

  // Tier of each documented operation, written into the OpenAPI description (`x-rate-limit-tier`).
  const tiers = new Map<string, string>();
  app.addHook('onRoute', (route) => {
    if (!route.schema || route.schema.hide) return;
    if (options.rateLimit && !route.config?.unlimited) {
      const tier = route.config?.tier ?? 'standard';
      for (const method of [route.method].flat()) tiers.set(`${method.toLowerCase()} ${openApiPath(route.url)}`, tier);
    }
    const response = (route.schema.response ?? {}) as Record<string, unknown>;
    const statuses: number[] = [...DEFAULT_ERROR_STATUSES];
    if (route.url.includes(':')) statuses.push(...PATH_PARAMETER_STATUSES);
    // Every method that may carry a body meets one, declared or not (the fuzz sends bodies to
    // routes that take none): over the limit, or a media type it does not parse.
    const carriesBody = [route.method].flat().some((m) => BODY_METHODS.has(m));
    if (route.schema.body || (route.schema as { consumes?: unknown }).consumes || carriesBody) statuses.push(...BODY_STATUSES);
    for (const status of statuses) response[status] ??= ErrorResponse;
    route.schema.response = response;
    const schema = route.schema as Record<string, unknown>;
    for (const part of REQUEST_PARTS) if (schema[part]) schema[part] = boundRequestSchema(schema[part], part);
  });

  // What PostgreSQL cannot store (NUL, unpaired surrogates, Infinity) is refused after the schema
  // checks and before any handler, naming each field: body, query string and path parameters.
  // Hooks that run on every request take a callback instead of returning a promise: each async
  // hook cost a promise and a turn of the microtask queue per request (docs/perf/request-pipeline-before.md).
  app.addHook('preHandler', (request, _reply, done) => {
    if (allStorable(request.params) && allStorable(request.query) && allStorable(request.body)) {
      done();
      return;
    }
    const errors = [
      ...unstorableFields(request.params, MAX_FIELD_ERRORS),
      ...unstorableFields(request.query, MAX_FIELD_ERRORS),
      ...unstorableFields(request.body, MAX_FIELD_ERRORS),
    ];
    done(validationError(errors));
  });

  const hsts = options.security?.hsts === true;
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    reply.header('X-API-Version', options.apiVersion(request.url));
    reply.headers(SECURITY_HEADERS);
    if (hsts) reply.header('strict-transport-security', HSTS_VALUE);
    if (closing) {
      done(
        new AppError('SERVICE_UNAVAILABLE', 'This instance is shutting down; retry the request', undefined, {
          'retry-after': '1',
          connection: 'close',
        }),
      );
      return;
    }
    done();
  });

  // Responses that finish while the server closes also close their keep-alive connection;
  // otherwise `close()` would wait for the client's idle timeout.
  let closing = false;
  // A connection that has sent no byte yet (a client or load balancer connecting ahead of its
  // request) is neither idle nor in a request for Node: `close()` waited for its headers timeout
  // (60 s), past the shutdown's, so the process exited without closing its workers. The close
  // ends those, and any connection made while it runs.
  const connections = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    // Set last, so a route's own policy (the checkout page's) stays whole.
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', FRAME_ANCESTORS_CSP);
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const level = reply.statusCode >= 500 ? 'error' : 'info';
    // The line's fields are not even gathered when its level is off (LOG_LEVEL=warn).
    if (!options.logger.isLevelEnabled(level)) {
      done();
      return;
    }
    request.log[level](
      {
        method: request.method,
        path: request.url.split('?')[0],
        route: request.routeOptions.url,
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request completed',
    );
    done();
  });

  app.setErrorHandler(sendError);

  if (options.rateLimit) await registerRateLimits(app as unknown as FastifyInstance, options.rateLimit);

  if (options.deprecations?.length) registerDeprecations(app, options.deprecations);

  app.setNotFoundHandler(options.rateLimit ? { preHandler: app.rateLimit() } : {}, async (request, reply) => {
    const sunset = sunsetError(options.deprecations ?? [], request);
    if (sunset) throw sunset;
    const body = {
      code: 'NOT_FOUND' as const,
      message: `Route ${request.method} ${request.url.split('?')[0]} does not exist`,
      statusCode: 404,
    };
    return reply.code(404).send(errorEnvelope(body, request.id));
  });

  if (options.openapi) {
    const info = options.openapi;
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: info.title,
          version: info.version,
          description: info.description,
          contact: OPENAPI_CONTACT,
          license: OPENAPI_LICENSE as never,
        },
        servers: OPENAPI_SERVERS,
        tags: [{ name: 'health', description: 'Liveness and readiness, for orchestrators and load balancers' }, ...(info.tags ?? [])],
        components: { securitySchemes: (info.securitySchemes ?? {}) as never },
      },
      // Shared schemas keep their $id as component name (`ErrorEnvelope`, not `def-0`).
      refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
      transformObject: (documentObject) => {
        const document = (documentObject as { openapiObject: OpenApiDocument }).openapiObject;
        const limits = options.rateLimit?.perMinute;
        for (const [path, operations] of Object.entries(document.paths ?? {})) {
          for (const [method, operation] of Object.entries(operations)) {
            const tier = tiers.get(`${method} ${path}`) as keyof typeof TIER_TITLES | undefined;
            if (!tier || !limits) continue;
            operation['x-rate-limit-tier'] = tier;
            const note = `Rate limit: ${TIER_TITLES[tier]} tier, ${limits[tier]} requests per minute per credential.`;
            operation.description = operation.description ? `${operation.description}\n\n${note}` : note;
          }
        }
        dropUnusedSchemas(document);
        return document;
      },
    });
    if (info.serve !== false) {
      await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
      app.get('/openapi.json', { schema: { hide: true }, config: { unlimited: true } }, async () => app.swagger());
    }
  }

  app.decorate('metrics', registerMetrics(app, options.service, options.metrics));
  registerHealth(app, options.readiness ?? []);
  return app;
}
