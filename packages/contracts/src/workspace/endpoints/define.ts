import { defineEndpoint, type Endpoint } from '../../common/endpoint.js';

/*
 * The Workspace API, one entry per endpoint (method, path, documentation, schemas, answers), in
 * two files: administration.ts (identity, users, workspaces, sessions, settings, audit, OAuth
 * clients, sandbox credentials, avatars, transaction views) and customers.ts (customers, wallets,
 * integrations, webhooks, notifications). Paths of the versioned endpoints are under `/api/v1`
 * (their deprecated copies under `/api`); the host-root ones at the root. The service serves each
 * with its handler and access options (`serveEndpoint` of @holdfast/http-kit), so a route cannot
 * drift from this catalogue; the OpenAPI description is built from it.
 */

/** OpenAPI security of routes that need a Workspace access token. */
export const BEARER = [{ bearer: [] }];
/** OpenAPI security of the customer self-service routes (a customer access token). */
export const CUSTOMER_BEARER = [{ customerBearer: [] }];
/** OpenAPI security of service-to-service routes (`X-Internal-API-Key`). */
export const INTERNAL_KEY = [{ internalApiKey: [] }];
/** OpenAPI security of the workspace-key routes (`X-API-Key`: a Payments API key of the workspace). */
export const WORKSPACE_KEY = [{ workspaceKey: [] }];

/** A Workspace API endpoint: it needs a Workspace access token unless it says otherwise. */
export const endpoint = <const E extends Omit<Endpoint, 'security'> & Partial<Pick<Endpoint, 'security'>>>(e: E) =>
  defineEndpoint({ security: BEARER, ...e });

/** A Workspace API endpoint anyone may call: no OpenAPI security. */
export const publicEndpoint = <const E extends Omit<Endpoint, 'security'>>(e: E) => defineEndpoint(e);
