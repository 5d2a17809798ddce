import {
  CreateCustomerBody,
  CreateGlobalCustomerBody,
  CustomerListQuery,
  CustomerLoginBody,
  CustomerMe,
  CustomerRecord,
  CustomerRefreshBody,
  CustomerRegisterBody,
  CustomerSession,
  IdParams,
  MessageResult,
  UpdateCustomerBody,
  WorkspaceCustomerListQuery,
  WorkspaceRefParams,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { BEARER, CUSTOMER_BEARER, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { ADMIN_ROLES } from '../access/policy.js';
import { CUSTOMER_AUDIT } from './records.js';
import type { CustomersService } from './service.js';

const ADMIN_TAG = 'customers';
/** The OpenAPI tag of the customer self-service routes (also the wallet ones, in wallets/routes/customer.ts). */
export const SELF_TAG = 'customer self-service';
const ADMINS = 'ADMINs of the workspace and SUPER_ADMINs; other roles get 403.';
const SEARCH = '`search` matches part of the e-mail, first, last or full name; `status` filters. Newest first.';
export const CUSTOMER_TOKEN =
  'Needs the customer access token of this workspace (`Authorization: Bearer <accessToken>` from register, login or refresh): a ' +
  "token of another workspace's customer is 403, a user's token 401.";

/** `/workspaces/{id}/customers`: a workspace's customers, for its administrators. */
export function workspaceCustomerRoutes(customers: CustomersService) {
  return async (app: HttpApp) => {
    app.get(
      '/workspaces/:id/customers',
      {
        config: { tier: 'standard', roles: ADMIN_ROLES },
        schema: {
          tags: [ADMIN_TAG],
          summary: "List a workspace's customers",
          description: `${SEARCH} ${ADMINS}`,
          operationId: 'listWorkspaceCustomers',
          security: BEARER,
          params: IdParams,
          querystring: WorkspaceCustomerListQuery,
          response: { 200: ok(Type.Array(CustomerRecord)), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const page = await customers.listForWorkspace(requireActor(request.caller), request.params.id, request.query);
        return envelope(request, page.customers, page.pagination);
      },
    );

    app.post(
      '/workspaces/:id/customers',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: CUSTOMER_AUDIT.create },
        schema: {
          tags: [ADMIN_TAG],
          summary: 'Create a customer of the workspace',
          description:
            'The e-mail address is unique within the workspace (409). A customer created here has no password: it cannot log in ' +
            '(self-service accounts are made by POST .../customers/auth/register). `status` defaults to `active`. ' +
            ADMINS,
          operationId: 'createWorkspaceCustomer',
          security: BEARER,
          params: IdParams,
          body: CreateCustomerBody,
          response: { 201: ok(CustomerRecord), ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await customers.createForWorkspace(request.caller, request.params.id, request.body))),
    );
  };
}

/** `/customers[/{id}]`: customers across workspaces (SUPER_ADMIN) or of the caller's workspace (ADMIN). */
export function globalCustomerRoutes(customers: CustomersService) {
  return async (app: HttpApp) => {
    app.get(
      '/customers',
      {
        config: { tier: 'standard', roles: ADMIN_ROLES },
        schema: {
          tags: [ADMIN_TAG],
          summary: 'List customers',
          description:
            `A SUPER_ADMIN lists every workspace's customers (or one's, with \`workspaceId\`); an ADMIN its workspace's (another ` +
            `\`workspaceId\` is 403). ${SEARCH}`,
          operationId: 'listCustomers',
          security: BEARER,
          querystring: CustomerListQuery,
          response: { 200: ok(Type.Array(CustomerRecord)), ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const page = await customers.list(requireActor(request.caller), request.query);
        return envelope(request, page.customers, page.pagination);
      },
    );

    app.post(
      '/customers',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: CUSTOMER_AUDIT.create },
        schema: {
          tags: [ADMIN_TAG],
          summary: 'Create a customer',
          description:
            'As POST /workspaces/{id}/customers, with the workspace in the body: a workspace that does not exist is 400, another ' +
            "tenant's 403; a taken e-mail or externalId in the workspace 409.",
          operationId: 'createCustomer',
          security: BEARER,
          body: CreateGlobalCustomerBody,
          response: { 201: ok(CustomerRecord), ...errorResponses(401, 403, 409) },
        },
      },
      async (request, reply) => reply.code(201).send(envelope(request, await customers.create(request.caller, request.body))),
    );

    app.get(
      '/customers/:id',
      {
        config: { tier: 'standard', roles: ADMIN_ROLES },
        schema: {
          tags: [ADMIN_TAG],
          summary: 'Get a customer',
          description: `With its wallet (\`walletAddress\`, \`walletLinkedAt\`) when it linked or was given one. Another tenant's customer is 404. ${ADMINS}`,
          operationId: 'getCustomer',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(CustomerRecord), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await customers.get(requireActor(request.caller), request.params.id)),
    );

    app.put(
      '/customers/:id',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: CUSTOMER_AUDIT.update },
        schema: {
          tags: [ADMIN_TAG],
          summary: 'Update a customer',
          description:
            'Any field of the creation except the workspace; `null` clears an optional one. A customer set to `inactive`, `suspended` ' +
            `or \`pending\` is signed out at once (sessions revoked, access tokens refused). 409 for a taken e-mail or externalId. ${ADMINS}`,
          operationId: 'updateCustomer',
          security: BEARER,
          params: IdParams,
          body: UpdateCustomerBody,
          response: { 200: ok(CustomerRecord), ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request) => envelope(request, await customers.update(request.caller, request.params.id, request.body)),
    );

    app.delete(
      '/customers/:id',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: CUSTOMER_AUDIT.delete },
        schema: {
          tags: [ADMIN_TAG],
          summary: 'Delete a customer (irreversible)',
          description:
            'Deletes the customer with its sessions, its wallet link and pending wallet-link nonces (a CUSTODY_A wallet stays at the ' +
            `vendor). The audit entries are kept. Answers \`{message}\`. ${ADMINS}`,
          operationId: 'deleteCustomer',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(MessageResult), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await customers.remove(request.caller, request.params.id)),
    );
  };
}

/**
 * `/workspaces/{id}/customers/auth/*`: customers registering and signing in (public), and acting
 * with their customer JWT (me, wallet linking, wallet balances). `{id}` is the workspace id or slug.
 */
export function customerAuthRoutes(customers: CustomersService) {
  return async (app: HttpApp) => {
    app.post(
      '/workspaces/:id/customers/auth/register',
      {
        config: { tier: 'public', access: 'public', audit: CUSTOMER_AUDIT.register },
        schema: {
          tags: [SELF_TAG],
          summary: 'Register as a customer of the workspace',
          description:
            'Creates the customer with the same password policy as users (12 to 128 characters with an upper-case letter, a lower-case ' +
            'letter, a number and a special character) and signs it in: the answer is the customer session. 409 when the e-mail ' +
            'address is taken in the workspace; 404 for an unknown workspace; 403 when the workspace is inactive or suspended.',
          operationId: 'registerCustomer',
          params: WorkspaceRefParams,
          body: CustomerRegisterBody,
          response: { 201: ok(CustomerSession), ...errorResponses(403, 404, 409) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await customers.register(request.caller, request.params.id, request.body))),
    );

    app.post(
      '/workspaces/:id/customers/auth/login',
      {
        config: { tier: 'public', access: 'public', audit: CUSTOMER_AUDIT.login },
        schema: {
          tags: [SELF_TAG],
          summary: 'Log in as a customer',
          description:
            'The e-mail is compared in lower case. Answers an access token (a customer JWT, 3600 s, valid only on the customer routes of ' +
            'this workspace) and a refresh token (single use). 401 `INVALID_CREDENTIALS` for a wrong e-mail or password (also for a ' +
            'customer an administrator created, which has no password); 401 for an account that is not active; 429 with a doubling back-off ' +
            'after 5 failures within 15 minutes for this account from this client address (other addresses are not affected).',
          operationId: 'loginCustomer',
          params: WorkspaceRefParams,
          body: CustomerLoginBody,
          response: { 200: ok(CustomerSession), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await customers.login(request.caller, request.params.id, request.body)),
    );

    app.post(
      '/workspaces/:id/customers/auth/refresh',
      {
        config: { tier: 'public', access: 'public', audit: CUSTOMER_AUDIT.refresh },
        schema: {
          tags: [SELF_TAG],
          summary: 'Exchange a customer refresh token for new tokens',
          description:
            'The refresh token is single use: the answer holds a new one. Presenting an already used one revokes the whole session and ' +
            "answers 401; so do an expired one (`TOKEN_EXPIRED`), an unknown one and another workspace's.",
          operationId: 'refreshCustomer',
          params: WorkspaceRefParams,
          body: CustomerRefreshBody,
          response: { 200: ok(CustomerSession), ...errorResponses(401, 404) },
        },
      },
      async (request) => envelope(request, await customers.refresh(request.caller, request.params.id, request.body)),
    );

    app.post(
      '/workspaces/:id/customers/auth/logout',
      {
        config: { tier: 'public', access: 'public', audit: CUSTOMER_AUDIT.logout },
        schema: {
          tags: [SELF_TAG],
          summary: 'Log out a customer: the refresh token stops working at once',
          description:
            'Ends the session of the refresh token; access tokens already issued stay valid until they expire. Answers 200 for an ' +
            'unknown or already ended token too.',
          operationId: 'logoutCustomer',
          params: WorkspaceRefParams,
          body: CustomerRefreshBody,
          response: { 200: ok(MessageResult), ...errorResponses(404) },
        },
      },
      async (request) => envelope(request, await customers.logout(request.caller, request.params.id, request.body)),
    );

    app.get(
      '/workspaces/:id/customers/auth/me',
      {
        config: { tier: 'high', access: 'customer' },
        schema: {
          tags: [SELF_TAG],
          summary: 'The customer behind the token',
          description: `\`{id, email, firstName, lastName, walletAddress, walletLinkedAt, emailVerified, status}\`. ${CUSTOMER_TOKEN}`,
          operationId: 'customerMe',
          security: CUSTOMER_BEARER,
          params: WorkspaceRefParams,
          response: { 200: ok(CustomerMe), ...errorResponses(401, 403) },
        },
      },
      async (request) => envelope(request, await customers.me(request.caller, request.params.id)),
    );
  };
}
