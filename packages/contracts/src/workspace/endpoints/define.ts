import { defineEndpoint, type Endpoint } from '../../common/endpoint.js';

/*
 * The Workspace API, one entry per endpoint (method, path, documentation, schemas, answers), one
 * file per resource, mirroring the service's modules (services/workspace-service/src/modules/
 * <resource>/routes.ts serves the entries of <resource>.ts; storage.ts holds the avatar files).
 * The versioned endpoints are served under `/api/v1` (their deprecated copies under `/api`); the
 * host-root ones at the root. The service serves each with its handler (`serveEndpoint` of
 * @holdfast/http-kit), so a route cannot drift from this catalogue; the OpenAPI description is
 * built from it.
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

/** The customer self-service routes (customers, wallets): the token they need. */
export const CUSTOMER_TOKEN =
  'Needs the customer access token of this workspace (`Authorization: Bearer <accessToken>` from register, login or refresh): a ' +
  "token of another workspace's customer is 403, a user's token 401.";
