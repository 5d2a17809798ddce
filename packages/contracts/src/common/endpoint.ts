import type { TSchema } from '@sinclair/typebox';

/** A request body documented by media type (a multipart upload the handler reads itself). */
export interface ContentBody {
  content: Record<string, { schema: TSchema }>;
}

/** An answer documented by media type: a file the handler sends itself (a CSV export, an image). */
export interface ContentResponse {
  description: string;
  content: Record<string, { schema: TSchema | { type: 'string'; format?: string } }>;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One HTTP operation as its callers see it: method, path, documentation, the schemas of what it
 * takes and the answers it gives. Each API lists its endpoints in one catalogue
 * (`workspace/endpoints/`, `payments/endpoints/`, a file per resource): a reader finds the whole
 * surface there, the OpenAPI description is built from it, and the service adds only the handler
 * (`serveRoutes` of @holdfast/http-kit). Docs: docs/engineering.md "Routes".
 */
export interface Endpoint {
  method: HttpMethod;
  /** Fastify style (`/workspaces/:id`); OpenAPI shows `{id}`. */
  path: string;
  operationId: string;
  tags: readonly string[];
  summary: string;
  description?: string;
  /** OpenAPI security requirements (the scheme names the API's description declares). */
  security?: readonly Record<string, readonly string[]>[];
  deprecated?: boolean;
  params?: TSchema;
  querystring?: TSchema;
  headers?: TSchema;
  body?: TSchema | ContentBody;
  /** The answers with a body of their own, by status (success answers, and any special one). */
  response: Readonly<Record<number, TSchema | ContentResponse>>;
  /** Statuses answered with the error envelope, beyond those every route may answer. */
  errors?: readonly number[];
}

/** Declares an endpoint, keeping its literal types (the handler's request and reply are typed from them). */
export const defineEndpoint = <const E extends Endpoint>(endpoint: E): E => endpoint;

/** An endpoint's method and path as the first line of its request says them: `'GET /users/:id'`. */
export type RequestLine = `${HttpMethod} /${string}`;

/** The `method` and `path` of a request line. */
export type RequestOf<L extends RequestLine> = L extends `${infer M extends HttpMethod} ${infer P}` ? { method: M; path: P } : never;

/** Splits a request line into the `method` and `path` of an entry. */
export const requestOf = <const L extends RequestLine>(line: L): RequestOf<L> => {
  const space = line.indexOf(' ');
  return { method: line.slice(0, space), path: line.slice(space + 1) } as RequestOf<L>;
};

/** An entry made by a resource's constructor: its request line's method and path, its own fields over the shared ones. */
export type ResourceEntry<L extends RequestLine, Shared, Entry> = RequestOf<L> & Omit<Shared, keyof Entry> & Entry;
