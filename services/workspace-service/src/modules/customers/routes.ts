import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { ADMIN_ROLES, requireActor } from '../access/index.js';
import { CUSTOMER_AUDIT } from './records.js';
import type { CustomersService } from './service.js';

/** `/workspaces/{id}/customers`: a workspace's customers, for its administrators. */
export function workspaceCustomerRoutes(customers: CustomersService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listWorkspaceCustomers, { config: { tier: 'standard', roles: ADMIN_ROLES } }, async (request) => {
      const page = await customers.listForWorkspace(requireActor(request.caller), request.params.id, request.query);
      return envelope(request, page.customers, page.pagination);
    });

    serveEndpoint(
      app,
      api.createWorkspaceCustomer,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: CUSTOMER_AUDIT.create } },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await customers.createForWorkspace(request.caller, request.params.id, request.body))),
    );
  };
}

/** `/customers[/{id}]`: customers across workspaces (SUPER_ADMIN) or of the caller's workspace (ADMIN). */
export function globalCustomerRoutes(customers: CustomersService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listCustomers, { config: { tier: 'standard', roles: ADMIN_ROLES } }, async (request) => {
      const page = await customers.list(requireActor(request.caller), request.query);
      return envelope(request, page.customers, page.pagination);
    });

    serveEndpoint(
      app,
      api.createCustomer,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: CUSTOMER_AUDIT.create } },
      async (request, reply) => reply.code(201).send(envelope(request, await customers.create(request.caller, request.body))),
    );

    serveEndpoint(app, api.getCustomer, { config: { tier: 'standard', roles: ADMIN_ROLES } }, async (request) =>
      envelope(request, await customers.get(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(
      app,
      api.updateCustomer,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: CUSTOMER_AUDIT.update } },
      async (request) => envelope(request, await customers.update(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(
      app,
      api.deleteCustomer,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: CUSTOMER_AUDIT.delete } },
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
    serveEndpoint(
      app,
      api.registerCustomer,
      { config: { tier: 'public', access: 'public', audit: CUSTOMER_AUDIT.register } },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await customers.register(request.caller, request.params.id, request.body))),
    );

    serveEndpoint(app, api.loginCustomer, { config: { tier: 'public', access: 'public', audit: CUSTOMER_AUDIT.login } }, async (request) =>
      envelope(request, await customers.login(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(
      app,
      api.refreshCustomer,
      { config: { tier: 'public', access: 'public', audit: CUSTOMER_AUDIT.refresh } },
      async (request) => envelope(request, await customers.refresh(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(
      app,
      api.logoutCustomer,
      { config: { tier: 'public', access: 'public', audit: CUSTOMER_AUDIT.logout } },
      async (request) => envelope(request, await customers.logout(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(app, api.customerMe, { config: { tier: 'high', access: 'customer' } }, async (request) =>
      envelope(request, await customers.me(request.caller, request.params.id)),
    );
  };
}
