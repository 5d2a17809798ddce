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
