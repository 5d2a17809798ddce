import { Type } from '@sinclair/typebox';
import { SuccessEnvelope as ok } from '../../common/envelope.js';
import { CUSTOMER_AUDIT } from '../audit-actions.js';
import { IdParams, MessageResult } from '../common.js';
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
  UpdateCustomerBody,
  WorkspaceCustomerListQuery,
  WorkspaceRefParams,
} from '../customers.js';
import { ADMIN_ROLES } from '../identity.js';
import { ADMIN_CHANGE, CUSTOMER_TOKEN, resource } from './define.js';

// customers: a workspace's customers for its administrators (`/workspaces/{id}/customers`,
// `/customers[/{id}]`), and the customers' own self-service routes (`/workspaces/{id}/customers/auth/*`,
// `{id}` the workspace id or slug), the wallet ones among them.

const CUSTOMER_ADMINS = 'ADMINs of the workspace and SUPER_ADMINs; other roles get 403.';
const CUSTOMER_SEARCH = '`search` matches part of the e-mail, first, last or full name; `status` filters. Newest first.';
const endpoint = resource({ tags: ['customers'] });

export const listWorkspaceCustomers = endpoint('GET /workspaces/:id/customers', {
  operationId: 'listWorkspaceCustomers',
  summary: "List a workspace's customers",
  description: `${CUSTOMER_SEARCH} ${CUSTOMER_ADMINS}`,
  roles: ADMIN_ROLES,
  params: IdParams,
  querystring: WorkspaceCustomerListQuery,
  response: { 200: ok(Type.Array(CustomerRecord)) },
  errors: [404],
});

export const createWorkspaceCustomer = endpoint('POST /workspaces/:id/customers', {
  operationId: 'createWorkspaceCustomer',
  summary: 'Create a customer of the workspace',
  description:
    'The e-mail address is unique within the workspace (409). A customer created here has no password: it cannot log in ' +
    '(self-service accounts are made by POST .../customers/auth/register). `status` defaults to `active`. ' +
    CUSTOMER_ADMINS,
  ...ADMIN_CHANGE,
  audit: CUSTOMER_AUDIT.create,
  params: IdParams,
  body: CreateCustomerBody,
  response: { 201: ok(CustomerRecord) },
  errors: [404, 409],
});

export const listCustomers = endpoint('GET /customers', {
  operationId: 'listCustomers',
  summary: 'List customers',
  description:
    `A SUPER_ADMIN lists every workspace's customers (or one's, with \`workspaceId\`); an ADMIN its workspace's (another ` +
    `\`workspaceId\` is 403). ${CUSTOMER_SEARCH}`,
  roles: ADMIN_ROLES,
  querystring: CustomerListQuery,
  response: { 200: ok(Type.Array(CustomerRecord)) },
});

export const createCustomer = endpoint('POST /customers', {
  operationId: 'createCustomer',
  summary: 'Create a customer',
  description:
    'As POST /workspaces/{id}/customers, with the workspace in the body: a workspace that does not exist is 400, another ' +
    "tenant's 403; a taken e-mail or externalId in the workspace 409.",
  ...ADMIN_CHANGE,
  audit: CUSTOMER_AUDIT.create,
  body: CreateGlobalCustomerBody,
  response: { 201: ok(CustomerRecord) },
  errors: [409],
});

export const getCustomer = endpoint('GET /customers/:id', {
  operationId: 'getCustomer',
  summary: 'Get a customer',
  description: `With its wallet (\`walletAddress\`, \`walletLinkedAt\`) when it linked or was given one. Another tenant's customer is 404. ${CUSTOMER_ADMINS}`,
  roles: ADMIN_ROLES,
  params: IdParams,
  response: { 200: ok(CustomerRecord) },
  errors: [404],
});

export const updateCustomer = endpoint('PUT /customers/:id', {
  operationId: 'updateCustomer',
  summary: 'Update a customer',
  description:
    'Any field of the creation except the workspace; `null` clears an optional one. A customer set to `inactive`, `suspended` ' +
    `or \`pending\` is signed out at once (sessions revoked, access tokens refused). 409 for a taken e-mail or externalId. ${CUSTOMER_ADMINS}`,
  ...ADMIN_CHANGE,
  audit: CUSTOMER_AUDIT.update,
  params: IdParams,
  body: UpdateCustomerBody,
  response: { 200: ok(CustomerRecord) },
  errors: [404, 409],
});

export const deleteCustomer = endpoint('DELETE /customers/:id', {
  operationId: 'deleteCustomer',
  summary: 'Delete a customer (irreversible)',
  description:
    'Deletes the customer with its sessions, its wallet link and pending wallet-link nonces (a CUSTODY_A wallet stays at the ' +
    `vendor). The audit entries are kept. Answers \`{message}\`. ${CUSTOMER_ADMINS}`,
  ...ADMIN_CHANGE,
  audit: CUSTOMER_AUDIT.delete,
  params: IdParams,
  response: { 200: ok(MessageResult) },
  errors: [404],
});

const selfService = resource({ tags: ['customer self-service'] });

export const registerCustomer = selfService('POST /workspaces/:id/customers/auth/register', {
  operationId: 'registerCustomer',
  summary: 'Register as a customer of the workspace',
  description:
    'Creates the customer with the same password policy as users (12 to 128 characters with an upper-case letter, a lower-case ' +
    'letter, a number and a special character) and signs it in: the answer is the customer session. 409 when the e-mail ' +
    'address is taken in the workspace; 404 for an unknown workspace; 403 when the workspace is inactive or suspended.',
  access: 'public',
  tier: 'public',
  audit: CUSTOMER_AUDIT.register,
  params: WorkspaceRefParams,
  body: CustomerRegisterBody,
  response: { 201: ok(CustomerSession) },
  errors: [403, 404, 409],
});

export const loginCustomer = selfService('POST /workspaces/:id/customers/auth/login', {
  operationId: 'loginCustomer',
  summary: 'Log in as a customer',
  description:
    'The e-mail is compared in lower case. Answers an access token (a customer JWT, 3600 s, valid only on the customer routes of ' +
    'this workspace) and a refresh token (single use). 401 `INVALID_CREDENTIALS` for a wrong e-mail or password (also for a ' +
    'customer an administrator created, which has no password); 401 for an account that is not active; 429 with a doubling back-off ' +
    'after 5 failures within 15 minutes for this account from this client address (other addresses are not affected).',
  access: 'public',
  tier: 'public',
  audit: CUSTOMER_AUDIT.login,
  params: WorkspaceRefParams,
  body: CustomerLoginBody,
  response: { 200: ok(CustomerSession) },
  errors: [401, 403, 404],
});

export const refreshCustomer = selfService('POST /workspaces/:id/customers/auth/refresh', {
  operationId: 'refreshCustomer',
  summary: 'Exchange a customer refresh token for new tokens',
  description:
    'The refresh token is single use: the answer holds a new one. Presenting an already used one revokes the whole session and ' +
    "answers 401; so do an expired one (`TOKEN_EXPIRED`), an unknown one and another workspace's.",
  access: 'public',
  tier: 'public',
  audit: CUSTOMER_AUDIT.refresh,
  params: WorkspaceRefParams,
  body: CustomerRefreshBody,
  response: { 200: ok(CustomerSession) },
  errors: [401, 404],
});

export const logoutCustomer = selfService('POST /workspaces/:id/customers/auth/logout', {
  operationId: 'logoutCustomer',
  summary: 'Log out a customer: the refresh token stops working at once',
  description:
    'Ends the session of the refresh token; access tokens already issued stay valid until they expire. Answers 200 for an ' +
    'unknown or already ended token too.',
  access: 'public',
  tier: 'public',
  audit: CUSTOMER_AUDIT.logout,
  params: WorkspaceRefParams,
  body: CustomerRefreshBody,
  response: { 200: ok(MessageResult) },
  errors: [404],
});

export const customerMe = selfService('GET /workspaces/:id/customers/auth/me', {
  operationId: 'customerMe',
  summary: 'The customer behind the token',
  description: `\`{id, email, firstName, lastName, walletAddress, walletLinkedAt, emailVerified, status}\`. ${CUSTOMER_TOKEN}`,
  access: 'customer',
  tier: 'high',
  params: WorkspaceRefParams,
  response: { 200: ok(CustomerMe) },
  errors: [403],
});
