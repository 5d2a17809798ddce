/**
 * The forms `config.access` takes, one entry per API: each service's authentication layer adds its
 * own (`declare module '@holdfast/http-kit' { interface RouteAccessForms { payments: RouteAuth } }`),
 * so every route of every API says what it asks of its caller under one option name. A program
 * that loads two services (the workspace tests start payments) sees the union; each layer refuses
 * the other's form when a route is added (see `routeAccessOf`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by each service's declaration merging.
export interface RouteAccessForms {}

export type RouteAccess = RouteAccessForms[keyof RouteAccessForms];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route asks of its caller: the service's authentication layer reads it (docs/engineering.md). */
    access?: RouteAccess;
  }
}
