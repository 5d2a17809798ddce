// Every operation of an OpenAPI document, typed from the types generated from it (ADR 59):
// `client.request('get', '/api/v2/transactions/{id}', { params: { id } })` takes the path's
// parameters, query and JSON body its operation declares and answers its success body, over the
// same transport as the named methods (token, retries, errors).
import type { ApiAnswer, ApiRequest, TokenSource, Transport } from './transport.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The operation object of `method` on `path` in a generated `paths`. */
export type OperationAt<Paths, P extends keyof Paths, M extends HttpMethod> = Paths[P] extends { [K in M]: infer O } ? O : never;

/** The methods a path of `Paths` serves. */
export type MethodsOf<Paths, P extends keyof Paths> = Extract<keyof Paths[P], HttpMethod>;

type PathParamsOf<O> = O extends { parameters: { path: infer X } } ? X : never;
type QueryOf<O> = O extends { parameters: { query?: infer X } } ? X : never;
type JsonBodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type SuccessStatus = 200 | 201 | 202 | 204;

/** The JSON body of the operation's 2xx answers. */
export type AnswerOf<O> = O extends { responses: infer R }
  ? { [S in Extract<keyof R, SuccessStatus>]: R[S] extends { content: { 'application/json': infer A } } ? A : undefined }[Extract<
      keyof R,
      SuccessStatus
    >]
  : never;

type Optional<K extends string, T> = [T] extends [never] ? { [P in K]?: never } : { [P in K]: T };

/** What one call takes: the path's parameters, the query, the JSON body, and per-call options. */
export type RequestInit<O> = Optional<'params', PathParamsOf<O>> &
  Partial<Optional<'query', QueryOf<O>>> &
  Optional<'body', JsonBodyOf<O>> & {
    /** An Idempotency-Key for a POST (the SDK then retries it like a create). */
    idempotencyKey?: string;
    /** Another bearer token for this call (a customer's own session), or null for none (a public route). */
    accessToken?: string | null;
    headers?: Record<string, string>;
    signal?: AbortSignal;
  };

/** The JSON body `method` on `path` takes (`never` when it takes none). */
export type BodyAt<Paths, P extends keyof Paths, M extends HttpMethod> = JsonBodyOf<OperationAt<Paths, P, M>>;
/** The form (`application/x-www-form-urlencoded`) body `method` on `path` takes. */
export type FormBodyAt<Paths, P extends keyof Paths, M extends HttpMethod> =
  OperationAt<Paths, P, M> extends { requestBody?: { content: { 'application/x-www-form-urlencoded': infer B } } } ? B : never;
/** The query `method` on `path` takes. */
export type QueryAt<Paths, P extends keyof Paths, M extends HttpMethod> = NonNullable<QueryOf<OperationAt<Paths, P, M>>>;
/** The JSON body of the 2xx answers of `method` on `path`. */
export type AnswerAt<Paths, P extends keyof Paths, M extends HttpMethod> = AnswerOf<OperationAt<Paths, P, M>>;
/** The paths of `Paths` that serve `method`. */
export type PathsWith<Paths, M extends HttpMethod> = { [P in keyof Paths]: M extends keyof Paths[P] ? P : never }[keyof Paths] & string;

/** The SDK's own knob beyond `RequestInit`: whether this call may be sent again (the default: reads, PUT, DELETE, a keyed POST). */
type SendInit<O> = RequestInit<O> & { retry?: boolean };

/**
 * Builds the typed sender of one API over its transport and credential: like `request`, but it
 * answers the whole answer (status, headers, body), so the named methods read `Idempotent-Replayed`.
 */
export function operationSender<Paths>(transport: Transport, auth: TokenSource | undefined) {
  return function send<P extends keyof Paths & string, M extends MethodsOf<Paths, P>>(
    method: M,
    path: P,
    init: SendInit<OperationAt<Paths, P, M>>,
  ): Promise<ApiAnswer<AnswerOf<OperationAt<Paths, P, M>>>> {
    const options = init as {
      params?: Record<string, string | number>;
      query?: ApiRequest['query'];
      body?: unknown;
      idempotencyKey?: string;
      accessToken?: string | null;
      headers?: Record<string, string>;
      signal?: AbortSignal;
      retry?: boolean;
    };
    const resolved = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = options.params?.[name];
      if (value === undefined) throw new TypeError(`${path} needs params.${name}`);
      return encodeURIComponent(String(value));
    });
    const upper = (method as string).toUpperCase() as ApiRequest['method'];
    const keyed = upper === 'POST' && options.idempotencyKey !== undefined;
    return transport.send<AnswerOf<OperationAt<Paths, P, M>>>({
      method: upper,
      path: resolved,
      query: options.query,
      ...(options.body !== undefined ? { body: options.body } : upper === 'POST' ? { body: {} } : {}),
      headers: { ...options.headers, ...(keyed ? { 'idempotency-key': options.idempotencyKey as string } : {}) },
      // Reads and idempotent verbs are retried; a POST only with its Idempotency-Key.
      retry: options.retry ?? (upper === 'GET' || upper === 'PUT' || upper === 'DELETE' || keyed),
      auth:
        options.accessToken === null
          ? undefined
          : options.accessToken !== undefined
            ? { token: async () => options.accessToken as string }
            : auth,
      signal: options.signal,
    });
  };
}

/** Builds `request` for one API over its transport and credential. */
export function operationCaller<Paths>(transport: Transport, auth: TokenSource | undefined) {
  const send = operationSender<Paths>(transport, auth);
  return async function request<P extends keyof Paths & string, M extends MethodsOf<Paths, P>>(
    method: M,
    path: P,
    ...init: {} extends RequestInit<OperationAt<Paths, P, M>>
      ? [RequestInit<OperationAt<Paths, P, M>>?]
      : [RequestInit<OperationAt<Paths, P, M>>]
  ): Promise<AnswerOf<OperationAt<Paths, P, M>>> {
    return (await send(method, path, (init[0] ?? {}) as SendInit<OperationAt<Paths, P, M>>)).body;
  };
}

/** The `data` of an envelope answer (`{success, data, meta}`). */
export type DataOf<T> = T extends { data: infer D } ? D : T;
export const dataOf = <T>(answer: Promise<T>): Promise<DataOf<T>> => answer.then((a) => (a as { data: DataOf<T> }).data);
